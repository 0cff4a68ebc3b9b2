/**
 * The per-user router on Codex's IPC socket (issue 31), the part OpenAI's
 * VS Code extension and desktop app play when they own the socket: clients
 * `initialize` (each gets a clientId), and a request from one (Codex CLI's
 * `ide-context`) is offered to every other client (`client-discovery-request`);
 * the best that can handle it gets it, and its answer goes back to the asker
 * with `handledByClientId`. Best: the longest workspace root holding the
 * asked root, then the most recently active (our faces say both in their
 * discovery answers; a client that says neither ranks last). Nobody:
 * `no-client-found`. Every wait is bounded, and so is every table.
 */
import { randomUUID } from 'node:crypto';
import * as net from 'node:net';
import {
  CODEX_ERROR,
  CODEX_MAX_CLIENT_FRAME_BYTES,
  CODEX_MAX_RESPONSE_FRAME_BYTES,
  CODEX_METHOD,
  type CodexFrame,
  type CodexRequest,
  type CodexResponse,
} from '@ide-companion/protocol';
import type { Logger } from '../logger.js';
import { codexWorkspaceRoot } from './codexContext.js';
import { CodexConnection, type CodexLink } from './codexFrames.js';

export interface CodexRouterLimits {
  /**
   * Connections at once. One more takes the place of the least recently heard client that has not initialized
   * and waits for nothing (a silent or idle peer; Codex CLI, which does not initialize, only while it waits for
   * nothing); when every place is an initialized client's or a waiting one's, it is closed at once.
   */
  maxClients: number;
  /** A connection's first frame must be whole within this (Codex CLI writes its request at once). */
  firstFrameTimeoutMs: number;
  /** Each frame must be whole within this of its first bytes: a trickled frame holds no place. */
  frameTimeoutMs: number;
  /** Requests of one client waiting at once; one more is answered with an error. */
  maxInFlight: number;
  /** How long the router waits for discovery answers (the CLI waits 6 s for everything). */
  discoveryTimeoutMs: number;
  /** How long the chosen client has to answer. */
  answerTimeoutMs: number;
}

export const DEFAULT_CODEX_ROUTER_LIMITS: CodexRouterLimits = {
  maxClients: 64,
  firstFrameTimeoutMs: 2_000,
  frameTimeoutMs: 2_000,
  maxInFlight: 8,
  discoveryTimeoutMs: 1_500,
  answerTimeoutMs: 3_500,
};

interface RouterClient {
  conn: CodexLink;
  /** Set by initialize; until then the client is offered nothing. */
  id: string | undefined;
  /** Requests forwarded to it whose answers are awaited: its frames may then be larger. */
  answering: number;
  /** Its own requests still waiting. */
  inFlight: number;
  /** When it last sent a whole frame (or connected): the least recently heard gives its place first. */
  heardAt: number;
  /** Over a socket (the router's own face is not). */
  remote: boolean;
}

interface Candidate {
  client: RouterClient;
  rootLength: number;
  activeAt: number;
}

interface Discovery {
  asker: RouterClient;
  request: CodexRequest;
  waiting: Set<RouterClient>;
  candidates: Candidate[];
  timer: NodeJS.Timeout | undefined;
}

interface Forwarded {
  asker: RouterClient;
  requestId: string;
  method: string;
  handler: RouterClient;
  timer: NodeJS.Timeout | undefined;
}

export class CodexRouter {
  readonly server: net.Server;
  private readonly clients = new Set<RouterClient>();
  private readonly discoveries = new Map<string, Discovery>();
  private readonly forwarded = new Map<string, Forwarded>();
  /** Ids of the router's own discoveries and forwards: only their peers see them, a counter is enough (and cheaper than a UUID per request). */
  private nextId = 0;

  constructor(
    private readonly logger: Logger,
    private readonly limits: CodexRouterLimits = DEFAULT_CODEX_ROUTER_LIMITS,
  ) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** Every connection and wait ends; the server stops listening (the caller removes the socket file). */
  async close(): Promise<void> {
    for (const client of [...this.clients]) client.conn.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * The router's own process as a client without a socket: frames between
   * the two are calls (no framing, no JSON). `onFrame` is the face's
   * receiver; the link returned is where the face sends. Initialized at once.
   */
  attachLocal(onFrame: (frame: CodexFrame) => void, onClose: (reason?: string) => void): { clientId: string; link: CodexLink } {
    const client: RouterClient = { conn: undefined as never, id: `client-${randomUUID()}`, answering: 0, inFlight: 0, heardAt: Date.now(), remote: false };
    let closed = false;
    const end = (reason?: string) => {
      if (closed) return;
      closed = true;
      this.gone(client);
      onClose(reason);
    };
    // Router to face.
    client.conn = {
      send: (frame) => !closed && onFrame(frame),
      close: end,
      get isClosed() {
        return closed;
      },
    };
    this.clients.add(client);
    this.announce(client, 'connected');
    // Face to router.
    const link: CodexLink = {
      send: (frame) => !closed && this.receive(client, frame),
      close: end,
      get isClosed() {
        return closed;
      },
    };
    return { clientId: client.id!, link };
  }

  private accept(socket: net.Socket): void {
    if (this.clients.size >= this.limits.maxClients) {
      const idle = this.evictable();
      if (!idle) {
        this.logger.warn('Codex IPC: too many clients; a connection is refused', { max: this.limits.maxClients });
        socket.destroy();
        return;
      }
      this.logger.warn('Codex IPC: too many clients; the least recently heard idle one is closed for a new one', { max: this.limits.maxClients });
      idle.conn.close('its place was given to a new connection');
    }
    const client: RouterClient = { conn: undefined as never, id: undefined, answering: 0, inFlight: 0, heardAt: Date.now(), remote: true };
    client.conn = new CodexConnection(
      socket,
      {
        maxFrameBytes: () => (client.answering > 0 ? CODEX_MAX_RESPONSE_FRAME_BYTES : CODEX_MAX_CLIENT_FRAME_BYTES),
        onFrame: (frame) => {
          client.heardAt = Date.now();
          this.receive(client, frame);
        },
        onClose: () => this.gone(client),
        deadlines: { firstFrameMs: this.limits.firstFrameTimeoutMs, frameMs: this.limits.frameTimeoutMs },
      },
      this.logger,
    );
    this.clients.add(client);
  }

  /** The client whose place a new connection takes: not initialized, waiting for nothing, heard least recently. */
  private evictable(): RouterClient | undefined {
    let best: RouterClient | undefined;
    for (const c of this.clients) {
      if (!c.remote || c.id !== undefined || c.inFlight > 0 || c.answering > 0) continue;
      if (!best || c.heardAt < best.heardAt) best = c;
    }
    return best;
  }

  private receive(client: RouterClient, frame: CodexFrame): void {
    switch (frame.type) {
      case 'request':
        return this.request(client, frame);
      case 'response':
        return this.response(client, frame);
      case 'client-discovery-response':
        return this.discoveryAnswer(client, frame.requestId, frame.response);
      case 'broadcast':
        // Relayed to the others as from this client; ours and the CLI ignore them.
        if (client.id === undefined) return;
        for (const other of this.initialized(client)) other.conn.send({ ...frame, sourceClientId: client.id });
        return;
      case 'client-discovery-request':
        // Only a router asks; a client that does is talking nonsense, which changes nothing.
        return;
    }
  }

  private request(client: RouterClient, request: CodexRequest): void {
    if (request.method === CODEX_METHOD.initialize) {
      const first = client.id === undefined;
      client.id ??= `client-${randomUUID()}`;
      client.conn.send({
        type: 'response',
        requestId: request.requestId,
        resultType: 'success',
        method: CODEX_METHOD.initialize,
        handledByClientId: 'server',
        result: { clientId: client.id },
      });
      if (first) this.announce(client, 'connected');
      return;
    }
    // 0.171.0 asks without initializing (sourceClientId "codex-tui"): a client that never initialized may ask, and is offered nothing.
    if (client.inFlight >= this.limits.maxInFlight) return this.fail(client, request, CODEX_ERROR.invalidRequest);
    // As Codex's own router: an ide-context that names no workspace root is nobody's to answer, asked of no one.
    if (request.method === CODEX_METHOD.ideContext && codexWorkspaceRoot(request) === undefined) return this.fail(client, request, CODEX_ERROR.noClientFound);
    const others = this.initialized(client);
    if (others.length === 0) return this.fail(client, request, CODEX_ERROR.noClientFound);
    const discoveryId = `d${this.nextId++}`;
    client.inFlight += 1;
    const discovery: Discovery = {
      asker: client,
      request,
      waiting: new Set(others),
      candidates: [],
      timer: undefined,
    };
    this.discoveries.set(discoveryId, discovery);
    for (const other of others) other.conn.send({ type: 'client-discovery-request', requestId: discoveryId, request });
    // The router's own face answers within the send: a timer only for the answers still out.
    if (this.discoveries.has(discoveryId)) discovery.timer = setTimeout(() => this.decide(discoveryId), this.limits.discoveryTimeoutMs);
  }

  private discoveryAnswer(client: RouterClient, discoveryId: string, answer: { canHandle: boolean; rootLength?: number; activeAt?: number }): void {
    const discovery = this.discoveries.get(discoveryId);
    if (!discovery || !discovery.waiting.delete(client)) return;
    if (answer.canHandle) discovery.candidates.push({ client, rootLength: finite(answer.rootLength), activeAt: finite(answer.activeAt) });
    if (discovery.waiting.size === 0) this.decide(discoveryId);
  }

  /** Every answer is in, or the time is up: the best candidate gets the request. */
  private decide(discoveryId: string): void {
    const discovery = this.discoveries.get(discoveryId);
    if (!discovery) return;
    this.discoveries.delete(discoveryId);
    clearTimeout(discovery.timer);
    const { asker, request } = discovery;
    if (asker.conn.isClosed) return;
    const live = discovery.candidates.filter((c) => !c.client.conn.isClosed);
    live.sort((a, b) => b.rootLength - a.rootLength || b.activeAt - a.activeAt);
    const best = live[0];
    if (!best) {
      asker.inFlight -= 1;
      return this.fail(asker, request, CODEX_ERROR.noClientFound);
    }
    const forwardId = `f${this.nextId++}`;
    const handler = best.client;
    handler.answering += 1;
    const forwarded: Forwarded = { asker, requestId: request.requestId, method: request.method, handler, timer: undefined };
    this.forwarded.set(forwardId, forwarded);
    handler.conn.send({ ...request, requestId: forwardId });
    if (this.forwarded.has(forwardId)) forwarded.timer = setTimeout(() => this.settle(forwardId, undefined, CODEX_ERROR.timeout), this.limits.answerTimeoutMs);
  }

  private response(client: RouterClient, response: CodexResponse): void {
    const forwarded = this.forwarded.get(response.requestId);
    // Only the client the request went to answers it.
    if (!forwarded || forwarded.handler !== client) return;
    this.settle(response.requestId, response);
  }

  /** A forwarded request ends: its answer (or an error) goes back to the asker under the asker's requestId. */
  private settle(forwardId: string, response: CodexResponse | undefined, error?: string): void {
    const forwarded = this.forwarded.get(forwardId);
    if (!forwarded) return;
    this.forwarded.delete(forwardId);
    clearTimeout(forwarded.timer);
    forwarded.handler.answering -= 1;
    forwarded.asker.inFlight -= 1;
    const handledByClientId = forwarded.handler.id;
    if (response) {
      forwarded.asker.conn.send({ ...response, requestId: forwarded.requestId, method: response.method ?? forwarded.method, handledByClientId });
    } else {
      this.logger.info('Codex IPC: a request is answered with an error', { method: forwarded.method, error });
      forwarded.asker.conn.send({ type: 'response', requestId: forwarded.requestId, resultType: 'error', method: forwarded.method, handledByClientId, error });
    }
  }

  private fail(client: RouterClient, request: CodexRequest, error: string): void {
    this.logger.info('Codex IPC: a request is answered with an error', { method: request.method, error });
    client.conn.send({ type: 'response', requestId: request.requestId, resultType: 'error', method: request.method, handledByClientId: 'server', error });
  }

  private gone(client: RouterClient): void {
    // Its waits end with it: discoveries it asked, answers it owed.
    this.clients.delete(client);
    for (const [id, discovery] of this.discoveries) {
      if (discovery.asker === client) {
        clearTimeout(discovery.timer);
        this.discoveries.delete(id);
      } else if (discovery.waiting.delete(client) && discovery.waiting.size === 0) this.decide(id);
    }
    for (const [id, forwarded] of this.forwarded) {
      if (forwarded.handler === client) this.settle(id, undefined, CODEX_ERROR.clientDisconnected);
      else if (forwarded.asker === client) {
        clearTimeout(forwarded.timer);
        forwarded.handler.answering -= 1;
        this.forwarded.delete(id);
      }
    }
    if (client.id !== undefined) this.announce(client, 'disconnected');
  }

  private announce(client: RouterClient, status: 'connected' | 'disconnected'): void {
    for (const other of this.initialized(client)) {
      other.conn.send({
        type: 'broadcast',
        method: CODEX_METHOD.clientStatusChanged,
        sourceClientId: client.id,
        version: 0,
        params: { clientId: client.id, status },
      });
    }
  }

  private initialized(except: RouterClient): RouterClient[] {
    return [...this.clients].filter((c) => c !== except && c.id !== undefined && !c.conn.isClosed);
  }
}

function finite(n: number | undefined): number {
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}
