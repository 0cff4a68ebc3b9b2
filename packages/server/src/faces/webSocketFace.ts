/**
 * What every WebSocket face does the same way (Claude Code's, and opencode's
 * through it; Amp's): the upgrade refused before anything is upgraded, one
 * `ws` server loaded on the first upgrade, keep-alive pings, the sessions by
 * id, a session dropped once, and the close. A face adds its guard, its
 * session and what it does with one (claude.ts, amp.ts).
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerOptions, WebSocket, WebSocketServer } from 'ws';
import { checkProbeTest, logRefusal } from '../http/checkProbe.js';
import type { Refusal } from '../http/requestGuard.js';
import { describeError, type Logger } from '../logger.js';
import type { SessionInfo } from '../sessions.js';
import type { AgentName } from '@ide-companion/shared/agentPaths';
import type { CompanionNotification, IdeContext } from '@ide-companion/protocol';
import { KeepAlive } from './keepAlive.js';
import { adoptSocket } from './textFrames.js';
import type { FileMention, UpgradeClaim, WebSocketFace } from './sessionFace.js';

/** What the base keeps of a session. */
export interface WebSocketSession {
  readonly id: string;
  readonly socket: WebSocket;
}

export interface WebSocketFaceOptions {
  token: string;
  /** Largest message accepted (the same bound as an HTTP body). */
  maxPayload: number;
  /** How often an idle connection is pinged; one left unanswered ends it. */
  keepAliveMs: number;
  logger: Logger;
  /** The session went away: its diffs close as a Gemini session's do. */
  onSessionClosed: (sessionId: string) => void;
  onSessionsChanged: () => void;
}

/** The face's own words in the log. */
export interface WebSocketFaceWords {
  refused: string;
  disconnected: string;
}

export abstract class WebSocketFaceBase<S extends WebSocketSession> implements WebSocketFace {
  abstract readonly agent: AgentName;
  protected readonly sessions = new Map<string, S>();
  protected closing = false;
  private isCheckProbe: (req: IncomingMessage) => boolean;
  private readonly keepAlive: KeepAlive;
  private wss: WebSocketServer | undefined;
  private wssLoading: Promise<WebSocketServer> | undefined;

  protected constructor(
    private readonly base: WebSocketFaceOptions,
    private readonly words: WebSocketFaceWords,
    /** More for `ws`'s server (Claude's subprotocol). */
    private readonly serverOptions: Omit<ServerOptions, 'noServer' | 'maxPayload'> = {},
  ) {
    this.keepAlive = new KeepAlive(base.keepAliveMs);
    this.isCheckProbe = checkProbeTest([base.token]);
  }

  /** `check`'s probes are told by `token` from now on (a face whose token rotates: Amp's). */
  protected probeToken(token: string): void {
    this.isCheckProbe = checkProbeTest([token]);
  }

  abstract claimsUpgrade(req: IncomingMessage): UpgradeClaim;
  abstract deliver(sessionId: string, notification: CompanionNotification): void;
  abstract contextChanged(context: IdeContext, selectionBackward: boolean): void;
  abstract mention(mention: FileMention): number;
  abstract list(): SessionInfo[];

  /** Why an upgrade is refused (its token, Host, Origin, path): nothing is upgraded then. */
  protected abstract refusal(req: IncomingMessage): Refusal | undefined;
  /** A session for a new connection, made before anything else listens on it. */
  protected abstract open(ws: WebSocket): S;
  /** The session is kept and watched: what the face does with it (its handlers, its greeting). */
  protected abstract started(session: S): void | Promise<void>;
  /** Before its socket closes: the session's waiting calls answered. */
  protected abstract settle(session: S): void;
  /** After its socket closed. */
  protected released(_session: S): void {}

  /** The HTTP server's `upgrade` for this face: refused before upgrading anything the face refuses. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refusal = this.closing ? { status: 503, message: 'Service Unavailable: the companion is stopping' } : this.refusal(req);
    if (refusal) {
      // `check`'s deliberate probes, proven by a token holder, are no attack (http/checkProbe.ts).
      logRefusal(this.base.logger, this.isCheckProbe(req), this.words.refused, { status: refusal.status, reason: refusal.message });
      const headers = Object.entries({ 'Content-Type': 'text/plain', Connection: 'close', ...refusal.headers }).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.end(`HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}\r\n${headers.join('')}\r\n${refusal.message}\n`);
      return;
    }
    socket.on('error', () => socket.destroy());
    void this.server().then(
      (wss) =>
        wss.handleUpgrade(req, socket, head, (ws) => {
          adoptSocket(ws, socket);
          void this.accept(ws);
        }),
      (err: unknown) => {
        this.base.logger.error('could not load the WebSocket server', { error: describeError(err) });
        socket.destroy();
      },
    );
  }

  owns(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /** Ends every connection (their waiting calls answered first). */
  async close(): Promise<void> {
    this.closing = true;
    this.keepAlive.stop();
    for (const session of [...this.sessions.values()]) this.drop(session, 1001, 'the companion stopped');
    const wss = this.wss;
    if (wss) await new Promise<void>((resolve) => wss.close(() => resolve()));
  }

  /** Drops a session once: its calls answered, its socket closed (with `code` when given), the companion told. */
  protected drop(session: S, code?: number, reason?: string): void {
    if (!this.sessions.delete(session.id)) return;
    this.settle(session);
    if (code !== undefined && session.socket.readyState === session.socket.OPEN) session.socket.close(code, reason);
    this.released(session);
    this.base.onSessionClosed(session.id);
    this.base.onSessionsChanged();
    this.base.logger.info(this.words.disconnected, { session: session.id });
    this.keepAlive.forget(session.socket);
  }

  private server(): Promise<WebSocketServer> {
    this.wssLoading ??= import('ws').then(({ WebSocketServer }) => {
      // No compression: a frame of ours is written whole beside `ws`'s own (textFrames.ts).
      this.wss = new WebSocketServer({ ...this.serverOptions, noServer: true, maxPayload: this.base.maxPayload, perMessageDeflate: false });
      return this.wss;
    });
    return this.wssLoading;
  }

  private async accept(ws: WebSocket): Promise<void> {
    if (this.closing) {
      ws.close(1001, 'the companion is stopping');
      return;
    }
    const session = this.open(ws);
    this.sessions.set(session.id, session);
    this.keepAlive.watch(ws, () => this.drop(session));
    ws.on('close', () => this.drop(session));
    await this.started(session);
  }
}
