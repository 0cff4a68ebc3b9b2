/**
 * The companion: one object an editor adapter creates, feeds and starts.
 *
 *   const companion = new Companion({ ideInfo, workspaceRoots, editor });
 *   await companion.start();            // listening, discovery file written
 *   companion.context.focus('/abs/file.ts', { cursor: { line: 1, character: 1 } });
 *   companion.diffs.accept(diff.id, editedText);
 *   await companion.stop();             // sessions, server and file gone
 *
 * It holds the core agent's face itself (its token, its discovery file, its
 * sessions on the port and the sockets: agentChoice.ts) and every other
 * agent's as a list (companionFaces.ts), naming none.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ContextUpdateNotification,
  containerHint,
  joinWorkspacePaths,
  type Capability,
  type DiscoveryFile,
  type IdeInfo,
  IdeInfoSchema,
  PARSE_ONCE,
} from '@ide-companion/protocol';
import { AGENT_DISPLAY_NAMES, type AgentName } from '@ide-companion/shared/agentPaths';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { agentsFromEnv, CORE_AGENT, wantedAgents } from './agentChoice.js';
import { AgentRoster, type AgentsNotServed } from './agentRoster.js';
import { generateAuthToken } from './auth.js';
import { CompanionAddresses } from './companionAddresses.js';
import { CompanionFaces } from './companionFaces.js';
import { limitsOf, type CompanionOptions } from './companionOptions.js';
import { boundedSeed } from './contextSeed.js';
import { ContextTracker } from './contextTracker.js';
import { DiffCoordinator } from './diffCoordinator.js';
import { CoreDiscovery } from './coreDiscovery.js';
import { capabilitiesOf } from './editorActions.js';
import type { FaceHost } from './faces/agentFace.js';
import type { HealthItem } from './healthLines.js';
import { loopbackHostRule } from './http/requestGuard.js';
import { loadSdk } from './lazySdk.js';
import { registerExitCleanup } from './lifecycle.js';
import { describeError, silentLogger, type Logger } from './logger.js';
import { startReaper, type Reaper } from './reaper.js';
import { SessionRegistry, type SessionInfo } from './sessions.js';
import { buildTerminalEnv, type TerminalEnv } from './terminalEnv.js';
import { availableTools, registerTools } from './tools/index.js';
import type { ToolDefinition, ToolEnvironment } from './tools/toolDefinition.js';
import { describeRootRefusals } from './workspaceRoots.js';

export type { CompanionOptions } from './companionOptions.js';

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
  /** The core agent's token (discovery file, terminals, the sockets); every other face has its own, so each session knows its agent. */
  private readonly token = generateAuthToken();
  private readonly sessions: SessionRegistry;
  /** The port, the Unix socket and the workspace sockets, one handler on each. */
  private readonly addresses: CompanionAddresses;
  private readonly sessionListeners = new Set<(sessions: SessionInfo[]) => void>();
  /** The core agent's discovery file. */
  private readonly discovery: CoreDiscovery;
  /** The agents served beyond the core (their lock files), and those awaited or refused (agentRoster.ts). */
  private readonly roster: AgentRoster;
  /** The faces of the agents asked for beyond the core (faces/registry.ts), served or not (the roster says). */
  private readonly faces: CompanionFaces;
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
    if (options.contextSeed) this.seedPending = boundedSeed(options.contextSeed, this.logger).then(() => (this.seedPending = undefined));
    // The core's sessions and every face's keep the same limits.
    const limits = limitsOf(options);
    this.sessions = new SessionRegistry({
      ...limits,
      logger: this.logger,
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
        if (!this.faces.deliver(id, n)) this.sessions.notify(id, n);
      },
      this.logger,
      limits.maxBodyBytes,
      () => this.context.getRoots(),
      this.ideInfo.name,
    );
    const chosenAgents = options.agents ?? agentsFromEnv(this.logger);
    // Unnamed, every agent is wanted, and served to a user who has it (its folder, or its variable): no agent's
    // folder is made for others. One whose folder appears later is served then (agentRoster.ts).
    this.wantedAgents = wantedAgents(chosenAgents);
    const unixSockets = (options.unixSocket ?? true) && process.platform !== 'win32';
    const tmpdir = options.tmpdir ?? os.tmpdir();
    this.discovery = new CoreDiscovery(tmpdir, this.logger);
    const host: FaceHost = {
      logger: this.logger,
      ideInfo: this.ideInfo,
      idePid: this.idePid,
      context: this.context,
      diffs: this.diffs,
      tools: this.tools,
      limits,
      trusted: options.trusted,
      tmpdir,
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
    this.faces = new CompanionFaces(this.wantedAgents, host, { paths: options.facePaths, settings: options.faceSettings });
    this.roster = new AgentRoster({
      logger: this.logger,
      faces: this.faces.all,
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
    // The port and the sockets serve the same sessions; only the Host each accepts and the tokens differ.
    this.addresses = new CompanionAddresses({
      sessions: this.sessions,
      logger: this.logger,
      maxBodyBytes: limits.maxBodyBytes,
      portTokens: [[this.token, CORE_AGENT], ...this.faces.portTokens()],
      socketToken: [this.token, CORE_AGENT],
      unixSockets,
      tmpdir: options.tmpdir,
      idePid: this.idePid,
    });
    const upgrades = this.faces.upgradeListener();
    if (upgrades) this.addresses.onUpgrade(upgrades);
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
    return this.addresses.port;
  }

  /** The bearer token. For terminal env and tests; never log it. */
  get authToken(): string {
    return this.token;
  }

  get discoveryFilePath(): string | undefined {
    return this.discovery.path;
  }

  /** The Unix socket a relay connects to (docs/remote.md); undefined before start or without one. */
  get socketPath(): string | undefined {
    return this.addresses.socketPath;
  }

  /** The socket's private folder (the socket and the token file): what a container mounts. */
  get socketDir(): string | undefined {
    return this.addresses.socketDir;
  }

  /** The stable address's sockets this companion answers on now (folder -> socket; docs/remote.md). */
  get workspaceSocketPaths(): Record<string, string> {
    return this.addresses.workspaceSocketPaths;
  }

  get workspacePath(): string {
    return joinWorkspacePaths(this.context.getRoots(), path.delimiter);
  }

  /**
   * The core agent's variables (and each served agent's, and REMOTE_CONTAINERS in a container) for the
   * editor's integrated terminals; recomputed only when roots change.
   */
  get terminalEnv(): TerminalEnv {
    this.cachedTerminalEnv ??= buildTerminalEnv({
      port: this.port,
      workspacePath: this.workspacePath,
      authToken: this.token,
      idePid: this.idePid,
      faces: this.faces.terminalEnv(this.roster.served()),
      container: this.containerHint !== undefined,
    });
    return this.cachedTerminalEnv;
  }

  /**
   * Set when a CLI started beside this companion would dial
   * host.docker.internal (a container): what to export. Every end shows it
   * (serve's banner, the hosts' `ready`, the editors' health checks).
   */
  get containerHint(): string | undefined {
    return containerHint(process.env, fs.existsSync);
  }

  /** Every connected CLI: the core's HTTP sessions (the core agent's, and a face's with a port token), then each face's own. */
  get sessionList(): SessionInfo[] {
    return [...this.sessions.list(), ...this.faces.sessions()];
  }

  /** The agents this companion serves (a lock file that could not be written drops its agent, said in the log). */
  get agents(): AgentName[] {
    if (this.state === 'new' || this.state === 'starting') return [...this.wantedAgents];
    return this.roster.served();
  }

  /** Each agent not served, and why (agentRoster.ts). */
  get agentsNotServed(): AgentsNotServed {
    return this.roster.notServed();
  }

  /** Called when an agent becomes served after start (its folder appeared), with every agent served. */
  onDidChangeAgents(listener: (agents: AgentName[]) => void): () => void {
    return this.roster.onDidChange(listener);
  }

  /** `agent`'s lock file, when this companion serves it (docs/agents.md). */
  lockFilePath(agent: AgentName): string | undefined {
    return this.roster.lockPath(agent);
  }

  /** Where `agent`'s face is (its `state`), when it says. */
  faceState(agent: AgentName): object | undefined {
    return this.faces.state(agent);
  }

  /** What the faces say of themselves in the ends' health checks. */
  get faceHealth(): HealthItem[] {
    return this.faces.health();
  }

  /**
   * "Send to agent": the file, or lines of it (1-based, inclusive), to every
   * connected agent that takes a mention (each face says how).
   * Returns how many heard it: 0 when none is connected.
   */
  mention(filePath: string, startLine?: number, endLine?: number): number {
    return this.faces.mention({ filePath, startLine, endLine, roots: this.context.getRoots() });
  }

  onDidChangeSessions(listener: (sessions: SessionInfo[]) => void): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  private async doStart(): Promise<void> {
    this.state = 'starting';
    this.discovery.prepare();
    await this.addresses.listenOnPort();
    try {
      this.discovery.name(this.idePid, this.port);
      this.removeExitCleanup = registerExitCleanup(() => this.removeFilesSync(), this.options.handleSignals ?? true);
      await this.addresses.listenOnSocket();
      await this.addresses.bindWorkspaceSockets(this.context.getRoots());
      // The faces after the socket: a face may serve in its folder.
      await this.roster.open(this.port);
      this.writeDiscoveryFile();
      if (this.options.reapOnKill) this.reaper = await startReaper(this.ownedPaths());
    } catch (err) {
      this.removeFilesSync();
      this.removeExitCleanup?.();
      await this.addresses.close();
      this.state = 'stopped';
      throw err;
    }
    this.unsubscribers.push(
      this.context.onDidChange((context) => {
        this.sessions.broadcast({ method: ContextUpdateNotification.method, params: context });
        this.faces.contextChanged(context, this.context.selectionBackward);
      }),
      this.context.onDidChangeRoots(() => {
        this.cachedTerminalEnv = undefined;
        void this.addresses.bindWorkspaceSockets(this.context.getRoots());
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
    await this.faces.closeSessions();
    await this.addresses.closeWorkspaceSockets();
    await this.faces.stop();
    this.context.dispose();
    await this.addresses.close();
    this.state = 'stopped';
    this.logger.info('companion stopped');
  }

  private writeDiscoveryFile(): void {
    const content: DiscoveryFile = {
      port: this.port,
      workspacePath: this.workspacePath,
      authToken: this.token,
      ideInfo: this.ideInfo,
      ...(this.socketPath !== undefined && { socketPath: this.socketPath }),
    };
    // Each other agent's folder refused, or absent (a user of the core agent alone), costs that agent alone, said in the log.
    this.roster.writeLocks();
    // After the lock files: the file says which agents they serve (list, doctor).
    content.agents = { served: this.roster.served(), notServed: this.roster.notServed() };
    this.discovery.write(content);
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
    return [this.socketDir, ...this.roster.paths(), this.discovery.path].filter((p): p is string => p !== undefined);
  }

  /** What no process may find once this companion is gone: the discovery and lock files, the sockets. */
  private removeFilesSync(): void {
    this.reaper?.dispose();
    this.reaper = undefined;
    this.discovery.removeSync();
    this.roster.removeSync();
    this.addresses.removeSync();
    this.discovery.removeEmptyFolders(this.addresses.socketBase);
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
      agentOf: (id) => AGENT_DISPLAY_NAMES[this.sessions.agentOf(id) ?? this.faces.agentOf(id) ?? CORE_AGENT],
      isCheckProbe: (id) => this.sessions.isCheckProbe(id),
      openedOnSocket: (id) => this.sessions.openedOnSocket(id),
    };
  }

  private emitSessions(): void {
    const list = this.sessionList;
    for (const listener of this.sessionListeners) listener(list);
  }
}
