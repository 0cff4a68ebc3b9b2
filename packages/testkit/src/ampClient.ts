/**
 * Amp's side of its IDE protocol, for tests of the Amp face: what `amp
 * --ide` (@ampcode/cli 0.0.1790142911-g7618fb, its IDE client read from the
 * JavaScript its binary carries) does with a lock file
 * (`<data>/amp/ide/<PORT>.json`): a WebSocket to
 * `ws://localhost:PORT?auth=TOKEN` (no headers of its own), requests
 * `{clientRequest: {id, <method>}}` with ids "1", "2", ... counted per
 * connection, each frame from the editor parsed with the CLI's schemas (a
 * frame they refuse is dropped whole), an answer taken as `serverResponse[method]`
 * (an `error` fails the call), and the notifications folded into its status
 * as the CLI does (one per envelope: selectionDidChange, else
 * visibleFilesDidChange, else pluginMetadata; others are ignored).
 */
import { WebSocket } from 'ws';
import * as z from 'zod/mini';
import { AMP_REQUEST } from '@ide-companion/protocol';

export interface AmpLock {
  port: number;
  authToken: string;
  pid: number;
  workspaceFolders: string[];
  ideName: string;
}

/** The CLI's request timeout. */
export const AMP_CLI_REQUEST_TIMEOUT_MS = 2000;

// The CLI's schemas for what the editor sends (its z.object strips unknown keys, as zod's does).
const range = z.object({ startLine: z.number(), startCharacter: z.number(), endLine: z.number(), endCharacter: z.number() });
const diagnostic = z.object({
  range,
  severity: z.string(),
  description: z.string(),
  lineContent: z.string(),
  startOffset: z.number(),
  endOffset: z.number(),
});
const serverResponse = z.object({
  id: z.string(),
  error: z.optional(z.object({ code: z.number(), message: z.string() })),
  ping: z.optional(z.object({ message: z.string() })),
  getDiagnostics: z.optional(z.object({ entries: z.array(z.object({ uri: z.string(), diagnostics: z.array(diagnostic) })) })),
  openURI: z.optional(z.object({ success: z.boolean(), message: z.optional(z.string()) })),
});
const serverNotification = z.object({
  selectionDidChange: z.optional(z.object({ uri: z.url(), selections: z.array(z.object({ range, content: z.string() })) })),
  visibleFilesDidChange: z.optional(z.object({ uris: z.array(z.url()) })),
  pluginMetadata: z.optional(z.object({ version: z.string(), pluginDirectory: z.optional(z.string()) })),
});
const serverMessage = z.object({ serverNotification: z.optional(serverNotification), serverResponse: z.optional(serverResponse) });

/** What the CLI knows of the IDE, from the notifications it handles. */
export interface AmpCliStatus {
  openFile?: string;
  selections?: Array<{ range: z.infer<typeof range>; content: string }>;
  visibleFiles?: string[];
  pluginVersion?: string;
  pluginDirectory?: string;
}

export interface AmpClient {
  socket: WebSocket;
  /** Every `serverNotification` heard, oldest first, as `{name, params}` (those the CLI ignores too). */
  notifications: Array<{ name: string; params: any }>;
  /** The CLI's view, updated as its handler updates it. */
  status: AmpCliStatus;
  /** Frames the CLI's schemas refuse (it logs and drops them): each with the reason. */
  dropped: Array<{ text: string; reason: string }>;
  /** Sends one request and waits for the answer with its id (the whole `serverResponse`, as sent). */
  request(method: string, params?: unknown): Promise<any>;
  /** As the CLI's sendRequest: the result under the method's key, rejected on `error`, a missing result or the CLI's timeout. */
  call(method: typeof AMP_REQUEST.ping | typeof AMP_REQUEST.getDiagnostics | typeof AMP_REQUEST.openURI, params: unknown): Promise<any>;
  /** The CLI's liveness check: ping "beepboop" answered with the same message. */
  isConnected(): Promise<boolean>;
  /** Sends raw text and waits for the next `serverResponse` (for malformed envelopes). */
  raw(text: string): Promise<any>;
  close(): Promise<void>;
}

/** Connects as Amp does, from the lock file's port and token. */
export function connectAmpClient(lock: Pick<AmpLock, 'port' | 'authToken'>): Promise<AmpClient> {
  const socket = new WebSocket(`ws://localhost:${lock.port}?auth=${encodeURIComponent(lock.authToken)}`);
  const notifications: AmpClient['notifications'] = [];
  const status: AmpCliStatus = {};
  const dropped: AmpClient['dropped'] = [];
  const waiting = new Map<string, (answer: any) => void>();
  const anyAnswer: Array<(answer: any) => void> = [];
  let next = 1;
  socket.on('message', (data) => {
    const text = String(data);
    const envelope = JSON.parse(text);
    if (envelope.serverNotification) for (const [name, params] of Object.entries(envelope.serverNotification)) notifications.push({ name, params });
    const parsed = serverMessage.safeParse(envelope);
    if (!parsed.success) dropped.push({ text, reason: parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ') });
    else fold(status, parsed.data.serverNotification);
    const answer = envelope.serverResponse;
    if (!answer) return;
    const settle = waiting.get(answer.id) ?? anyAnswer.shift();
    waiting.delete(answer.id);
    settle?.(parsed.success ? { ...answer, cliAccepts: true } : { ...answer, cliAccepts: false });
  });
  const send = (method: string, params: unknown): Promise<any> => {
    const id = `${next++}`;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ clientRequest: { id, [method]: params } }));
    });
  };
  const strip = ({ cliAccepts: _, ...answer }: any) => answer;
  const client: AmpClient = {
    socket,
    notifications,
    status,
    dropped,
    async request(method, params = {}) {
      return strip(await send(method, params));
    },
    call(method, params) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Timeout after ${AMP_CLI_REQUEST_TIMEOUT_MS}ms for ${method}`)), AMP_CLI_REQUEST_TIMEOUT_MS);
        void send(method, params).then((answer) => {
          clearTimeout(timer);
          if (!answer.cliAccepts) reject(new Error(`the CLI drops the answer to ${method}: ${JSON.stringify(strip(answer))}`));
          else if (answer.error) reject(new Error(JSON.stringify(answer.error)));
          else if (!answer[method]) reject(new Error(`Invalid response for method ${method}`));
          else resolve(serverResponse.parse(answer)[method]);
        });
      });
    },
    async isConnected() {
      try {
        return (await client.call('ping', { message: 'beepboop' }))?.message === 'beepboop';
      } catch {
        return false;
      }
    },
    raw(text) {
      return new Promise((resolve) => {
        anyAnswer.push((answer) => resolve(strip(answer)));
        socket.send(text);
      });
    },
    close() {
      if (socket.readyState === socket.CLOSED) return Promise.resolve();
      return new Promise((resolve) => {
        socket.once('close', () => resolve());
        socket.close();
      });
    },
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(client));
    socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    socket.once('error', reject);
  });
}

/** The CLI's notification handler: the first it knows of the envelope's, nothing for the rest. */
function fold(status: AmpCliStatus, n: z.infer<typeof serverNotification> | undefined): void {
  if (!n) return;
  if (n.selectionDidChange) Object.assign(status, { selections: n.selectionDidChange.selections, openFile: n.selectionDidChange.uri });
  else if (n.visibleFilesDidChange) {
    const uris = n.visibleFilesDidChange.uris;
    Object.assign(status, { visibleFiles: uris }, uris.length === 0 && { openFile: undefined, selections: undefined });
  } else if (n.pluginMetadata) Object.assign(status, { pluginVersion: n.pluginMetadata.version, pluginDirectory: n.pluginMetadata.pluginDirectory });
}
