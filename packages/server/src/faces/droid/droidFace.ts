/**
 * Factory Droid's face (issue 36), as the CLI 0.225.2 reaches an IDE
 * (protocol/src/droid.ts, docs/agents.md): MCP Streamable HTTP at
 * `http://localhost:PORT/mcp` on a loopback port of its own, since the CLI
 * sends no token. In the token's place, a connection is admitted only from
 * a socket the kernel says is this user's (peerUid.ts), with the Host and
 * Origin rules of every listener. Each CLI opens two sessions (its terminal
 * UI and its agent worker): every notification goes to every session, and
 * a heartbeat keeps both (the CLI drops the editor after 75 s without one).
 */
import type * as http from 'node:http';
import type { Socket } from 'node:net';
import * as path from 'node:path';
import {
  DROID_NOTIFICATION,
  LOOPBACK_HOST,
  type ClaudeSelectionChanged,
  type CompanionNotification,
  type DroidActiveFileParams,
  type DroidOpenFilesParams,
  type IdeContext,
} from '@ide-companion/protocol';
import { createMcpHttpHandler } from '../../http/mcpHttpHandler.js';
import { closeServer, mcpServer } from '../../http/mcpServer.js';
import { admissionGuard, loopbackHostRule, type Refusal } from '../../http/requestGuard.js';
import { describeError } from '../../logger.js';
import { SessionRegistry, sessionLimits, type SessionInfo, type SessionLimits } from '../../sessions.js';
import { selectionOf } from '../selection.js';
import type { SessionFace } from '../sessionFace.js';
import { peerUid } from './peerUid.js';

/** Well inside the CLI's 75 s (it checks every 5 s): a heartbeat lost or late still leaves two more. */
export const DROID_HEARTBEAT_MS = 20_000;
/** A count of the active file older than this is taken again at the next context change (the file may have been saved since). */
const RECOUNT_MS = 5_000;

const METHODS = new Set<string>(Object.values(DROID_NOTIFICATION));

export interface DroidFaceOptions extends SessionLimits {
  maxBodyBytes: number;
  /** How often every session hears a heartbeat. */
  heartbeatMs: number;
  /** The line count of an active file (the CLI requires it; it does not use it); never rejects. */
  lineCount: (file: string) => Promise<number>;
  /** The context as it stands, for a stream that opens. */
  context: () => { context: IdeContext; selectionBackward: boolean };
  /** A file's diagnostics as the CLI takes them (`{filePath, diagnostics}`), or undefined when the editor has none to give. */
  diagnosticsOf: (file: string) => Promise<object | undefined>;
  /** Who may connect: the uid owning the peer's socket must be this one. */
  uid: number;
  onSessionClosed: (sessionId: string) => void;
  onSessionsChanged: () => void;
}

export class DroidFace implements SessionFace {
  readonly agent = 'droid' as const;
  readonly sessions: SessionRegistry;
  readonly server: http.Server;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastActive: string | undefined;
  private lastOpen: string | undefined;
  private lastDiagnosed: string | undefined;
  /** The active file's line count: one file's only, taken when it became active (or again once stale). */
  private counted: { path: string; lines: number; at: number } | undefined;
  /** The file whose count is being taken. */
  private counting: string | undefined;
  /** Each connection's verdict, decided once at its first request (the peer's socket does not change owner). */
  private readonly admitted = new WeakMap<Socket, Refusal | undefined>();

  constructor(private readonly options: DroidFaceOptions) {
    this.sessions = new SessionRegistry({
      ...sessionLimits(options),
      // What the user has open now, as the stream opens (the CLI shows it at once), and a first heartbeat.
      onStreamOpen: (id) => {
        const { context, selectionBackward } = options.context();
        const active = this.activeFile(selectionOf(context, selectionBackward));
        if (active) this.sessions.notify(id, note(DROID_NOTIFICATION.activeFile, active));
        this.sessions.notify(id, note(DROID_NOTIFICATION.openFiles, openFilesOf(context)));
        this.sessions.notify(id, note(DROID_NOTIFICATION.heartbeat, { timestamp: Date.now() }));
      },
      onSessionClosed: (id) => options.onSessionClosed(id),
      onSessionsChanged: options.onSessionsChanged,
      validate: (n) => {
        if (!METHODS.has(n.method)) throw new Error(`Factory Droid takes no ${n.method}`);
        return n;
      },
    });
    const hosts = loopbackHostRule(() => this.port);
    const handler = createMcpHttpHandler({
      hosts,
      tokens: [],
      guard: admissionGuard(hosts, 'droid', (req) => this.admit(req.socket)),
      maxBodyBytes: options.maxBodyBytes,
      sessions: this.sessions,
      logger: options.logger,
    });
    this.server = mcpServer(handler);
  }

  /** Its own port, 0 until it listens. */
  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  /** Listens on the loopback address (the CLI dials `localhost`, which reaches it) and starts the heartbeat. */
  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, LOOPBACK_HOST, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.heartbeat = setInterval(() => {
      if (this.sessions.size > 0) this.sessions.broadcast(note(DROID_NOTIFICATION.heartbeat, { timestamp: Date.now() }));
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  owns(sessionId: string): boolean {
    return this.sessions.agentOf(sessionId) !== undefined;
  }

  /** A diff's outcome from the editor: the CLI has no ear for it (it asks the user itself and writes the file), so it is only logged. */
  deliver(sessionId: string, notification: CompanionNotification): void {
    this.options.logger.info('Factory Droid decides in its terminal; the editor’s choice is not sent to it', {
      session: sessionId,
      outcome: notification.method,
    });
  }

  /** The context changed: every session hears the active file (and selection) and the open files when they differ from what it heard last. */
  contextChanged(context: IdeContext, selectionBackward: boolean): void {
    if (this.sessions.size === 0) return;
    const selection = selectionOf(context, selectionBackward);
    this.tellActive(selection);
    const open = openFilesOf(context);
    const openKey = JSON.stringify(open);
    if (openKey !== this.lastOpen) this.sessions.broadcast(note(DROID_NOTIFICATION.openFiles, open));
    this.lastOpen = openKey;
    // A new active file: its diagnostics, asked of the editor, for every session's footer (its line count need not be in).
    const activePath = selection?.filePath;
    if (activePath !== undefined && activePath !== this.lastDiagnosed) {
      this.lastDiagnosed = activePath;
      this.options.diagnosticsOf(activePath).then(
        (params) => params && this.sessions.broadcast(note(DROID_NOTIFICATION.diagnostics, params)),
        (err: unknown) => this.options.logger.info('Factory Droid: no diagnostics to push', { error: describeError(err) }),
      );
    }
  }

  /** Every session hears the active file when it differs from what they heard last (not before its lines are counted). */
  private tellActive(selection: ClaudeSelectionChanged | undefined): void {
    const active = this.activeFile(selection);
    const activeKey = JSON.stringify(active);
    if (active && activeKey !== this.lastActive) this.sessions.broadcast(note(DROID_NOTIFICATION.activeFile, active));
    this.lastActive = activeKey;
  }

  /** The CLI takes no mention. */
  mention(): number {
    return 0;
  }

  list(): SessionInfo[] {
    return this.sessions.list();
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.sessions.closeAll();
    await closeServer(this.server);
  }

  private activeFile(selection: ClaudeSelectionChanged | undefined): DroidActiveFileParams | undefined {
    if (!selection) return undefined;
    // Not counted yet: the active file is told once it is (retell).
    const lineCount = this.linesOf(selection.filePath);
    if (lineCount === undefined) return undefined;
    const { start, end } = selection.selection;
    return {
      path: selection.filePath,
      fileName: path.basename(selection.filePath),
      // The context does not say; the CLI only shows it.
      isDirty: false,
      lineCount,
      selection: { startLine: start.line, startCharacter: start.character, endLine: end.line, endCharacter: end.character, selectedText: selection.text },
    };
  }

  /** `file`'s line count as last taken; taken (again) in the background when unknown or stale, then told to every session if new. */
  private linesOf(file: string): number | undefined {
    const known = this.counted?.path === file ? this.counted : undefined;
    if (known && Date.now() - known.at < RECOUNT_MS) return known.lines;
    if (this.counting !== file) {
      this.counting = file;
      void this.options.lineCount(file).then((lines) => {
        // Another file became active meanwhile: its own count is under way.
        if (this.counting !== file) return;
        this.counting = undefined;
        const changed = this.counted?.path !== file || this.counted.lines !== lines;
        this.counted = { path: file, lines, at: Date.now() };
        if (changed) this.retell();
      });
    }
    return known?.lines;
  }

  /** The active file as it stands told again (its count arrived), when it differs from what the sessions heard. */
  private retell(): void {
    if (this.sessions.size === 0) return;
    const { context, selectionBackward } = this.options.context();
    this.tellActive(selectionOf(context, selectionBackward));
  }

  /** Whether the connection's peer is this user's: refused when another user's, or when the kernel lists no such socket. */
  private admit(socket: Socket): Refusal | undefined {
    if (this.admitted.has(socket)) return this.admitted.get(socket);
    const { remoteAddress, remotePort, localAddress, localPort } = socket;
    let refusal: Refusal | undefined;
    if (remoteAddress === undefined || remotePort === undefined || localAddress === undefined || localPort === undefined) {
      refusal = { status: 403, message: 'Forbidden: the connection has no address to tell its user by' };
    } else {
      const uid = peerUid({ address: remoteAddress, port: remotePort }, { address: localAddress, port: localPort });
      if (uid === undefined) refusal = { status: 403, message: "Forbidden: the connection's user could not be told (its socket is not in /proc/net/tcp)" };
      else if (uid !== this.options.uid) refusal = { status: 403, message: `Forbidden: the connection belongs to another user (uid ${uid})` };
    }
    this.admitted.set(socket, refusal);
    return refusal;
  }
}

function note(method: string, params: object): CompanionNotification {
  return { method, params } as never;
}

/** The open files as the CLI keeps them (it does not put them in the prompt). */
function openFilesOf(context: IdeContext): DroidOpenFilesParams {
  const files = context.workspaceState?.openFiles ?? [];
  return { files: files.map((f) => ({ path: f.path, fileName: path.basename(f.path), isDirty: false, languageId: '' })) };
}
