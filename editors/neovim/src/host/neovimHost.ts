/**
 * The host process's state: one Companion per Neovim, fed by the Lua side's
 * notifications, reporting back through LuaBridge. Nothing the Lua side (or a
 * broken plugin, or a user's `rpcnotify`) sends may stop it: every
 * notification is validated and a bad one is logged and dropped.
 */
import { Companion } from '@ide-companion/server/companion';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { acpLauncher, type AcpLauncher } from '@ide-companion/shared/acpLauncher';
import { EditorEventError, applyEditorEvent, parseEditorEvent } from '@ide-companion/server/editorEvents';
import { describeError } from '@ide-companion/server/logger';
import { AGENT_DISPLAY_NAMES, parseAgents, type AgentName } from '@ide-companion/shared/agentPaths';
import { hostGoneWords, type EditorEvent, type HostGoneWords, type Hello, type IdeInfo } from '@ide-companion/protocol';
import type { SessionInfo } from '@ide-companion/server/sessions';
import type { FileLogger } from './fileLogger.js';
import type { LuaBridge } from './luaBridge.js';
import { neovimEditor } from './neovimEditor.js';
import { PositionIntake } from '@ide-companion/server/positionIntake';
import { parseRpcMessage, type RpcMessage } from './rpcMessages.js';
import { statusReport, type StatusReport } from './statusReport.js';
import { healthItems, type HealthItem } from '@ide-companion/server/healthLines';
import { neovimWords, type NeovimWords } from './neovimWords.js';

const HOST_MODULE = 'ide_companion.host';
const CONTEXT_MODULE = 'ide_companion.context';
const PID_ENV = 'GEMINI_CLI_IDE_PID';
export const DEFAULT_IDE_INFO: IdeInfo = { name: 'neovim', displayName: 'Neovim' };
/** How long a stop may wait on Neovim: a Neovim that died never answers the diff closes it sends. */
const SHUTDOWN_GRACE_MS = 2_000;

/** What the Lua side learns when the companion listens (lua/ide_companion/host.lua `on_started`). */
export interface StartedInfo {
  port: number;
  discoveryFile: string | undefined;
  workspacePath: string;
  env: Record<string, string>;
  hostPid: number;
  version: string;
  /** What to export when gemini here would dial host.docker.internal (shown by :checkhealth). */
  containerHint?: string;
  /** The Unix socket for gemini elsewhere (docs/remote.md), shown by :checkhealth. */
  socketPath?: string;
  /** The agents served, as the user reads them ("Claude Code"). */
  agents: string[];
  /** How :IdeAgent runs an ACP agent: `ide-companion agent --` (shared/acpLauncher.ts), or why not. */
  acp: AcpLauncher;
  /** The words to show once this host is gone (diffWords.ts) and the plugin's own: the Lua keeps them. */
  words: HostGoneWords & NeovimWords;
  /** :GeminiStatus, renewed by on_sessions and on_env. */
  report: StatusReport;
}

export class NeovimHost {
  private companion: Companion | undefined;
  private intake: PositionIntake | undefined;
  private started: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  /** The file of the last `focus` or `cursor` event: where a `cursor` shorthand moves. */
  private positionPath: string | undefined;

  constructor(
    private readonly lua: LuaBridge,
    private readonly logger: FileLogger,
    private readonly exit: (code: number) => void,
  ) {}

  /** One notification from Neovim. Never throws. */
  handle(method: string, args: unknown): void {
    try {
      this.dispatch(method, args);
    } catch (err) {
      // A dropped focus or cursor: later shorthands must not move the cursor in the file before it.
      if (method === 'event' && isPositionPayload(args)) this.positionPath = undefined;
      this.logger.warn('dropped a notification', { method, error: describeError(err) });
      // Refused workspace folders are the user's to hear of, not only the log's.
      if (method === 'event' && Array.isArray(args) && (args[0] as { type?: unknown } | undefined)?.type === 'roots')
        this.report('on_warning', describeError(err));
    }
  }

  /** Stops the companion (discovery file first) and exits. Idempotent. */
  shutdown(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.logger.info('host stopping', { reason });
      // The discovery file goes first in stop(); past the grace the host exits anyway (it lived on after a killed Neovim 0.10 with a diff open).
      setTimeout(() => this.exit(0), SHUTDOWN_GRACE_MS).unref();
      this.intake?.dispose();
      await this.started?.catch(() => undefined);
      await this.companion?.stop().catch((err) => this.logger.error('stop failed', { error: describeError(err) }));
      this.exit(0);
    })();
    return this.stopping;
  }

  private dispatch(method: string, args: unknown): void {
    const message = parseRpcMessage(method, args);
    if (message.method === 'hello') return this.start(message.hello);
    if (message.method === 'health') return this.report('on_health', this.health(message.env));
    if (message.method === 'stop') {
      void this.shutdown('stop requested');
      return;
    }
    const companion = this.companion;
    const intake = this.intake;
    if (!companion || !intake) throw new Error('not started yet');
    const event = message.method === 'cursor' ? this.cursorEvent(message) : message.event;
    if (event.type === 'focus' || event.type === 'cursor') this.positionPath = event.path;
    // The shorthand names the renamed file from now on.
    if (event.type === 'rename' && this.positionPath === event.from) this.positionPath = event.to;
    if (event.type === 'mention') {
      if (!applyEditorEvent(companion, event)) this.report('on_unheard_mention', event.path, neovimWords().unheardMention);
      return;
    }
    if (!intake.apply(event)) this.logger.info('decision for a diff no longer pending', { type: event.type });
  }

  /** The `cursor` shorthand as the event it stands for, in the file of the last focus or cursor event. */
  private cursorEvent(message: Extract<RpcMessage, { method: 'cursor' }>): EditorEvent {
    if (this.positionPath === undefined) throw new EditorEventError('cursor notification before a focus or cursor event naming its file');
    const { method: _, ...position } = message; // cursor, and anchor and selectionKind when there are
    return parseEditorEvent({ type: 'cursor', path: this.positionPath, ...position });
  }

  private start(hello: Hello): void {
    if (this.companion) {
      this.logger.warn('hello received twice; ignored');
      return;
    }
    if (hello.logFile) this.logger.open(hello.logFile);
    // The Lua side declares what it answers (actions.lua CAPABILITIES).
    // An ask for every file's diagnostics gets the workspace's, as every end's.
    const editor = neovimEditor(this.lua, hello.capabilities ?? [], () => this.companion?.context.getRoots(), {
      selectionFile: () => (this.intake?.noSelection ? null : this.companion?.context.activeFile()?.filePath),
      expectMove: () => this.intake?.expectMove(),
    });
    // An unknown agent name (setup's `agents`) is the user's to hear of, as a failed start: the host alone knows the agents.
    let agents: AgentName[] | undefined;
    try {
      agents = hello.agents && parseAgents(hello.agents.join(','));
    } catch (err) {
      this.logger.error('companion failed to start', { error: describeError(err) });
      void this.lua
        .call(HOST_MODULE, 'on_failed', describeError(err))
        .catch(() => undefined)
        .then(() => this.exit(1));
      return;
    }
    // Created at once so context events that follow `hello` land in its tracker while it binds.
    const companion = new Companion({
      ideInfo: hello.ide ?? DEFAULT_IDE_INFO,
      workspaceRoots: hello.roots ?? [],
      idePid: hello.pid,
      editor,
      logger: this.logger,
      trusted: hello.trusted,
      handleSignals: true,
      // Killed with -9, the host cannot remove its files, and Neovim lives on: its reaper does.
      reapOnKill: true,
      ...(agents && { agents }),
      ...(hello.ampEditFile && { faceSettings: { amp: { editFile: hello.ampEditFile } } }),
    });
    this.companion = companion;
    this.intake = new PositionIntake(companion, {
      readSelectedText: (maxChars) => this.lua.call<string | null>(CONTEXT_MODULE, 'selected_text', maxChars),
      onReadError: (err) => this.logger.warn('could not read the selected text', { error: describeError(err) }),
    });
    if (companion.rootsRefused) this.report('on_warning', companion.rootsRefused);
    this.started = companion.start().then(
      async () => {
        const report = () => statusReport(reported(companion), companion.sessionList);
        companion.onDidChangeSessions((sessions) => this.report('on_sessions', sessions.map(describeSession), report()));
        companion.context.onDidChangeRoots(() => this.report('on_env', { ...companion.terminalEnv }, companion.workspacePath, report()));
        const info: StartedInfo = {
          port: companion.port,
          discoveryFile: companion.discoveryFilePath,
          workspacePath: companion.workspacePath,
          env: { ...companion.terminalEnv },
          hostPid: process.pid,
          version: COMPANION_VERSION,
          containerHint: companion.containerHint,
          socketPath: companion.socketPath,
          agents: companion.agents.map((a) => AGENT_DISPLAY_NAMES[a]),
          acp: acpLauncher(process.argv[1]),
          words: { ...hostGoneWords(companion.ideInfo.name), ...neovimWords() },
          report: report(),
        };
        await this.lua.call(HOST_MODULE, 'on_started', info);
        // What a killed host left accepted and unwritten, shown kept now that the Lua side is ready.
        void companion.diffs.keepAcceptedLeftBehind();
      },
      async (err: unknown) => {
        this.logger.error('companion failed to start', { error: describeError(err) });
        await this.lua.call(HOST_MODULE, 'on_failed', describeError(err)).catch(() => undefined);
        this.exit(1);
      },
    );
  }

  /**
   * :checkhealth's items, made now: the shared report (healthLines.ts) between
   * what only Neovim's has: the Node.js running the host, and whether this
   * Neovim's env (`env`, what :terminal inherits) is the companion's.
   */
  private health(env: Record<string, string>): HealthItem[] {
    const c = this.companion;
    if (!c) return [{ level: 'warn', text: 'the companion is starting' }];
    const own = Object.entries(c.terminalEnv).filter((e): e is [string, string] => e[1] !== undefined);
    return [
      { level: 'ok', text: `Node.js ${process.version} (${process.execPath})` },
      ...healthItems({
        ide: c.ideInfo.name,
        displayName: c.ideInfo.displayName,
        pid: process.pid,
        port: c.port,
        idePid: c.idePid,
        workspacePath: c.workspacePath,
        sessions: c.sessionList.map((session) => AGENT_DISPLAY_NAMES[session.agent]),
        agents: c.agents.map((a) => AGENT_DISPLAY_NAMES[a]),
        ...(c.discoveryFilePath && { discoveryFile: c.discoveryFilePath }),
        ...(c.socketPath && { socketPath: c.socketPath }),
        ...(c.containerHint && { containerHint: c.containerHint }),
        faces: c.faceHealth,
      }),
      own.every(([key, value]) => env[key] === value)
        ? { level: 'ok', text: `terminals get ${PID_ENV}=${c.terminalEnv[PID_ENV]} and the port` }
        : {
            level: 'warn',
            text: 'the terminal environment is not set: gemini in :terminal may connect elsewhere',
            advice: ['run :GeminiStop, then :GeminiStart'],
          },
    ];
  }

  private report(fn: string, ...args: unknown[]): void {
    this.lua.call(HOST_MODULE, fn, ...args).catch((err) => {
      this.logger.warn('could not reach Neovim', { call: fn, error: describeError(err) });
    });
  }
}

/** An `event` notification whose payload is a focus or cursor event (valid or not). */
function isPositionPayload(args: unknown): boolean {
  const payload: unknown = Array.isArray(args) ? args[0] : undefined;
  if (typeof payload !== 'object' || payload === null) return false;
  const type = (payload as { type?: unknown }).type;
  return type === 'focus' || type === 'cursor';
}

function reported(c: Companion) {
  const { port, discoveryFilePath, socketPath, workspacePath } = c;
  return { port, discoveryFilePath, socketPath, workspacePath, agentNames: c.agents.map((a) => AGENT_DISPLAY_NAMES[a]) };
}

function describeSession(session: SessionInfo): Record<string, unknown> {
  return {
    id: session.id,
    agent: AGENT_DISPLAY_NAMES[session.agent],
    client: session.clientName ?? 'unknown',
    version: session.clientVersion ?? '',
    streamOpen: session.streamOpen,
    connectedAt: session.connectedAt,
  };
}
