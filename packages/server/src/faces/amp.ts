/**
 * Amp's face (issue 31): the same companion reached the way Amp's CLI
 * (`amp --ide`) reaches an IDE, as sourcegraph/amp.nvim serves it. Its lock
 * file `<data home>/amp/ide/<PORT>.json` names the companion's own port and a
 * token of the face's; the CLI opens a WebSocket there with `?auth=TOKEN`
 * (told apart from Claude Code's upgrade by that parameter) and sends
 * envelopes `{clientRequest: {id, <method>}}`, answered from the core
 * (ampRequests.ts: path checks, the diff coordinator, the editor's actions).
 * It hears `selectionDidChange` and `visibleFilesDidChange` from the context
 * tracker and `appendToPrompt` from "send to agent".
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import {
  AMP_AUTH_QUERY,
  AMP_ERROR,
  AMP_NOTIFICATION,
  AMP_TOKEN_LENGTH,
  DiffAcceptedNotification,
  type AmpError,
  type AmpId,
  type CompanionNotification,
  type IdeContext,
} from '@ide-companion/protocol';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { queryTokenGuard, queryValues, type HostRule, type Refusal } from '../http/requestGuard.js';
import { describeError } from '../logger.js';
import type { SessionInfo } from '../sessions.js';
import { ampReference, ampSelection, ampVisibleFiles } from './amp/ampContext.js';
import { sendText } from './textFrames.js';
import type { FileMention, UpgradeClaim } from './sessionFace.js';
import { WebSocketFaceBase, type WebSocketFaceOptions } from './webSocketFace.js';

export { ampIdeDir, ampLockFileName } from '@ide-companion/shared/agentPaths';

/** What editFile's caller hears once the user decides on the diff. */
export interface AmpEditOutcome {
  accepted: boolean;
  /** The user's final text (their edits included) when accepted. */
  content?: string;
  /** Not the user's answer: a newer editFile of the same file took its place. */
  replaced?: boolean;
}

/** How a request is answered: its result under the method's key, or an error. */
export type AmpAnswer = { result: object } | { error: AmpError };

export interface AmpFaceOptions extends WebSocketFaceOptions {
  hosts: HostRule;
  /** Answers one parsed envelope (ampRequests.ts). */
  answer: (session: AmpSession, id: AmpId, method: string, params: unknown) => Promise<AmpAnswer>;
  /** The context now, for a CLI that just connected. */
  currentContext: () => { context: IdeContext; selectionBackward: boolean };
}

/** One Amp connection. */
export class AmpSession {
  readonly connectedAt = Date.now();
  lastSelection: string | undefined;
  lastVisible: string | undefined;
  /** editFile calls waiting for the user, by file. */
  readonly edits = new Map<string, (outcome: AmpEditOutcome) => void>();

  constructor(
    readonly id: string,
    readonly socket: WebSocket,
  ) {}

  send(envelope: object): boolean {
    return this.sendFrame(JSON.stringify(envelope));
  }

  notify(name: string, params: object): boolean {
    return this.sendFrame(notificationFrame(name, JSON.stringify(params)));
  }

  /** Sends a frame made once (notificationFrame): the context's fan-out serializes each selection once. */
  sendFrame(frame: string): boolean {
    if (this.socket.readyState !== this.socket.OPEN) return false;
    sendText(this.socket, frame);
    return true;
  }

  /** Waits for the diff of `filePath` to be decided (ampRequests.ts closes an earlier one of the same file first). */
  waitEdit(filePath: string): Promise<AmpEditOutcome> {
    this.settleEdit(filePath, { accepted: false, replaced: true });
    return new Promise((resolve) => this.edits.set(filePath, resolve));
  }

  settleEdit(filePath: string, outcome: AmpEditOutcome): void {
    const settle = this.edits.get(filePath);
    this.edits.delete(filePath);
    settle?.(outcome);
  }

  settleAll(): void {
    for (const file of [...this.edits.keys()]) this.settleEdit(file, { accepted: false });
  }
}

export class AmpFace extends WebSocketFaceBase<AmpSession> {
  readonly agent = 'amp' as const;
  private guard: (req: IncomingMessage) => Refusal | undefined;

  constructor(private readonly options: AmpFaceOptions) {
    super(options, { refused: 'Amp WebSocket upgrade refused', disconnected: 'Amp disconnected' });
    this.guard = queryTokenGuard(options.hosts, options.token, AMP_AUTH_QUERY);
  }

  /** From now on an upgrade must carry `token` (rotated: amp/tokenRotation.ts); connected sessions stay, as amp.nvim's do. */
  acceptToken(token: string): void {
    this.guard = queryTokenGuard(this.options.hosts, token, AMP_AUTH_QUERY);
    this.probeToken(token);
  }

  /** An upgrade is Amp's when it carries the `auth` query parameter (Claude Code's carries a header). */
  claimsUpgrade(req: IncomingMessage): UpgradeClaim {
    return queryValues(req.url, AMP_AUTH_QUERY).length > 0 ? 'marked' : undefined;
  }

  /** A diff's outcome from the coordinator: the answer to the session's waiting editFile. */
  deliver(sessionId: string, notification: CompanionNotification): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const { filePath, content } = notification.params as { filePath: string; content?: string };
    const accepted = notification.method === DiffAcceptedNotification.method;
    session.settleEdit(filePath, accepted ? { accepted, content } : { accepted });
  }

  /** The context changed: each session hears the selection and the visible files when they differ from what it heard last. */
  contextChanged(context: IdeContext, selectionBackward: boolean): void {
    if (this.sessions.size === 0) return;
    const told = toldOf(context, selectionBackward);
    for (const session of this.sessions.values()) this.tell(session, told);
  }

  /** "Send to agent": `@file` or `@file#Lx-y` (relative to its root) appended to every connected Amp's prompt. Returns how many heard it. */
  mention({ filePath, roots, startLine, endLine }: FileMention): number {
    const message = ampReference(filePath, roots, startLine, endLine);
    let sent = 0;
    for (const session of this.sessions.values()) if (session.notify(AMP_NOTIFICATION.appendToPrompt, { message })) sent++;
    return sent;
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => ({
      id: s.id,
      clientName: 'amp',
      clientVersion: undefined,
      streamOpen: true,
      connectedAt: s.connectedAt,
      agent: 'amp',
    }));
  }

  private tell(session: AmpSession, told: Told): void {
    if (told.selectionKey !== undefined && told.selectionKey !== session.lastSelection) {
      session.lastSelection = told.selectionKey;
      session.sendFrame((told.selectionFrame ??= notificationFrame(AMP_NOTIFICATION.selectionDidChange, told.selectionKey)));
    }
    // The files' URIs are made only for a session that has not heard this list.
    if (told.visibleKey !== session.lastVisible) {
      session.lastVisible = told.visibleKey;
      session.notify(AMP_NOTIFICATION.visibleFilesDidChange, ampVisibleFiles(told.context));
    }
  }

  protected refusal(req: IncomingMessage): Refusal | undefined {
    return tokenLengthRefusal(req) ?? this.guard(req) ?? ampTargetRefusal(req);
  }

  protected open(ws: WebSocket): AmpSession {
    return new AmpSession(randomUUID(), ws);
  }

  protected started(session: AmpSession): void {
    const ws = session.socket;
    // A frame over maxPayload closes the socket (1009) in `ws`; nothing else it raises may crash the companion.
    ws.on('error', (err) => this.options.logger.warn('Amp connection error', { session: session.id, error: describeError(err) }));
    ws.on('message', (data: RawData, isBinary: boolean) => void this.receive(session, data, isBinary));
    this.options.logger.info('Amp connected', { session: session.id });
    this.options.onSessionsChanged();
    // What the user sees now, as amp.nvim sends on connect.
    // The CLI shows the plugin's version in its IDE status.
    session.notify(AMP_NOTIFICATION.pluginMetadata, { version: COMPANION_VERSION });
    const { context, selectionBackward } = this.options.currentContext();
    this.tell(session, toldOf(context, selectionBackward));
  }

  /** Its editFile calls answered rejected. */
  protected settle(session: AmpSession): void {
    session.settleAll();
  }

  private async receive(session: AmpSession, data: RawData, isBinary: boolean): Promise<void> {
    const envelope = parseEnvelope(data, isBinary);
    if ('error' in envelope) {
      session.send({ serverResponse: { ...(envelope.id !== undefined && { id: envelope.id }), error: envelope.error } });
      return;
    }
    const { id, method, params } = envelope;
    let answer: AmpAnswer;
    try {
      answer = await this.options.answer(session, id, method, params);
    } catch (err) {
      this.options.logger.warn('Amp request failed', { method, error: describeError(err) });
      answer = { error: { code: AMP_ERROR.invalidRequest, message: `${method} failed: ${describeError(err)}` } };
    }
    session.send({ serverResponse: 'error' in answer ? { id, error: answer.error } : { id, [method]: answer.result } });
  }
}

/** What a context change tells Amp, computed once for every session. */
interface Told {
  context: IdeContext;
  /** The selection serialized: what a session heard last is compared by it, and its frame is made from it. */
  selectionKey: string | undefined;
  /** The selectionDidChange frame, made for the first session that needs it. */
  selectionFrame?: string;
  visibleKey: string;
}

function toldOf(context: IdeContext, backward: boolean): Told {
  const selection = ampSelection(context, backward);
  const files = context.workspaceState?.openFiles ?? [];
  // The active file first, then the rest in order: the same key for the same list told.
  const visibleKey = files.map((f) => (f.isActive ? `*${f.path}` : f.path)).join('\0');
  return { context, selectionKey: selection && JSON.stringify(selection), visibleKey };
}

type Envelope = { id: AmpId; method: string; params: unknown } | { id?: AmpId; error: AmpError };

/** Amp's server notification around params already serialized. */
function notificationFrame(name: string, paramsJson: string): string {
  return `{"serverNotification":{${JSON.stringify(name)}:${paramsJson}}}`;
}

/** One frame read as `{clientRequest: {id, <method>: params}}`, or the error to answer with. */
export function parseEnvelope(data: RawData, isBinary: boolean): Envelope {
  if (isBinary) return { error: { code: AMP_ERROR.invalidRequest, message: 'Invalid Request: send each envelope as one text frame of JSON' } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawText(data));
  } catch {
    return { error: { code: AMP_ERROR.parse, message: 'Parse error: the frame is not JSON' } };
  }
  const request = isObject(parsed) ? parsed['clientRequest'] : undefined;
  if (!isObject(request))
    return { error: { code: AMP_ERROR.invalidRequest, message: 'Invalid Request: expected {"clientRequest": {"id": ..., "<method>": {...}}}' } };
  const id = request['id'];
  if (typeof id !== 'string' && (typeof id !== 'number' || !Number.isFinite(id))) {
    return { error: { code: AMP_ERROR.invalidRequest, message: 'Invalid Request: clientRequest.id must be a string or a number' } };
  }
  const methods = Object.keys(request).filter((k) => k !== 'id');
  if (methods.length !== 1) {
    return { id, error: { code: AMP_ERROR.invalidRequest, message: `Invalid Request: clientRequest must name one method, got ${methods.length}` } };
  }
  return { id, method: methods[0]!, params: request[methods[0]!] };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** amp.nvim's bounds on the token's length, checked before the constant-time compare (which sees only a bounded string). */
/** Where the CLI dials: `ws://localhost:PORT?auth=TOKEN`, no path (read from its binary; testkit's ampClient.ts dials the same). */
export const AMP_WEBSOCKET_PATH = '/';

/** An upgrade on any other path is no Amp CLI's: refused, as Claude's face refuses one off its own path. */
function ampTargetRefusal(req: IncomingMessage): Refusal | undefined {
  const pathname = (req.url ?? '/').split('?')[0];
  if (pathname === AMP_WEBSOCKET_PATH) return undefined;
  return { status: 404, message: `Not Found: Amp's WebSocket is at ${AMP_WEBSOCKET_PATH}` };
}

function tokenLengthRefusal(req: IncomingMessage): Refusal | undefined {
  const values = queryValues(req.url, AMP_AUTH_QUERY);
  const length = values.length === 1 ? values[0]!.length : 0;
  if (values.length !== 1 || (length >= AMP_TOKEN_LENGTH.min && length <= AMP_TOKEN_LENGTH.max)) return undefined;
  return { status: 401, message: 'Unauthorized: invalid token in the query parameter auth', headers: { 'WWW-Authenticate': 'Bearer' } };
}
