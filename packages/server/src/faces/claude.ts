/**
 * Claude Code's face (issue 19): the same companion reached the way Claude
 * Code reaches an IDE. Its lock file `<CLAUDE_CONFIG_DIR or ~/.claude>/ide/<PORT>.lock`
 * names the companion's own port and token; the CLI opens a WebSocket there
 * (subprotocol `mcp`, the token in `x-claude-code-ide-authorization`) and
 * speaks MCP inside it, with Claude's tool names (claudeTools.ts). Each
 * connection is a session of the same diff coordinator and context tracker
 * as Gemini's: a diff's outcome reaches the CLI as the answer to its
 * blocking openDiff instead of a notification.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { WebSocket } from 'ws';
import {
  CLAUDE_AUTH_HEADER,
  CLAUDE_DIFF_OUTCOME,
  CLAUDE_NOTIFICATION,
  CLAUDE_SUBPROTOCOL,
  DiffAcceptedNotification,
  type ClaudeAtMentioned,
  type ClaudeLockFile,
  type ClaudeSelectionChanged,
  type CompanionNotification,
  type IdeContext,
} from '@ide-companion/protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HostRule, Refusal } from '../http/requestGuard.js';
import { upgradeGuard } from '../http/requestGuard.js';
import { describeError } from '../logger.js';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import type { SessionInfo } from '../sessions.js';
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';
import { sweepStaleLockFiles } from './lockFile.js';
import { toolCallFault, toolLookup } from '../http/rpcConformance.js';
import { lineCountOf } from './openFileRange.js';
import { TabbedDiffs } from './tabbedDiffs.js';
import { WebSocketTransport } from './webSocketTransport.js';
import type { FileMention, UpgradeClaim } from './sessionFace.js';
import { WebSocketFaceBase, type WebSocketFaceOptions } from './webSocketFace.js';
import { selectionOf } from './selection.js';
import { sendText } from './textFrames.js';

export { claudeIdeDir } from '@ide-companion/shared/agentPaths';

/** opencode names itself `opencode` in initialize's clientInfo (1.18.33); everything else on this face is Claude Code. */
export function agentOfClient(name: string | undefined): 'claude' | 'opencode' {
  return name === 'opencode' ? 'opencode' : 'claude';
}

/** What openDiff's caller gets when the user decides (or the diff goes). */
type Outcome = CallToolResult;

export interface ClaudeFaceOptions extends WebSocketFaceOptions {
  hosts: HostRule;
  /** A session's McpServer, with Claude's tools for that session. */
  createServer: (session: ClaudeSession) => Promise<McpServer>;
  /** The selection now, for a session that just connected. */
  currentSelection: () => ClaudeSelectionChanged | undefined;
}

/** One Claude Code connection. */
export class ClaudeSession {
  readonly connectedAt = Date.now();
  clientName: string | undefined;
  clientVersion: string | undefined;
  /** Claude Code, or a CLI that borrows its face (opencode), by what initialize said. */
  agent: 'claude' | 'opencode' = 'claude';
  /** openDiff calls waiting for the user, by tab name (tabbedDiffs.ts). */
  readonly diffs = new TabbedDiffs<Outcome>(closedOutcome);
  server: McpServer | undefined;
  /** Made as the connection opens (the face's open), before the session's server. */
  transport: WebSocketTransport | undefined;
  lastSelection: string | undefined;
  /** Whether the CLI said `notifications/initialized`: nothing of ours but answers goes out before (MCP lifecycle). */
  ready = false;

  constructor(
    readonly id: string,
    readonly socket: WebSocket,
  ) {}

  /** Whether a notification would go out: the session is initialized and its socket open. */
  get reachable(): boolean {
    return this.ready && this.socket.readyState === this.socket.OPEN;
  }

  /** Sends a notification; false (nothing sent) before the session is initialized or once the socket closed. */
  notify(method: string, params: object): boolean {
    return this.sendFrame(notificationFrame(method, JSON.stringify(params)));
  }

  /** Sends a frame made once for every session (notificationFrame). */
  sendFrame(frame: string): boolean {
    if (!this.reachable) return false;
    sendText(this.socket, frame);
    return true;
  }
}

/** A JSON-RPC notification around params already serialized: the context's fan-out serializes each selection once. */
function notificationFrame(method: string, paramsJson: string): string {
  return `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${paramsJson}}`;
}

function textOutcome(...texts: string[]): Outcome {
  return { content: texts.map((text) => ({ type: 'text' as const, text })) };
}

function closedOutcome(): Outcome {
  return textOutcome(CLAUDE_DIFF_OUTCOME.closed);
}

export class ClaudeFace extends WebSocketFaceBase<ClaudeSession> {
  readonly agent = 'claude' as const;
  private readonly guard: (req: IncomingMessage) => Refusal | undefined;

  constructor(private readonly options: ClaudeFaceOptions) {
    // Only a client that asks for `mcp` gets as far as `ws` (upgradeTargetRefusal).
    super(options, { refused: 'WebSocket upgrade refused', disconnected: 'Claude Code disconnected' }, { handleProtocols: () => CLAUDE_SUBPROTOCOL });
    this.guard = upgradeGuard(options.hosts, options.token, CLAUDE_AUTH_HEADER);
  }

  /** Claude Code's upgrade is a plain one (its token in a header, checked by refusal). */
  claimsUpgrade(): UpgradeClaim {
    return 'plain';
  }

  /** A diff's outcome from the coordinator: the answer to the session's blocking openDiff. */
  deliver(sessionId: string, notification: CompanionNotification): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const { filePath } = notification.params as { filePath: string };
    if (notification.method === DiffAcceptedNotification.method) {
      const { content } = notification.params as { content: string };
      session.diffs.settleFile(filePath, textOutcome(CLAUDE_DIFF_OUTCOME.saved, content));
    } else {
      session.diffs.settleFile(filePath, textOutcome(CLAUDE_DIFF_OUTCOME.rejected, session.diffs.tabOf(filePath) ?? filePath));
    }
  }

  /** The context changed: each session hears `selection_changed` when the active file or selection differs from what it heard last. */
  contextChanged(context: IdeContext, selectionBackward: boolean): void {
    if (this.sessions.size === 0) return;
    const selection = selectionOf(context, selectionBackward);
    if (!selection) return;
    const key = JSON.stringify(selection);
    let frame: string | undefined;
    for (const session of this.sessions.values()) {
      // One not yet initialized hears the selection of the moment when it is (accept's oninitialized).
      if (!session.ready || session.lastSelection === key) continue;
      session.lastSelection = key;
      session.sendFrame((frame ??= notificationFrame(CLAUDE_NOTIFICATION.selectionChanged, key)));
    }
  }

  /** "Send to agent": every connected Claude Code hears at_mentioned (0-based lines). Returns how many did. */
  mention({ filePath, startLine, endLine }: FileMention): number {
    const mention: ClaudeAtMentioned = {
      filePath,
      ...(startLine !== undefined && { lineStart: startLine - 1 }),
      ...(endLine !== undefined && { lineEnd: endLine - 1 }),
    };
    // opencode (1.18.33) drops an at_mentioned without both lines: a whole file goes to it as all its lines, counted once.
    const whole = mention.lineStart === undefined || mention.lineEnd === undefined;
    const counted: ClaudeSession[] = [];
    let sent = 0;
    for (const session of this.sessions.values()) {
      if (whole && session.agent === 'opencode') {
        if (!session.reachable) continue;
        counted.push(session);
        sent++;
      } else if (session.notify(CLAUDE_NOTIFICATION.atMentioned, mention)) sent++;
    }
    if (counted.length > 0) void withLines(mention).then((params) => counted.forEach((session) => session.notify(CLAUDE_NOTIFICATION.atMentioned, params)));
    return sent;
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => ({
      id: s.id,
      clientName: s.clientName,
      clientVersion: s.clientVersion,
      streamOpen: true,
      connectedAt: s.connectedAt,
      agent: s.agent,
    }));
  }

  protected refusal(req: IncomingMessage): Refusal | undefined {
    return this.guard(req) ?? upgradeTargetRefusal(req);
  }

  protected open(ws: WebSocket): ClaudeSession {
    const session = new ClaudeSession(randomUUID(), ws);
    // Made at once: it keeps what the CLI sends while the session's server is being made.
    const toolExists = toolLookup(() => session.server);
    session.transport = new WebSocketTransport(ws, session.id, { vet: (request) => toolCallFault(request, toolExists) });
    return session;
  }

  protected async started(session: ClaudeSession): Promise<void> {
    try {
      const server = await this.options.createServer(session);
      session.server = server;
      server.server.oninitialized = () => {
        if (session.ready) return; // a second `initialized` changes nothing
        session.ready = true;
        const client = server.server.getClientVersion();
        session.clientName = client?.name;
        session.clientVersion = client?.version;
        session.agent = agentOfClient(client?.name);
        this.options.logger.info(`${AGENT_DISPLAY_NAMES[session.agent]} connected`, { session: session.id, client: client?.name, version: client?.version });
        this.options.onSessionsChanged();
        // What the user has selected now, as claudecode.nvim and the VS Code extension send on connect.
        const selection = this.options.currentSelection();
        if (selection) {
          session.lastSelection = JSON.stringify(selection);
          session.notify(CLAUDE_NOTIFICATION.selectionChanged, selection);
        }
      };
      await server.connect(session.transport!);
    } catch (err) {
      this.options.logger.error('could not start a Claude Code session', { error: describeError(err) });
      this.drop(session, 1011, 'the companion could not start a session');
    }
  }

  /** Its openDiff calls answered TAB_CLOSED. */
  protected settle(session: ClaudeSession): void {
    session.diffs.settleAll();
  }

  protected override released(session: ClaudeSession): void {
    void session.server?.close().catch(() => undefined);
  }
}

/**
 * The path the CLI dials: `ws://127.0.0.1:PORT`, the lock file's port and
 * nothing more (Claude Code 2.1.332 builds `ws://${host}:${port}`), so `/`.
 */
export const CLAUDE_WEBSOCKET_PATH = '/';

/**
 * What the guard leaves to the face: the CLI's path and its subprotocol.
 * An upgrade elsewhere, or offering subprotocols without `mcp`, is refused
 * before anything is upgraded. One offering none is taken: opencode dials
 * so (docs/agents.md).
 */
export function upgradeTargetRefusal(req: IncomingMessage): Refusal | undefined {
  const pathname = (req.url ?? '/').split('?')[0];
  if (pathname !== CLAUDE_WEBSOCKET_PATH) return { status: 404, message: `Not Found: Claude Code's WebSocket is at ${CLAUDE_WEBSOCKET_PATH}` };
  const header = req.headers['sec-websocket-protocol'];
  // None at all is opencode (1.18.33 dials with the token and no subprotocol); a list without `mcp` is no client of ours.
  if (header === undefined) return undefined;
  const offered = typeof header === 'string' ? header.split(',').map((p) => p.trim()) : [];
  if (!offered.includes(CLAUDE_SUBPROTOCOL)) {
    return {
      status: 400,
      message: `Bad Request: this WebSocket speaks the subprotocol ${CLAUDE_SUBPROTOCOL} only (Sec-WebSocket-Protocol: ${CLAUDE_SUBPROTOCOL})`,
    };
  }
  return undefined;
}

/** The lock file Claude Code reads. */
export function claudeLockFile(input: { idePid: number; roots: readonly string[]; ideName: string; token: string }): ClaudeLockFile {
  return {
    pid: input.idePid,
    workspaceFolders: [...input.roots],
    ideName: input.ideName,
    transport: 'ws',
    authToken: input.token,
    runningInWindows: process.platform === 'win32',
  };
}

/** Removes our own Claude lock files whose IDE is gone (their pid dead). */
export function sweepStaleClaudeLockFiles(dir: string, isAlive: (pid: number) => boolean = isProcessAlive): string[] {
  return sweepStaleLockFiles(dir, 'pid', isAlive);
}

async function withLines(mention: ClaudeAtMentioned): Promise<ClaudeAtMentioned> {
  const start = mention.lineStart ?? 0;
  return { filePath: mention.filePath, lineStart: start, lineEnd: mention.lineEnd ?? Math.max(start, ((await lineCountOf(mention.filePath)) ?? 1) - 1) };
}
