/**
 * Codex CLI's face (issue 31): a companion is a *client* of the per-user
 * router on Codex's IPC socket (codexRouter.ts), answering discovery for its
 * workspace folders and `ide-context` from its context tracker
 * (codexContext.ts). One process per user owns the socket: on start a face
 * connects; when nobody listens (no socket, or a stale one of ours) it
 * becomes the router in-process and connects to itself; the loser of a race
 * to bind connects to the winner. When the router's process goes away its
 * clients reconnect and one of them takes over. When OpenAI's VS Code
 * extension or desktop app holds the socket, the face is just a client of
 * theirs, as their own VS Code client is (clientType "vscode").
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { CODEX_ERROR, CODEX_METHOD, CODEX_MAX_RESPONSE_FRAME_BYTES, type CodexFrame, type CodexRequest, type IdeContext } from '@ide-companion/protocol';
import { describeError, type Logger } from '../logger.js';
import { codexIdeContext, codexWorkspaceRoot, rootHolding } from './codexContext.js';
import { CodexConnection, type CodexLink } from './codexFrames.js';
import { CodexRouter, DEFAULT_CODEX_ROUTER_LIMITS, type CodexRouterLimits } from './codexRouter.js';
import { bindCodexSocket, CodexSocketRefused, checkCodexSocketDir, ensureCodexSocketDir, removeCodexSocket, socketAt } from './codexSocket.js';

/** Our clientType: the one OpenAI's VS Code extension gives, so a router of theirs treats us as it. */
export const CODEX_CLIENT_TYPE = 'vscode';

export interface CodexFaceOptions {
  socketPath: string;
  /** Where the CLI looks next (codexLegacySocketPaths): a router of OpenAI's there is joined, never shadowed by ours. */
  legacySocketPaths?: readonly string[];
  logger: Logger;
  /** The editor's workspace folders now. */
  roots: () => readonly string[];
  /** The context now, and which way its selection was made. */
  context: () => { context: IdeContext; selectionBackward: boolean };
  /** How long initialize may take; default 2 s. */
  initializeTimeoutMs?: number;
  /** The router's limits when this face becomes it. For tests. */
  routerLimits?: CodexRouterLimits;
}

type State = 'idle' | 'connecting' | 'connected' | 'refused' | 'stopped';

export class CodexFace {
  private state: State = 'idle';
  private conn: CodexLink | undefined;
  private router: { router: CodexRouter; ino: number } | undefined;
  private clientIdValue: string | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readonly readyWaiters = new Set<() => void>();

  constructor(private readonly options: CodexFaceOptions) {}

  /** Connects (or becomes the router); resolves once it is a client of some router, or refused. Never rejects. */
  start(): Promise<void> {
    if (this.state === 'idle') void this.attach();
    return this.ready();
  }

  /** Resolves when connected (or refused, or stopped). */
  ready(): Promise<void> {
    if (this.state === 'connected' || this.state === 'refused' || this.state === 'stopped') return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.add(resolve));
  }

  /** Whether this face's process owns the socket now. */
  get isRouter(): boolean {
    return this.router !== undefined;
  }

  get connected(): boolean {
    return this.state === 'connected';
  }

  /** Why Codex CLI is not served, when refused. */
  refusal: string | undefined;

  get clientId(): string | undefined {
    return this.clientIdValue;
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.retryTimer);
    this.conn?.close();
    this.conn = undefined;
    await this.dropRouter();
    this.wake();
  }

  private wake(): void {
    for (const resolve of this.readyWaiters) resolve();
    this.readyWaiters.clear();
  }

  /** One attempt: connect; nobody there: take the socket, then connect to ourselves. */
  private async attach(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'connecting';
    const { socketPath, logger } = this.options;
    try {
      ensureCodexSocketDir(socketPath);
      socketAt(socketPath);
      const first = await connectTo(socketPath);
      let socket = typeof first === 'string' ? undefined : first;
      // Nobody on the first path, an (older) router of OpenAI's on a later one: the CLI stops at the first
      // that answers, so binding the first would hide theirs. Join theirs instead.
      if (!socket && !this.router) socket = await this.legacyRouter();
      if (!socket && !this.router) {
        const router = new CodexRouter(logger, this.options.routerLimits ?? DEFAULT_CODEX_ROUTER_LIMITS);
        const bound = await bindCodexSocket(router.server, socketPath, first === 'refused');
        if (bound !== 'in-use') {
          this.router = { router, ino: bound };
          if ((this.state as State) === 'stopped') return void (await this.dropRouter());
          logger.info('Codex IPC: this companion now routes Codex CLI requests', { socket: socketPath });
          this.watchOwnership();
          // Its own face is a client without a socket: no frames between the two.
          this.joinLocally(router);
          this.failures = 0;
          return;
        }
      }
      if (!socket) {
        const again = await connectTo(socketPath);
        if (typeof again === 'string') throw new Error(`nobody answers on the socket (${again})`);
        socket = again;
      }
      // The folder as the CLI checks it, again: it may have changed since ensure (a router of theirs made it).
      // Refused, the connection made is closed: the router must not keep a client nobody reads.
      try {
        checkCodexSocketDir(path.dirname(socketPath));
      } catch (err) {
        socket.destroy();
        throw err;
      }
      await this.initialize(socket);
      this.failures = 0;
    } catch (err) {
      if ((this.state as State) === 'stopped') return;
      if (err instanceof CodexSocketRefused) {
        this.state = 'refused';
        this.refusal = err.message;
        logger.warn(`Codex CLI is not served: ${err.message}`);
        this.wake();
        return;
      }
      this.failures += 1;
      logger.info('Codex IPC: could not join the router; trying again', { error: describeError(err), attempt: this.failures });
      this.retry();
    }
  }

  /** Again soon, jittered so that the clients of a router that went away do not all bind at once. */
  private retry(): void {
    if (this.state === 'stopped' || this.state === 'refused') return;
    this.state = 'connecting';
    clearTimeout(this.retryTimer);
    const delay = Math.min(2_000, 50 * 2 ** Math.min(this.failures, 5)) + Math.floor(Math.random() * 100);
    this.retryTimer = setTimeout(() => void this.attach(), delay);
    this.retryTimer.unref();
  }

  /** A connection to a router on one of the later paths, as the CLI would reach it (its checks first); undefined when none answers. */
  private async legacyRouter(): Promise<net.Socket | undefined> {
    for (const legacy of this.options.legacySocketPaths ?? []) {
      try {
        checkCodexSocketDir(path.dirname(legacy), 'legacy');
        if (socketAt(legacy) !== 'ours') continue;
      } catch {
        continue; // The CLI would refuse it too.
      }
      const socket = await connectTo(legacy).catch(() => undefined);
      if (socket && typeof socket !== 'string') {
        this.options.logger.info('Codex IPC: joining the router on the legacy socket', { socket: legacy });
        return socket;
      }
    }
    return undefined;
  }

  private joinLocally(router: CodexRouter): void {
    const { clientId, link } = router.attachLocal(
      (frame) => this.receive(link, frame),
      (reason) => this.lost(link, reason),
    );
    this.clientIdValue = clientId;
    this.conn = link;
    this.state = 'connected';
    this.wake();
  }

  /** The link to the router ended: join again (another may route now). */
  private lost(link: CodexLink, reason?: string): void {
    if (this.conn !== link) return;
    this.conn = undefined;
    this.clientIdValue = undefined;
    if (this.state === 'stopped') return;
    this.options.logger.info('Codex IPC: the router went away; joining again', { reason });
    this.retry();
  }

  private initialize(socket: net.Socket): Promise<void> {
    return new Promise((resolve, reject) => {
      const requestId = randomUUID();
      let settled = false;
      const timer = setTimeout(() => conn.close('initialize timed out'), this.options.initializeTimeoutMs ?? 2_000);
      const conn = new CodexConnection(
        socket,
        {
          // A router forwards requests of any size it takes; ours answer small.
          maxFrameBytes: () => CODEX_MAX_RESPONSE_FRAME_BYTES,
          onFrame: (frame) => {
            if (!settled && frame.type === 'response' && frame.requestId === requestId) {
              settled = true;
              clearTimeout(timer);
              const clientId = (frame.result as { clientId?: unknown } | undefined)?.clientId;
              if (frame.resultType !== 'success' || typeof clientId !== 'string') {
                conn.close('initialize refused');
                return;
              }
              // Stopped meanwhile: this connection is not kept.
              if (this.state === 'stopped') {
                conn.close();
                resolve();
                return;
              }
              this.clientIdValue = clientId;
              this.conn = conn;
              this.state = 'connected';
              this.wake();
              resolve();
              return;
            }
            if (settled) this.receive(conn, frame);
          },
          onClose: (reason) => {
            clearTimeout(timer);
            if (!settled) {
              settled = true;
              reject(new Error(reason ?? 'the router closed the connection'));
              return;
            }
            this.lost(conn, reason);
          },
        },
        this.options.logger,
      );
      conn.send({
        type: 'request',
        requestId,
        sourceClientId: 'initializing-client',
        version: 0,
        method: CODEX_METHOD.initialize,
        params: { clientType: CODEX_CLIENT_TYPE },
      });
    });
  }

  private receive(conn: CodexLink, frame: CodexFrame): void {
    if (frame.type === 'client-discovery-request') {
      const match = this.match(frame.request);
      conn.send({
        type: 'client-discovery-response',
        requestId: frame.requestId,
        response: match ? { canHandle: true, rootLength: match.length, activeAt: this.activeAt() } : { canHandle: false },
      });
      return;
    }
    if (frame.type !== 'request') return; // Broadcasts, and answers we did not ask for, are not ours to act on.
    const root = frame.method === CODEX_METHOD.ideContext ? codexWorkspaceRoot(frame) : undefined;
    const held = root !== undefined ? this.match(frame) : undefined;
    if (root === undefined || held === undefined) {
      conn.send({ type: 'response', requestId: frame.requestId, resultType: 'error', method: frame.method, error: CODEX_ERROR.noClientFound });
      return;
    }
    const { context, selectionBackward } = this.options.context();
    conn.send({
      type: 'response',
      requestId: frame.requestId,
      resultType: 'success',
      method: CODEX_METHOD.ideContext,
      result: { ideContext: codexIdeContext(context, selectionBackward, held.root) },
    });
  }

  /** Our folder that holds the request's root (the longest), with its length; undefined when none does or it is not ide-context. */
  private match(request: CodexRequest): { root: string; length: number } | undefined {
    if (request.method !== CODEX_METHOD.ideContext) return undefined;
    const asked = codexWorkspaceRoot(request);
    if (asked === undefined) return undefined;
    const roots = this.options.roots();
    const root = rootHolding(roots, asked) ?? rootHolding(roots.map(realpathOr), asked);
    if (root === undefined) return undefined;
    // Paths relative to our folder, as VS Code's extension gives them (workspace-relative).
    return { root, length: root.length };
  }

  private activeAt(): number {
    const files = this.options.context().context.workspaceState?.openFiles ?? [];
    return files.find((f) => f.isActive)?.timestamp ?? files[0]?.timestamp ?? 0;
  }

  /** A router that lost a bind race (its socket replaced by another's) steps down, so its clients find the one at the path. */
  private watchOwnership(): void {
    const check = setInterval(() => {
      const owned = this.router;
      if (!owned) return clearInterval(check);
      let ino: number | undefined;
      try {
        ino = fs.lstatSync(this.options.socketPath).ino;
      } catch {
        ino = undefined;
      }
      if (ino !== owned.ino) {
        this.options.logger.info('Codex IPC: our socket was replaced; stepping down as the router');
        clearInterval(check);
        void this.dropRouter();
      }
    }, 1_000);
    check.unref();
  }

  private async dropRouter(): Promise<void> {
    const owned = this.router;
    if (!owned) return;
    this.router = undefined;
    removeCodexSocket(this.options.socketPath, owned.ino);
    await owned.router.close();
  }
}

function realpathOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** A connected socket, or why not when nobody listens: no socket file ('absent'), or a stale one ('refused'). */
function connectTo(socketPath: string): Promise<net.Socket | 'absent' | 'refused'> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      socket.destroy();
      if (err.code === 'ENOENT') resolve('absent');
      else if (err.code === 'ECONNREFUSED') resolve('refused');
      else reject(err);
    });
  });
}
