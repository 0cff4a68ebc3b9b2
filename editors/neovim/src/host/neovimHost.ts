/**
 * The Neovim host: the host core (server/scriptHost.ts) framed as msgpack-RPC
 * with Neovim. The Lua side's notifications become the core's hello, events and
 * health asks (rpcMessages.ts); its actions are Lua calls (neovimEditor.ts); it
 * hears of the companion through the Lua host module's callbacks. Nothing the
 * Lua side (or a broken plugin, or a user's `rpcnotify`) sends may stop it:
 * every notification is validated and a bad one is logged and dropped.
 */
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';
import { EditorEventError, parseEditorEvent } from '@ide-companion/server/editorEvents';
import { describeError } from '@ide-companion/server/logger';
import { ScriptHost, type HostProblem, type ReadyInfo, type ScriptFraming } from '@ide-companion/server/scriptHost';
import type { ActionParams, ActionResult, EditorActionName, EditorEvent, HostGoneWords, IdeInfo } from '@ide-companion/protocol';
import type { Companion } from '@ide-companion/server/companion';
import type { SessionInfo } from '@ide-companion/server/sessions';
import type { HealthItem } from '@ide-companion/server/healthLines';
import type { FileLogger } from './fileLogger.js';
import type { LuaBridge } from './luaBridge.js';
import { NEOVIM_DECLARES, neovimRequest } from './neovimEditor.js';
import { parseRpcMessage, type RpcMessage } from './rpcMessages.js';
import { statusReport, type StatusReport } from './statusReport.js';
import { neovimWords, type NeovimWords } from './neovimWords.js';

const HOST_MODULE = 'ide_companion.host';
const PID_ENV = 'GEMINI_CLI_IDE_PID';
export const DEFAULT_IDE_INFO: IdeInfo = { name: 'neovim', displayName: 'Neovim' };
/** How long a stop may wait on Neovim: a Neovim that died never answers the diff closes it sends. */
const SHUTDOWN_GRACE_MS = 2_000;

/** What the Lua side learns when the companion listens (lua/ide_companion/host.lua `on_started`). */
export interface StartedInfo extends Omit<ReadyInfo, 'words'> {
  hostPid: number;
  /** The words to show once this host is gone (diffWords.ts) and the plugin's own: the Lua keeps them. */
  words: HostGoneWords & NeovimWords;
  /** :GeminiStatus, renewed by on_sessions and on_env. */
  report: StatusReport;
}

export class NeovimHost implements ScriptFraming {
  readonly host: ScriptHost;
  /** The file of the last `focus` or `cursor` event: where a `cursor` shorthand moves. */
  private positionPath: string | undefined;
  readonly request: <N extends EditorActionName>(action: N, params: ActionParams<N>) => Promise<ActionResult<N>>;

  constructor(
    private readonly lua: LuaBridge,
    private readonly logger: FileLogger,
    exit: (code: number) => void,
  ) {
    this.host = new ScriptHost(this, {
      logger,
      exit,
      defaults: () => ({ ideInfo: DEFAULT_IDE_INFO, roots: [] }),
      stopGraceMs: SHUTDOWN_GRACE_MS,
    });
    this.request = neovimRequest(lua, () => this.host.companion?.context.activeFile()?.filePath);
  }

  /** One notification from Neovim. Never throws. */
  handle(method: string, args: unknown): void {
    try {
      this.dispatch(method, args);
    } catch (err) {
      // A dropped focus or cursor: later shorthands must not move the cursor in the file before it.
      if (method === 'event' && isPositionPayload(args)) this.positionPath = undefined;
      this.logger.warn('dropped a notification', { method, error: describeError(err) });
      // A refused `roots` is the user's to hear of, not only the log's.
      if (method === 'event' && Array.isArray(args) && (args[0] as { type?: unknown } | undefined)?.type === 'roots')
        this.report('on_warning', describeError(err));
    }
  }

  private dispatch(method: string, args: unknown): void {
    const message = parseRpcMessage(method, args);
    if (message.method === 'hello') {
      if (message.hello.logFile) this.logger.open(message.hello.logFile);
      // The Lua side declares what it answers (actions.lua CAPABILITIES).
      return this.host.hello({ ...message.hello, capabilities: [...(message.hello.capabilities ?? []), ...NEOVIM_DECLARES] });
    }
    if (message.method === 'health') return this.report('on_health', this.health(message.env));
    if (message.method === 'stop') {
      void this.host.stop('stop requested');
      return;
    }
    const event = message.method === 'cursor' ? this.cursorEvent(message) : message.event;
    if (event.type === 'focus' || event.type === 'cursor') this.positionPath = event.path;
    // The shorthand names the renamed file from now on.
    if (event.type === 'rename' && this.positionPath === event.from) this.positionPath = event.to;
    if (!this.host.event(event) && (event.type === 'focus' || event.type === 'cursor')) this.positionPath = undefined;
  }

  /** The `cursor` shorthand as the event it stands for, in the file of the last focus or cursor event. */
  private cursorEvent(message: Extract<RpcMessage, { method: 'cursor' }>): EditorEvent {
    if (this.positionPath === undefined) throw new EditorEventError('cursor notification before a focus or cursor event naming its file');
    const { method: _, ...position } = message; // cursor, and anchor and selectionKind when there are
    return parseEditorEvent({ type: 'cursor', path: this.positionPath, ...position });
  }

  async ready(info: ReadyInfo): Promise<void> {
    const companion = this.host.companion!;
    const started: StartedInfo = {
      ...info,
      hostPid: process.pid,
      words: { ...info.words, ...neovimWords() },
      report: this.statusReport(companion),
    };
    await this.lua.call(HOST_MODULE, 'on_started', started);
  }

  sessions(sessions: readonly SessionInfo[]): void {
    this.report('on_sessions', sessions.map(describeSession), this.statusReport(this.host.companion!));
  }

  roots(): void {
    const companion = this.host.companion!;
    this.report('on_env', { ...companion.terminalEnv }, companion.workspacePath, this.statusReport(companion));
  }

  async say(said: { level: 'warning' | 'error'; message: string }): Promise<void> {
    await this.lua.call(HOST_MODULE, 'on_say', said.level, said.message).catch(() => undefined);
  }

  tell(problem: HostProblem): void {
    // Refused workspace folders and unheard mentions are the user's to hear of, the rest the log's.
    if (problem.kind === 'roots') return this.report('on_warning', problem.message);
    if (problem.kind === 'unheardMention') return this.report('on_unheard_mention', problem.path, problem.message);
    if (problem.kind === 'staleDiff') return this.logger.info('decision for a diff no longer pending', { error: problem.message });
    this.logger.warn(problem.kind === 'readFailed' ? 'could not read the selected text' : 'dropped a notification', { error: problem.message });
  }

  async failed(message: string): Promise<void> {
    await this.lua.call(HOST_MODULE, 'on_failed', message);
  }

  private statusReport(c: Companion): StatusReport {
    const { port, discoveryFilePath, socketPath, workspacePath } = c;
    return statusReport({ port, discoveryFilePath, socketPath, workspacePath, agentNames: c.agents.map((a) => AGENT_DISPLAY_NAMES[a]) }, c.sessionList);
  }

  /**
   * :checkhealth's items, made now: the shared report (healthLines.ts) between
   * what only Neovim's has: the Node.js running the host, and whether this
   * Neovim's env (`env`, what :terminal inherits) is the companion's.
   */
  private health(env: Record<string, string>): HealthItem[] {
    const c = this.host.companion;
    const shared = this.host.health();
    if (!c || !shared) return [{ level: 'warn', text: 'the companion is starting' }];
    const own = Object.entries(c.terminalEnv).filter((e): e is [string, string] => e[1] !== undefined);
    return [
      { level: 'ok', text: `Node.js ${process.version} (${process.execPath})` },
      ...shared,
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
