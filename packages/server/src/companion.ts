/**
 * The companion: one object an editor adapter creates, feeds and starts.
 *
 *   const companion = new Companion({ ideInfo, workspaceRoots, diffView });
 *   await companion.start();            // listening, discovery file written
 *   companion.context.focus('/abs/file.ts', { cursor: { line: 1, character: 1 } });
 *   companion.diffs.accept(diff.id, editedText);
 *   await companion.stop();             // sessions, server and file gone
 */
import * as fs from 'node:fs';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ContextUpdateNotification,
  LOOPBACK_HOST,
  containerHint,
  joinWorkspacePaths,
  type Capability,
  type DiscoveryFile,
  type IdeInfo,
  IdeInfoSchema,
  PARSE_ONCE,
} from '@ide-companion/protocol';
import { generateAuthToken } from './auth.js';
import { ContextTracker, type ContextTrackerOptions } from './contextTracker.js';
import { DiffCoordinator } from './diffCoordinator.js';
import { capabilitiesOf, type EditorActions } from './editorActions.js';
import { DiscoveryFileHandle, ensureDiscoveryDir, sweepStaleDiscoveryFiles } from './discoveryFile.js';
import { CompanionSocket, ensureSocketBaseDir, SOCKET_HOST, sweepStaleSocketDirs } from './companionSocket.js';
import { stableSocketDir, WorkspaceSockets } from './workspaceSockets.js';
import { createMcpHttpHandler, type McpHttpHandlerOptions } from './http/mcpHttpHandler.js';
import { closeServer, mcpServer } from './http/mcpServer.js';
import { loopbackHostRule, socketHostRule } from './http/requestGuard.js';
import { registerExitCleanup } from './lifecycle.js';
import { startReaper, type Reaper } from './reaper.js';
import { AgentRoster, type AgentsNotServed } from './agentRoster.js';
import { loadSdk } from './lazySdk.js';
import { describeError, silentLogger, type Logger } from './logger.js';
import { describeRootRefusals } from './workspaceRoots.js';
import { SessionRegistry, type SessionInfo } from './sessions.js';
import { buildTerminalEnv, type TerminalEnv } from './terminalEnv.js';
import { AGENT_DISPLAY_NAMES, AGENTS, AGENTS_ENV, parseAgents, type AgentName } from '@ide-companion/shared/agentPaths';
import type { AgentFace, FaceHost } from './faces/agentFace.js';
import { faceDefinition, type FaceSettings } from './faces/registry.js';
import { isWebSocketFace, upgradeRouter, type SessionFace } from './faces/sessionFace.js';
import type { HealthItem } from './healthLines.js';
import { MAX_MESSAGE_BYTES } from '@ide-companion/protocol';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { availableTools, registerTools } from './tools/index.js';
import type { ToolDefinition, ToolEnvironment } from './tools/toolDefinition.js';

/** Large enough for real files (a 32 MiB openDiff, JSON-escaped) and no larger: the cap on every wire (protocol constants). */
export const DEFAULT_MAX_BODY_BYTES = MAX_MESSAGE_BYTES;
export const DEFAULT_SESSION_GRACE_MS = 30_000;
/** Twice the MCP SDK's 1 s delay before it reopens a dropped GET stream. */
export const DEFAULT_STREAM_GRACE_MS = 2_000;
export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** How long a session's first ide/contextUpdate waits for `contextSeed` at most. */
export const CONTEXT_SEED_WAIT_MS = 1_000;

export interface CompanionOptions {
  /** Name and display name: `/ide status` shows the display name. */
  ideInfo: IdeInfo;
  /** Absolute workspace roots; more can be set later with `context.setRoots`. */
  workspaceRoots?: readonly string[];
  /** The editor's PID, named in the discovery file and GEMINI_CLI_IDE_PID; default this process. */
  idePid?: number;
  /**
   * What the companion can ask of the editor: diffs, and the optional
   * capabilities it implements (each offered as an MCP tool). Without one,
   * only the context tools are offered.
   */
  editor?: EditorActions;
  logger?: Logger;
  /**
   * A context seed still under way when `start()` is called (serve's git
   * status): the discovery file need not wait for it, and a session whose
   * stream opens meanwhile gets its first ide/contextUpdate once the seed is
   * in (at most CONTEXT_SEED_WAIT_MS later), not an empty one first.
   */
  contextSeed?: Promise<unknown>;
  /** Workspace trust as the editor reports it; omitted from context when undefined. */
  trusted?: boolean;
  context?: ContextTrackerOptions;
  maxBodyBytes?: number;
  /** How long a session that never opened its GET stream lives without requests. */
  sessionGraceMs?: number;
  /** How long a session whose GET stream closed waits for it to reopen. */
  streamGraceMs?: number;
  /** Concurrent sessions allowed; one more initialize gets a JSON-RPC error. */
  maxSessions?: number;
  keepAliveMs?: number;
  /** How long a tool waits for the editor's answer; default each action's own timeout. For tests. */
  editorTimeoutMs?: number;
  /** Base for `gemini/ide`; default `os.tmpdir()`. For tests. */
  tmpdir?: string;
  /** Remove the discovery file on SIGINT/SIGTERM/SIGHUP (default true; an in-process extension host passes false). */
  handleSignals?: boolean;
  /**
   * Remove the discovery and lock files and the socket folder even when this
   * process is killed with -9 (default false): a small `sh` waits on a pipe
   * from it (reaper.ts). Where no editor cleans up after this process:
   * `serve`, `bridge`, VS Code's extension host, Neovim's host.
   */
  reapOnKill?: boolean;
  /**
   * Also listen on a private Unix socket (default true, not on Windows), for
   * a CLI elsewhere through the relay: docs/remote.md.
   */
  unixSocket?: boolean;
  /**
   * The agents served (default: every agent the user has; unset,
   * IDE_COMPANION_AGENTS). Gemini CLI's face is the core one and always on;
   * each other agent's is a line of faces/registry.ts.
   */
  agents?: readonly AgentName[];
  /**
   * Where each face's discovery goes instead of the agent's own folder (its
   * lock files' folder, or its socket). For tests: a path given counts
   * as the agent named, its folders made.
   */
  facePaths?: Partial<Record<AgentName, string>>;
  /** The user's choices for the faces that take some. */
  faceSettings?: FaceSettings;
}

type State = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

export class Companion {
  readonly context: ContextTracker;
  readonly diffs: DiffCoordinator;
  readonly ideInfo: IdeInfo;
  readonly idePid: number;
  /** The optional actions the editor implements, hence the tools offered beyond diffs. */
  readonly capabilities: readonly Capability[];
  /** Where the companion says what it did and refused (the end's log). */
  readonly logger: Logger;
  /** Why some of `workspaceRoots` were refused (workspaceRoots.ts), for the end to tell the user; undefined when none was. */
  readonly rootsRefused: string | undefined;
  private readonly tools: readonly ToolDefinition[];
  /** Gemini CLI's token (discovery file, terminals, the socket); every other face has its own, so each session knows its agent. */
  private readonly token = generateAuthToken();
  private readonly sessions: SessionRegistry;
  private readonly httpServer: http.Server;
  /** The same handler on the Unix socket; undefined where there is none. */
  private readonly socketServer: http.Server | undefined;
  private socket: CompanionSocket | undefined;
  /** The stable per-user address's sockets for our folders (workspaceSockets.ts); undefined where there is no socket. */
  private readonly workspaceSockets: WorkspaceSockets | undefined;
  private readonly sessionListeners = new Set<(sessions: SessionInfo[]) => void>();
  private discovery: DiscoveryFileHandle | undefined;
  /** The agents served beyond Gemini CLI (their lock files), and those awaited or refused (agentRoster.ts). */
  private readonly roster: AgentRoster;
  /** The faces of the agents asked for beyond Gemini CLI's (faces/registry.ts), served or not (the roster says). */
  private readonly agentFaces: readonly AgentFace[];
  /** The faces with sessions of their own, each called the same way (faces/sessionFace.ts). */
  private readonly faces: readonly SessionFace[];
  /** The agents asked for; those whose lock file could not be written drop out (`agents`). */
  private readonly wantedAgents: readonly AgentName[];
  private removeExitCleanup: (() => void) | undefined;
  private reaper: Reaper | undefined;
  private unsubscribers: Array<() => void> = [];
  private state: State = 'new';
  private startPromise: Promise<void> | undefined;
  private stopPromise: Promise<void> | undefined;
  private cachedTerminalEnv: TerminalEnv | undefined;
  /** Settles when the context seed is in or CONTEXT_SEED_WAIT_MS passed; undefined after. */
  private seedPending: Promise<void> | undefined;

  constructor(private readonly options: CompanionOptions) {
    this.ideInfo = IdeInfoSchema.parse(options.ideInfo, PARSE_ONCE);
    this.idePid = options.idePid ?? process.pid;
    this.logger = options.logger ?? silentLogger;
    this.capabilities = capabilitiesOf(options.editor);
    this.tools = availableTools(options.editor !== undefined, this.capabilities);
    this.context = new ContextTracker(options.context);
    if (options.workspaceRoots) {
      const refused = this.context.setRoots(options.workspaceRoots);
      if (refused.length > 0) {
        this.rootsRefused = describeRootRefusals(refused);
        this.logger.warn(this.rootsRefused);
      }
    }
    if (options.trusted !== undefined) this.context.setTrusted(options.trusted);
    if (options.contextSeed) this.seedPending = this.boundSeed(options.contextSeed);
    // The core's sessions and every face's keep the same limits.
    const sessionLimits = {
      graceMs: options.sessionGraceMs ?? DEFAULT_SESSION_GRACE_MS,
      streamGraceMs: options.streamGraceMs ?? DEFAULT_STREAM_GRACE_MS,
      maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
      keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
      logger: this.logger,
    };
    this.sessions = new SessionRegistry({
      ...sessionLimits,
      createServer: () => this.createMcpServer(),
      onStreamOpen: (id) => {
        const send = () => this.sessions.notify(id, { method: ContextUpdateNotification.method, params: this.context.snapshot() });
        if (this.seedPending) void this.seedPending.then(send);
        else send();
      },
      onSessionClosed: (id, endedByClient) => void this.diffs.sessionClosed(id, endedByClient),
      onSessionsChanged: () => this.emitSessions(),
    });
    // An outcome goes to the session that opened the diff: a face's session hears it in its agent's words.
    this.diffs = new DiffCoordinator(
      options.editor,
      (id, n) => {
        const face = this.faces.find((f) => f.owns(id));
        if (face) face.deliver(id, n);
        else this.sessions.notify(id, n);
      },
      this.logger,
      options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      () => this.context.getRoots(),
      this.ideInfo.name,
    );
    const chosenAgents = options.agents ?? agentsFromEnv(this.logger);
    // Unnamed, every agent is wanted, and served to a user who has it (its folder, or its variable): no agent's
    // folder is made for others. One whose folder appears later is served then (agentRoster.ts).
    this.wantedAgents = AGENTS.filter((a) => a === 'gemini' || (chosenAgents ?? AGENTS).includes(a));
    const unixSockets = (options.unixSocket ?? true) && process.platform !== 'win32';
    const host: FaceHost = {
      logger: this.logger,
      ideInfo: this.ideInfo,
      idePid: this.idePid,
      context: this.context,
      diffs: this.diffs,
      tools: this.tools,
      limits: { ...sessionLimits, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES },
      trusted: options.trusted,
      tmpdir: options.tmpdir ?? os.tmpdir(),
      unixSockets,
      portHosts: loopbackHostRule(() => this.port),
      port: () => this.port,
      socketDir: () => this.socketDir,
      workspacePath: () => this.workspacePath,
      toolEnvironment: () => this.toolEnvironment(),
      mcpServer: () => this.newMcpServer(),
      sessionClosed: (id) => void this.diffs.sessionClosed(id),
      sessionsChanged: () => this.emitSessions(),
    };
    this.agentFaces = this.wantedAgents.flatMap((agent) => {
      const face = faceDefinition(agent)?.create(host, { path: options.facePaths?.[agent], settings: options.faceSettings?.[agent as keyof FaceSettings] });
      return face ? [face] : [];
    });
    this.roster = new AgentRoster({
      logger: this.logger,
      faces: this.agentFaces,
      wanted: this.wantedAgents,
      chosen: chosenAgents,
      reapOnKill: options.reapOnKill ?? false,
      running: async () => {
        await this.startPromise?.catch(() => undefined);
        return this.state === 'running';
      },
      changed: () => {
        this.cachedTerminalEnv = undefined;
        this.rewriteDiscoveryFile();
      },
    });
    const handlerOptions: Omit<McpHttpHandlerOptions, 'hosts' | 'tokens'> = {
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      sessions: this.sessions,
      logger: this.logger,
    };
    const portTokens = [[this.token, 'gemini'] as const, ...this.agentFaces.flatMap((f) => (f.portToken ? [[f.portToken, f.agent] as const] : []))];
    // The port and the sockets serve the same sessions; only the Host each accepts differs.
    this.httpServer = mcpServer(createMcpHttpHandler({ ...handlerOptions, tokens: portTokens, hosts: loopbackHostRule(() => this.port) }));
    this.faces = this.agentFaces.flatMap((face) => face.sessions ?? []);
    // One port for every WebSocket face: each says which upgrades are its own (sessionFace.ts).
    const webSocketFaces = this.faces.filter(isWebSocketFace);
    if (webSocketFaces.length > 0) this.httpServer.on('upgrade', upgradeRouter(webSocketFaces));
    if (unixSockets) {
      // The relay carries Gemini CLI (docs/remote.md): the socket takes its token alone.
      const socketHandler = createMcpHttpHandler({ ...handlerOptions, tokens: [[this.token, 'gemini']], hosts: socketHostRule(SOCKET_HOST), onSocket: true });
      this.socketServer = mcpServer(socketHandler);
      // The folder's permissions admit the caller (workspaceSockets.ts); the token is added here, so none leaves this machine.
      this.workspaceSockets = new WorkspaceSockets({
        dir: stableSocketDir({ tmpdir: options.tmpdir }),
        handler: (req, res) => {
          req.headers.authorization = `Bearer ${this.token}`;
          socketHandler(req, res);
        },
        log: (message, fields) => this.logger.info(message, fields),
      });
    }
  }

  /** Listens on 127.0.0.1 (port 0) and writes the discovery file. Idempotent. */
  start(): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return Promise.reject(new Error('this companion was stopped; create a new one'));
    this.startPromise ??= this.doStart();
    return this.startPromise;
  }

  /** Closes sessions (their diffs), the server and the discovery file. Idempotent. */
  stop(): Promise<void> {
    this.stopPromise ??= this.doStop();
    return this.stopPromise;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  get port(): number {
    const address = this.httpServer.address() as AddressInfo | null;
    if (!address) throw new Error('the companion is not listening');
    return address.port;
  }

  /** The bearer token. For terminal env and tests; never log it. */
  get authToken(): string {
    return this.token;
  }

  get discoveryFilePath(): string | undefined {
    return this.discovery?.path;
  }

  /** The Unix socket a relay connects to (docs/remote.md); undefined before start or without one. */
  get socketPath(): string | undefined {
    return this.socket && this.socketServer?.listening ? this.socket.socketPath : undefined;
  }

  /** The socket's private folder (the socket and the token file): what a container mounts. */
  get socketDir(): string | undefined {
    return this.socketPath === undefined ? undefined : this.socket!.dir;
  }

  get workspacePath(): string {
    return joinWorkspacePaths(this.context.getRoots(), path.delimiter);
  }

  /**
   * GEMINI_CLI_IDE_* (and each served agent's variables, and REMOTE_CONTAINERS in a container) for the
   * editor's integrated terminals; recomputed only when roots change.
   */
  get terminalEnv(): TerminalEnv {
    this.cachedTerminalEnv ??= buildTerminalEnv({
      port: this.port,
      workspacePath: this.workspacePath,
      authToken: this.token,
      idePid: this.idePid,
      faces: Object.assign({}, ...this.servedFaces().map((face) => face.terminalEnv?.())) as Record<string, string>,
      container: this.containerHint !== undefined,
    });
    return this.cachedTerminalEnv;
  }

  /**
   * Set when a gemini started beside this companion would dial
   * host.docker.internal (a container): what to export. Every end shows it
   * (serve's banner, the hosts' `ready`, the editors' health checks).
   */
  get containerHint(): string | undefined {
    return containerHint(process.env, fs.existsSync);
  }

  /** Every connected CLI: the core's HTTP sessions (Gemini CLI's, and a face's with a port token), then each face's own. */
  get sessionList(): SessionInfo[] {
    return [...this.sessions.list(), ...this.faces.flatMap((face) => face.list())];
  }

  /** The agents this companion serves (a lock file that could not be written drops its agent, said in the log). */
  get agents(): AgentName[] {
    if (this.state === 'new' || this.state === 'starting') return [...this.wantedAgents];
    return this.roster.served();
  }

  /** The faces of the agents served now. */
  private servedFaces(): AgentFace[] {
    const served = this.roster.served();
    return this.agentFaces.filter((face) => served.includes(face.agent));
  }

  /** Each agent not served, and why (agentRoster.ts). */
  get agentsNotServed(): AgentsNotServed {
    return this.roster.notServed();
  }

  /** Called when an agent becomes served after start (its folder appeared), with every agent served. */
  onDidChangeAgents(listener: (agents: AgentName[]) => void): () => void {
    return this.roster.onDidChange(listener);
  }

  /**
   * "Send to agent": the file, or lines of it (1-based, inclusive), to every
   * connected agent that takes a mention (each face says how).
   * Returns how many heard it: 0 when none is connected.
   */
  mention(filePath: string, startLine?: number, endLine?: number): number {
    const mention = { filePath, startLine, endLine, roots: this.context.getRoots() };
    return this.faces.reduce((heard, face) => heard + face.mention(mention), 0);
  }

  onDidChangeSessions(listener: (sessions: SessionInfo[]) => void): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  private async doStart(): Promise<void> {
    this.state = 'starting';
    const dir = ensureDiscoveryDir(this.options.tmpdir ?? os.tmpdir());
    const swept = sweepStaleDiscoveryFiles(dir);
    if (swept.length > 0) this.logger.info('removed discovery files of dead processes', { files: swept });
    await new Promise<void>((resolve, reject) => {
      this.httpServer.once('error', reject);
      this.httpServer.listen(0, LOOPBACK_HOST, () => {
        this.httpServer.off('error', reject);
        resolve();
      });
    });
    try {
      this.discovery = new DiscoveryFileHandle(dir, this.idePid, this.port);
      this.removeExitCleanup = registerExitCleanup(() => this.removeFilesSync(), this.options.handleSignals ?? true);
      await this.listenOnSocket();
      await this.bindWorkspaceSockets();
      // The faces after the socket: a face may serve in its folder.
      await this.roster.open(this.port);
      this.writeDiscoveryFile();
      if (this.options.reapOnKill) this.reaper = await startReaper(this.ownedPaths());
    } catch (err) {
      this.removeFilesSync();
      this.removeExitCleanup?.();
      await Promise.all([this.httpServer, this.socketServer].map((server) => closeServer(server)));
      this.state = 'stopped';
      throw err;
    }
    this.unsubscribers.push(
      this.context.onDidChange((context) => {
        this.sessions.broadcast({ method: ContextUpdateNotification.method, params: context });
        for (const face of this.faces) face.contextChanged(context, this.context.selectionBackward);
      }),
      this.context.onDidChangeRoots(() => {
        this.cachedTerminalEnv = undefined;
        void this.bindWorkspaceSockets();
        this.rewriteDiscoveryFile();
      }),
    );
    this.state = 'running';
    this.logger.info('companion listening', { port: this.port, socket: this.socketPath, discoveryFile: this.discovery.path, workspace: this.workspacePath });
  }

  private async doStop(): Promise<void> {
    await this.startPromise?.catch(() => undefined);
    if (this.state === 'stopped') return;
    this.state = 'stopping';
    // The files go first, so no new CLI finds a server that is going away.
    this.removeFilesSync();
    this.removeExitCleanup?.();
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.unsubscribers = [];
    await this.diffs.closeAll();
    await this.sessions.closeAll();
    for (const face of this.faces) await face.close();
    await this.workspaceSockets?.close();
    for (const face of this.agentFaces) await face.stop?.();
    this.context.dispose();
    await Promise.all([this.httpServer, this.socketServer].map((server) => closeServer(server)));
    this.state = 'stopped';
    this.logger.info('companion stopped');
  }

  /**
   * The socket beside the port, in its private folder (the PID and port of the
   * discovery file). A socket that cannot be made costs the remote flows only:
   * said in the log, and the companion serves its port as before.
   */
  private async listenOnSocket(): Promise<void> {
    if (!this.socketServer) return;
    let socket: CompanionSocket;
    try {
      const base = ensureSocketBaseDir(this.options.tmpdir ?? os.tmpdir());
      const swept = sweepStaleSocketDirs(base);
      if (swept.length > 0) this.logger.info('removed socket folders of dead processes', { folders: swept });
      socket = new CompanionSocket(base, this.idePid, this.port);
    } catch (err) {
      this.logger.warn('no Unix socket: its folder was refused', { error: describeError(err) });
      return;
    }
    if (!socket.pathFits) {
      this.logger.warn('no Unix socket: its path is too long for a socket address', { path: socket.socketPath });
      return;
    }
    this.socket = socket;
    try {
      await socket.listen(this.socketServer, this.token);
    } catch (err) {
      socket.removeSync();
      this.socket = undefined;
      this.logger.warn('no Unix socket: it could not be created', { path: socket.socketPath, error: describeError(err) });
    }
  }

  /** Our folders' sockets at the stable address (each root as given and as its real path); a failure costs the remote flows only. */
  private async bindWorkspaceSockets(): Promise<void> {
    if (!this.workspaceSockets) return;
    const roots = new Set<string>();
    for (const root of this.context.getRoots()) {
      roots.add(root);
      try {
        roots.add(fs.realpathSync(root));
      } catch {
        // A folder that is gone has no other name.
      }
    }
    try {
      await this.workspaceSockets.update([...roots]);
    } catch (err) {
      this.logger.warn('no workspace sockets: their folder was refused', { error: describeError(err) });
    }
  }

  /** The stable address's sockets this companion answers on now (folder -> socket; docs/remote.md). */
  get workspaceSocketPaths(): Record<string, string> {
    return this.workspaceSockets?.owned ?? {};
  }

  private writeDiscoveryFile(): void {
    const content: DiscoveryFile = {
      port: this.port,
      workspacePath: this.workspacePath,
      authToken: this.token,
      ideInfo: this.ideInfo,
      ...(this.socketPath !== undefined && { socketPath: this.socketPath }),
    };
    // Each other agent's folder refused, or absent (a user of Gemini CLI alone), costs that agent alone, said in the log.
    this.roster.writeLocks();
    // After the lock files: the file says which agents they serve (list, doctor).
    content.agents = { served: this.roster.served(), notServed: this.roster.notServed() };
    // Made again if the last other companion removed it, empty, since we started.
    ensureDiscoveryDir(this.options.tmpdir ?? os.tmpdir());
    this.discovery!.write(content);
  }

  /** After start (roots changed, an agent's folder appeared): a failure is said in the log. */
  private rewriteDiscoveryFile(): void {
    try {
      this.writeDiscoveryFile();
    } catch (err) {
      this.logger.error('could not rewrite the discovery file', { error: describeError(err) });
    }
  }

  /**
   * The files and the socket folder this companion made (what its reaper
   * removes, in this order): the discovery file last, so that once it is gone
   * nothing of this companion is left to find (an end that waits for it then
   * finds no socket folder or lock file either).
   */
  private ownedPaths(): string[] {
    return [this.socketDir, ...this.roster.paths(), this.discovery?.path].filter((p): p is string => p !== undefined);
  }

  /** What no process may find once this companion is gone: the discovery and lock files, the socket. */
  private removeFilesSync(): void {
    this.reaper?.dispose();
    this.reaper = undefined;
    this.discovery?.removeSync();
    this.roster.removeSync();
    this.socket?.removeSync();
    this.workspaceSockets?.removeSync();
    this.removeEmptyTmpFolders();
  }

  /**
   * The folders of ours in TMP (`gemini/ide`, `gemini`, `ide-companion-UID`),
   * when empty: rmdir leaves one that still holds another companion's file,
   * so the last companion to stop takes them (issue 30). One starting
   * meanwhile makes them again before each write (writeDiscoveryFile).
   */
  private removeEmptyTmpFolders(): void {
    const tmp = this.options.tmpdir ?? os.tmpdir();
    const discoveryDir = this.discovery?.dir;
    const socketBase = this.socket ? path.dirname(this.socket.dir) : undefined;
    for (const dir of [socketBase, discoveryDir, discoveryDir && path.dirname(discoveryDir)]) {
      if (dir === undefined || !dir.startsWith(tmp)) continue;
      try {
        fs.rmdirSync(dir);
      } catch {
        // Not empty (another companion's, or gemini's), or gone already.
      }
    }
  }

  /** `agent`'s lock file, when this companion serves it (docs/agents.md). */
  lockFilePath(agent: AgentName): string | undefined {
    return this.roster.lockPath(agent);
  }

  /** Where `agent`'s face is (its `state`), when it says. */
  faceState(agent: AgentName): object | undefined {
    return this.agentFaces.find((face) => face.agent === agent)?.state?.();
  }

  /** What the faces say of themselves in the ends' health checks. */
  get faceHealth(): HealthItem[] {
    return this.agentFaces.flatMap((face) => face.health?.() ?? []);
  }

  /** An McpServer named for this companion, with no tool yet: each face registers its own words over the tools. */
  private async newMcpServer(): Promise<McpServer> {
    const { McpServer } = await loadSdk();
    return new McpServer({ name: `ide-companion (${this.ideInfo.name})`, version: COMPANION_VERSION });
  }

  private async createMcpServer(): Promise<McpServer> {
    const server = await this.newMcpServer();
    registerTools(server, this.tools, this.toolEnvironment());
    return server;
  }

  private toolEnvironment(): ToolEnvironment {
    return {
      context: this.context,
      diffs: this.diffs,
      editor: this.options.editor,
      logger: this.logger,
      editorTimeoutMs: this.options.editorTimeoutMs,
      agentOf: (id) => AGENT_DISPLAY_NAMES[this.sessions.agentOf(id) ?? this.faces.find((face) => face.owns(id))?.agent ?? 'gemini'],
      isCheckProbe: (id) => this.sessions.isCheckProbe(id),
      openedOnSocket: (id) => this.sessions.openedOnSocket(id),
    };
  }

  private boundSeed(seed: Promise<unknown>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CONTEXT_SEED_WAIT_MS);
      timer.unref();
    });
    const settled = seed.then(
      () => undefined,
      (err: unknown) => this.logger.warn('the context seed failed', { error: describeError(err) }),
    );
    return Promise.race([settled, waited]).then(() => {
      clearTimeout(timer);
      this.seedPending = undefined;
    });
  }

  private emitSessions(): void {
    const list = this.sessionList;
    for (const listener of this.sessionListeners) listener(list);
  }
}

/** The user's choice for every end at once: IDE_COMPANION_AGENTS (docs/agents.md); unset or unreadable: none named (the default). */
function agentsFromEnv(logger: Logger): readonly AgentName[] | undefined {
  const text = process.env[AGENTS_ENV];
  if (text === undefined || text.trim() === '') return undefined;
  try {
    return parseAgents(text);
  } catch (err) {
    logger.warn(`${AGENTS_ENV} ignored: the agents you have are served`, { error: describeError(err) });
    return undefined;
  }
}
