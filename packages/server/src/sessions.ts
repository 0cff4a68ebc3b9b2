/**
 * CLI sessions: one McpServer and one Streamable HTTP transport per session
 * (a shared McpServer routes replies to the wrong client). The real CLI never
 * sends DELETE, so sessions expire by themselves: one whose GET stream closed
 * and did not reopen within `streamGraceMs` (its CLI exited or died; the MCP
 * SDK reopens a dropped stream after 1 s), or one that never opened a stream
 * and sent nothing for `graceMs`. At most `maxSessions` live at once.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CORE_AGENT } from './agentChoice.js';
import { CliSession, toJsonRpc, type SessionInfo } from './cliSession.js';
import { messageEvent, openEventStream } from './http/eventStream.js';
import { SessionTransport } from './http/sessionTransport.js';
import { toolCallFault, toolLookup } from './http/rpcConformance.js';
import { validateCompanionNotification, type CompanionNotification } from '@ide-companion/protocol';
import { loadSdk } from './lazySdk.js';
import { describeError, type Logger } from './logger.js';
import type { AgentName } from '@ide-companion/shared/agentPaths';

export type { SessionInfo } from './cliSession.js';

export interface SessionRegistryOptions {
  /** A session that never opened its GET stream expires after this long without requests. */
  graceMs: number;
  /** A session whose GET stream closed expires after this long unless it reopens (or requests come). */
  streamGraceMs: number;
  maxSessions: number;
  keepAliveMs: number;
  createServer: () => Promise<McpServer>;
  logger: Logger;
  /** The session's GET stream just opened: the moment to push the current context. */
  onStreamOpen: (sessionId: string) => void;
  onSessionsChanged: () => void;
  /** `endedByClient`: the client sent DELETE (the real CLIs never do; our commands do), rather than going away. */
  onSessionClosed: (sessionId: string, endedByClient: boolean) => void;
  /**
   * Checks a notification before it goes out; default: as Gemini CLI's
   * schema reads it. A face with notifications of its own (Copilot CLI's)
   * checks its own.
   */
  validate?: (notification: CompanionNotification) => CompanionNotification;
}

/** What a face that holds MCP sessions of its own passes through to its registry (Copilot CLI's, Factory Droid's). */
export type SessionLimits = Pick<SessionRegistryOptions, 'graceMs' | 'streamGraceMs' | 'maxSessions' | 'keepAliveMs' | 'createServer' | 'logger'>;

/** Those fields alone, out of a face's options. */
export function sessionLimits({ graceMs, streamGraceMs, maxSessions, keepAliveMs, createServer, logger }: SessionLimits): SessionLimits {
  return { graceMs, streamGraceMs, maxSessions, keepAliveMs, createServer, logger };
}

export class SessionRegistry {
  private readonly sessions = new Map<string, CliSession>();
  /** initialize requests in flight, counted against the cap too. */
  private initializing = 0;
  private closed = false;

  constructor(private readonly options: SessionRegistryOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  has(id: string): boolean {
    return this.sessions.has(id);
  }

  agentOf(id: string): AgentName | undefined {
    return this.sessions.get(id)?.agent;
  }

  /** Whether the session was opened on one of the companion's Unix sockets: the relay's, which alone may send an openDiff's remote base. */
  openedOnSocket(id: string): boolean {
    return this.sessions.get(id)?.onSocket ?? false;
  }

  /** Whether `ide-companion check` opened the session, proven by its initialize (http/checkProbe.ts). */
  isCheckProbe(id: string): boolean {
    return this.sessions.get(id)?.checkProbe ?? false;
  }

  list(): SessionInfo[] {
    return [...this.sessions.values()].map((s) => s.info());
  }

  /** Whether one more session would pass the cap. */
  get full(): boolean {
    return this.sessions.size + this.initializing >= this.options.maxSessions;
  }

  get maxSessions(): number {
    return this.options.maxSessions;
  }

  /** POST initialize without a session id: a new session. */
  async initialize(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    agent: AgentName = CORE_AGENT,
    checkProbe = false,
    onSocket = false,
  ): Promise<void> {
    if (this.closed) throw new Error('companion is stopping');
    // Counted from now until the session is in the map (or the initialize failed), never twice.
    this.initializing++;
    let pending = true;
    const settled = () => {
      if (pending) this.initializing--;
      pending = false;
    };
    try {
      await this.open(req, res, body, agent, checkProbe, onSocket, settled);
    } finally {
      settled();
    }
  }

  private async open(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    agent: AgentName,
    checkProbe: boolean,
    onSocket: boolean,
    settled: () => void,
  ): Promise<void> {
    const server = await this.options.createServer();
    const toolExists = toolLookup(() => server);
    let session: CliSession | undefined;
    const transport: SessionTransport = new SessionTransport({
      newSessionId: randomUUID,
      onSessionInitialized: (id) => {
        settled();
        session = new CliSession(id, transport, server, agent, checkProbe, onSocket);
        this.sessions.set(id, session);
        this.arm(session);
      },
      // Notifications the SDK sends itself (none today) go where ours go.
      toStream: (message) => session?.stream?.send(message),
      // What the SDK answers wrongly (an unknown tool, bad tools/call params) is answered at our edge.
      vet: (request) => toolCallFault(request, toolExists),
    });
    server.server.onclose = () => {
      if (session) this.forget(session);
    };
    await server.connect(transport);
    try {
      await transport.handlePost(req, res, body);
    } finally {
      // An initialize that failed leaves no session behind, only this server to close.
      if (!session) await server.close().catch(() => undefined);
    }
    if (!session) return;
    const info = session.info();
    this.options.logger.info('CLI session connected', { session: info.id, client: info.clientName, version: info.clientVersion });
    this.options.onSessionsChanged();
  }

  /** Any request on an existing session. */
  async handle(id: string, req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    const session = this.sessions.get(id)!;
    if (req.method === 'GET') {
      await this.openStream(session, req, res);
      return;
    }
    this.arm(session);
    if (req.method === 'DELETE') {
      session.endedByClient = true;
      await session.transport.handleDelete(req, res);
    } else await session.transport.handlePost(req, res, body);
  }

  /** Sends one notification to one session, validated first; false if it was not sent. */
  notify(sessionId: string, notification: CompanionNotification): boolean {
    const session = this.sessions.get(sessionId);
    if (!session) return false;
    const valid = this.validated(notification);
    if (!valid) return false;
    if (!session.stream) {
      this.options.logger.debug('notification dropped: the session has no open stream', { session: sessionId, method: valid.method });
      return false;
    }
    session.stream.send(toJsonRpc(valid));
    return true;
  }

  /**
   * Sends to every session whose stream is open (the others get a snapshot
   * when theirs opens): validated and encoded once, whatever the count.
   */
  broadcast(notification: CompanionNotification): number {
    const streams = [...this.sessions.values()].flatMap((s) => (s.stream ? [s.stream] : []));
    if (streams.length === 0) return 0;
    const valid = this.validated(notification);
    if (!valid) return 0;
    const event = messageEvent(toJsonRpc(valid));
    for (const stream of streams) stream.sendEncoded(event);
    return streams.length;
  }

  /** The notification as the CLI's schema will read it, or undefined (logged): an invalid one would disconnect the CLI. */
  private validated(notification: CompanionNotification): CompanionNotification | undefined {
    try {
      return (this.options.validate ?? validateCompanionNotification)(notification);
    } catch (err) {
      this.options.logger.error('refusing to send an invalid notification', { method: notification.method, error: describeError(err) });
      return undefined;
    }
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.sessions.values()].map((s) => this.close(s)));
  }

  private async openStream(session: CliSession, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { SUPPORTED_PROTOCOL_VERSIONS } = await loadSdk();
    const stream = openEventStream(req, res, {
      sessionId: session.id,
      alreadyOpen: session.stream !== undefined,
      keepAliveMs: this.options.keepAliveMs,
      versions: SUPPORTED_PROTOCOL_VERSIONS,
    });
    if (!stream) {
      this.arm(session);
      return;
    }
    session.stream = stream;
    session.hadStream = true;
    this.disarm(session);
    setImmediate(() => this.options.onStreamOpen(session.id));
    this.options.onSessionsChanged();
    res.once('close', () => {
      stream.end();
      if (session.stream !== stream) return;
      session.stream = undefined;
      this.arm(session);
      if (this.sessions.has(session.id)) this.options.onSessionsChanged();
    });
  }

  /** Starts the expiry clock of a session without an open stream. */
  private arm(session: CliSession): void {
    this.disarm(session);
    if (session.stream || this.closed) return;
    const [graceMs, why] = session.hadStream
      ? [this.options.streamGraceMs, 'its stream closed and did not reopen']
      : [this.options.graceMs, 'no stream, no requests'];
    session.expiry = setTimeout(() => {
      this.options.logger.info(`CLI session expired (${why})`, { session: session.id });
      void this.close(session);
    }, graceMs);
    session.expiry.unref();
  }

  private disarm(session: CliSession): void {
    if (session.expiry) clearTimeout(session.expiry);
    session.expiry = undefined;
  }

  private async close(session: CliSession): Promise<void> {
    this.forget(session);
    await session.server.close().catch(() => undefined);
  }

  private forget(session: CliSession): void {
    this.disarm(session);
    session.stream?.end();
    if (!this.sessions.delete(session.id)) return;
    this.options.logger.info('CLI session closed', { session: session.id });
    this.options.onSessionClosed(session.id, session.endedByClient);
    this.options.onSessionsChanged();
  }
}
