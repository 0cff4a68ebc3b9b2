/**
 * The one host core for every script editor: what Neovim's msgpack host and the JSON-lines host (Vim,
 * Emacs, micro, Kakoune) do alike, written once. A host is this core plus its framing:
 * - in: the host reads its wire and calls `hello`, `event` (validated vocabulary events), `health`, `stop`;
 * - out: `ScriptFraming`: how an action is sent and its answer awaited (`request`), and how the end hears
 *   that the companion listens (`ready`), of sessions and folders, and of a problem (`tell`, `failed`).
 * The core does the rest: the Companion from `hello` (its defaults the host's), the actions from the
 * declared capabilities, position intake (positionIntake.ts), events held until the companion listens,
 * the health report, a failed start and the stop.
 */
import {
  HOST_GAVE_UP_EXIT_CODE,
  hostGoneWords,
  UNHEARD_MENTION,
  type ActionParams,
  type ActionResult,
  type EditorActionName,
  type EditorEvent,
  type Hello,
  type HostGoneWords,
  type IdeInfo,
} from '@ide-companion/protocol';
import { acpLauncher, type AcpLauncher } from '@ide-companion/shared/acpLauncher';
import { AGENT_DISPLAY_NAMES, parseAgents } from '@ide-companion/shared/agentPaths';
import { realPathOr } from '@ide-companion/shared/realPaths';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { Companion } from './companion.js';
import { applyEditorEvent } from './editorEvents.js';
import { healthItems, type HealthItem } from './healthLines.js';
import { hostRestart, hostStoppedCleanly, type HostRestart } from './hostRestarts.js';
import { describeError, type Logger } from './logger.js';
import { PositionIntake } from './positionIntake.js';
import { scriptEditorActions } from './scriptEditorActions.js';
import type { SessionInfo } from './sessions.js';
import type { TerminalEnv } from './terminalEnv.js';
import { trustFromFolders } from './workspaceTrust.js';

/** Events held while the companion starts; an end flooding before it listens is told so. */
const MAX_EARLY_EVENTS = 10_000;

/**
 * Something the end should hear of, or the log: each framing says it its way (JSON lines: an `error`
 * line for every kind; Neovim: refused folders and unheard mentions to the user, the others to the log).
 */
export type HostProblem =
  /** A message or event refused, or one that could not be applied: nothing changed. */
  | { kind: 'refused'; message: string }
  /** Workspace folders refused (the sane ones are kept): the user's to hear of. */
  | { kind: 'roots'; message: string }
  /** A decision for a diff no longer pending. */
  | { kind: 'staleDiff'; message: string }
  /** A mention no connected agent took. */
  | { kind: 'unheardMention'; message: string; path: string }
  /** The end's selected text could not be read. */
  | { kind: 'readFailed'; message: string };

/** What every end learns once the companion listens; each framing adds its own (JSON lines: `ready`). */
export interface ReadyInfo {
  port: number;
  discoveryFile: string | undefined;
  workspacePath: string;
  /** GEMINI_CLI_IDE_* and the faces' variables, for the editor's terminals. */
  env: TerminalEnv;
  version: string;
  containerHint: string | undefined;
  socketPath: string | undefined;
  /** The agents served, as the user reads them ("Claude Code"). */
  agents: string[];
  /** How the end runs an ACP agent: `ide-companion agent --` (shared/acpLauncher.ts), or why not. */
  acp: AcpLauncher;
  /** The words to show once this host is gone (diffWords.ts). */
  words: HostGoneWords;
}

/** How one end's messages travel: all two hosts differ in. */
export interface ScriptFraming {
  /** Sends one action to the end and waits for its answer. */
  request<N extends EditorActionName>(action: N, params: ActionParams<N>): Promise<ActionResult<N>>;
  /** The companion listens. What it sends at once goes before the events held while it started. */
  ready(info: ReadyInfo): void | Promise<void>;
  /** The CLI sessions changed. */
  sessions(sessions: readonly SessionInfo[]): void;
  /** The workspace folders changed (the terminal environment with them). */
  roots(): void;
  tell(problem: HostProblem): void;
  /** A line the end shows as it is: the host was started again after a death, or gives up (hostRestarts.ts). */
  say(said: { level: 'warning' | 'error'; message: string }): void | Promise<void>;
  /** The companion could not start; the host exits once this settles. */
  failed(message: string): void | Promise<void>;
}

/** What hello may leave out, as the host knows it (the command's flags, the editor the host is for). */
export interface HelloDefaults {
  ideInfo: IdeInfo;
  idePid?: number;
  roots: string[];
}

export interface ScriptHostOptions {
  logger: Logger;
  /** Ends the host with this code: after a failed start, or once stopped. The first call counts. */
  exit: (code: number) => void;
  /** What hello left out; may throw (no editor name, a folder that does not exist): the start fails. */
  defaults: (hello: Hello) => HelloDefaults;
  /** The exit code of a failed start (default 1). */
  failureCode?: (err: unknown) => number;
  /** Past this after a stop begins, the host exits anyway: an editor that died never answers the diff closes. */
  stopGraceMs?: number;
}

export class ScriptHost {
  private companionStarting: Companion | undefined;
  private listening: Companion | undefined;
  private intake: PositionIntake | undefined;
  private started: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private failedToStart = false;
  private helloSeen = false;
  private readonly early: EditorEvent[] = [];

  constructor(
    private readonly framing: ScriptFraming,
    private readonly options: ScriptHostOptions,
  ) {}

  /** The companion once it listens. */
  get companion(): Companion | undefined {
    return this.listening;
  }

  /** The end's hello: creates and starts the companion. A second one is refused. */
  hello(hello: Hello): void {
    if (this.helloSeen || this.failedToStart) return this.framing.tell({ kind: 'refused', message: 'hello was already received' });
    this.helloSeen = true;
    this.started = this.begin(hello);
  }

  /** A start after a death is counted and backed off first (hostRestarts.ts); the 5th in 3 minutes serves nothing. */
  private async begin(hello: Hello): Promise<void> {
    let defaults: HelloDefaults;
    let restart: HostRestart;
    try {
      defaults = this.options.defaults(hello);
      restart = await hostRestart(hello.ide?.name ?? defaults.ideInfo.name, { logger: this.options.logger });
    } catch (err) {
      return this.fail(err);
    }
    if (restart.said) await this.framing.say(restart.said);
    if (restart.gaveUp) {
      this.failedToStart = true;
      return this.options.exit(HOST_GAVE_UP_EXIT_CODE);
    }
    let companion: Companion;
    try {
      // An unknown agent name (the end's `agents` setting) is the user's to hear of, as a failed start: the host alone knows the agents.
      const agents = hello.agents && parseAgents(hello.agents.join(','));
      companion = new Companion({
        ideInfo: hello.ide ?? defaults.ideInfo,
        idePid: hello.pid ?? defaults.idePid,
        // Real paths, as the folders of later `roots` events; one that does not exist is left to the companion (dropped, said so).
        workspaceRoots: hello.roots ? hello.roots.map(realPathOr) : defaults.roots,
        trusted: hello.trusted ?? (hello.trustedFolders && hello.roots ? trustFromFolders(hello.trustedFolders, hello.roots) : undefined),
        editor: scriptEditorActions(this.framing, hello.capabilities ?? [], {
          intake: () => this.intake,
          roots: () => this.companionStarting?.context.getRoots(),
        }),
        logger: this.options.logger,
        // A host started by a script is its own: killed with -9, its reaper removes its files (the editor lives on).
        reapOnKill: true,
        ...(agents && { agents }),
        // Amp's editFile through review or the editor's buffer.
        ...(hello.ampEditFile && { faceSettings: { amp: { editFile: hello.ampEditFile } } }),
      });
    } catch (err) {
      return this.fail(err);
    }
    this.companionStarting = companion;
    this.intake = new PositionIntake(companion, {
      readSelectedText: async (maxChars) => (await this.framing.request('selectedText', { maxChars })).text,
      onReadError: (err) => this.framing.tell({ kind: 'readFailed', message: `could not read the selected text: ${describeError(err)}` }),
    });
    return companion.start().then(
      () => this.listen(companion),
      (err: unknown) => this.fail(err),
    );
  }

  /**
   * One validated event from the end. False when it was refused (the end was told): a host that keeps
   * state per event (Neovim's cursor shorthand) forgets it then.
   */
  event(event: EditorEvent): boolean {
    if (this.listening) return this.apply(event);
    if (!this.helloSeen || this.failedToStart) return this.refuse('not started yet');
    if (this.early.length >= MAX_EARLY_EVENTS) return this.refuse('too many events before ready');
    this.early.push(event);
    return true;
  }

  /** The shared health report (healthLines.ts) made now; undefined until the companion listens. */
  health(sessions?: readonly SessionInfo[]): HealthItem[] | undefined {
    const c = this.listening;
    if (!c) return undefined;
    return healthItems({
      ide: c.ideInfo.name,
      displayName: c.ideInfo.displayName,
      pid: process.pid,
      port: c.port,
      idePid: c.idePid,
      workspacePath: c.workspacePath,
      sessions: (sessions ?? c.sessionList).map((session) => AGENT_DISPLAY_NAMES[session.agent]),
      agents: c.agents.map((a) => AGENT_DISPLAY_NAMES[a]),
      ...(c.discoveryFilePath && { discoveryFile: c.discoveryFilePath }),
      ...(c.socketPath && { socketPath: c.socketPath }),
      ...(c.containerHint && { containerHint: c.containerHint }),
      faces: c.faceHealth,
    });
  }

  /** Stops the companion (discovery file first), then exits 0. Idempotent. */
  stop(reason: string): Promise<void> {
    this.stopping ??= (async () => {
      this.options.logger.info('host stopping', { reason });
      if (this.options.stopGraceMs !== undefined) setTimeout(() => this.options.exit(0), this.options.stopGraceMs).unref();
      this.intake?.dispose();
      await this.started?.catch(() => undefined);
      await this.companionStarting?.stop().catch((err: unknown) => this.options.logger.error('error while stopping', { error: describeError(err) }));
      // Stopped by its end: the editor's earlier deaths no longer count (hostRestarts.ts).
      hostStoppedCleanly();
      this.options.exit(0);
    })();
    return this.stopping;
  }

  private async listen(companion: Companion): Promise<void> {
    companion.onDidChangeSessions((sessions) => this.framing.sessions(sessions));
    companion.context.onDidChangeRoots(() => this.framing.roots());
    this.listening = companion;
    const said = this.framing.ready({
      port: companion.port,
      discoveryFile: companion.discoveryFilePath,
      workspacePath: companion.workspacePath,
      env: { ...companion.terminalEnv },
      version: COMPANION_VERSION,
      containerHint: companion.containerHint,
      socketPath: companion.socketPath,
      agents: companion.agents.map((a) => AGENT_DISPLAY_NAMES[a]),
      // From the script node runs: the host's bundle, or the CLI's bin for `ide-companion bridge`.
      acp: acpLauncher(process.argv[1]),
      words: hostGoneWords(companion.ideInfo.name),
    });
    // After ready: said before it, a problem would read as a failed start.
    if (companion.rootsRefused) this.framing.tell({ kind: 'roots', message: companion.rootsRefused });
    for (const event of this.early.splice(0)) this.apply(event);
    await said;
    // What a killed host left accepted and unwritten, shown kept now that the end hears actions.
    void companion.diffs.keepAcceptedLeftBehind();
  }

  private async fail(err: unknown): Promise<void> {
    this.failedToStart = true;
    this.intake?.dispose();
    const message = describeError(err);
    this.options.logger.error('the companion could not start', { error: message });
    await Promise.resolve()
      .then(() => this.framing.failed(message))
      .catch(() => undefined);
    this.options.exit(this.options.failureCode?.(err) ?? 1);
  }

  private apply(event: EditorEvent): boolean {
    try {
      // An end may send its folders as it names them (Vim: its cwds, links and trailing slashes included): real paths here, as hello's.
      if (event.type === 'roots') event = { ...event, roots: event.roots.map(realPathOr) };
      if (event.type === 'diffAccepted' ? this.accept(event) : this.intake!.apply(event)) return true;
      if ('diffId' in event) this.framing.tell({ kind: 'staleDiff', message: `no pending diff ${event.diffId}` });
      else if (event.type === 'mention') this.framing.tell({ kind: 'unheardMention', message: UNHEARD_MENTION, path: event.path });
      return true;
    } catch (err) {
      this.framing.tell({ kind: event.type === 'roots' ? 'roots' : 'refused', message: describeError(err) });
      return false;
    }
  }

  /** An accept taken (its copy written, the CLI told) is acknowledged with closeDiff `accepted`: the end holds it till then (issue 37). */
  private accept(event: Extract<EditorEvent, { type: 'diffAccepted' }>): boolean {
    const companion = this.listening!;
    const diff = companion.diffs.get(event.diffId);
    if (!diff || !applyEditorEvent(companion, event)) return false;
    void companion.diffs.taken(diff);
    return true;
  }

  private refuse(message: string): false {
    this.framing.tell({ kind: 'refused', message });
    return false;
  }
}
