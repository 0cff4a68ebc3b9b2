/**
 * The VS Code extension: a Companion from @ide-companion/server running in the
 * extension host itself (no child process), fed by VS Code's events, showing
 * diffs in the native diff editor, and tying every integrated terminal of this
 * window to it. Bundled into dist/extension.cjs (scripts/bundle.mjs).
 */
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { UNHEARD_MENTION, type EditorEvent } from '@ide-companion/protocol';
import { applyEditorEvent } from '@ide-companion/server/editorEvents';
import { AGENT_DISPLAY_NAMES, parseAgents } from '@ide-companion/shared/agentPaths';
import { Companion } from '@ide-companion/server/companion';
import { describeError } from '@ide-companion/server/logger';
import { type EditorActions } from '@ide-companion/server/editorActions';
import { type SessionInfo } from '@ide-companion/server/sessions';
import { vscodeCapabilities } from './capabilities.js';
import { ContextFeed, workspaceRoots } from './contextFeed.js';
import { openDraftsHandedOver, openDraftsLeftBehind, VsCodeDiffs } from './diffs.js';
import { warnAboutGoogleCompanion } from './googleGuard.js';
import { idePidFor, ideInfoFor } from './ideInfo.js';
import { OutputChannelLogger } from './logger.js';
import { CompanionStatusBar, SHOW_STATUS_COMMAND } from './statusBar.js';
import { applyTerminalEnv, endRunTerminals, runAgent, runGemini, terminalClosed } from './terminals.js';

/** What `activate` returns: for other extensions and the tests, never the token. */
export interface CompanionApi {
  /** How long activate() took (ms), companion start included. */
  readonly activationMs: number;
  readonly running: boolean;
  readonly port: number | undefined;
  readonly discoveryFile: string | undefined;
  /** The Unix socket for gemini elsewhere (docs/remote.md). */
  readonly socketPath: string | undefined;
  readonly workspacePath: string | undefined;
  readonly idePid: number;
  readonly ideInfo: { name: string; displayName: string };
  sessions(): SessionInfo[];
  pendingDiffs(): Array<{ id: string; filePath: string }>;
  readonly capabilities: typeof vscodeCapabilities;
}

class CompanionExtension implements vscode.Disposable {
  readonly logger = new OutputChannelLogger();
  readonly idePid = idePidFor(process.ppid, process.pid);
  readonly ideInfo = ideInfoFor(vscode.env.appName, vscode.env.appHost);
  private companion: Companion | undefined;
  private feed: ContextFeed | undefined;
  private diffs: VsCodeDiffs | undefined;
  private error: string | undefined;
  private handovers: vscode.Disposable | undefined;
  private readonly statusBar: CompanionStatusBar;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly context: vscode.ExtensionContext) {
    this.statusBar = new CompanionStatusBar({
      state: () => ({
        running: this.companion?.running ?? false,
        port: this.companion?.running ? this.companion.port : undefined,
        socketPath: this.companion?.socketPath,
        workspacePath: this.companion?.workspacePath,
        error: this.error,
        disabled: !this.enabled,
      }),
      sessions: () => this.companion?.sessionList ?? [],
      agents: () => (this.companion?.agents ?? []).map((a) => AGENT_DISPLAY_NAMES[a]),
      pendingDiffs: () => this.pendingDiffs(),
      showLog: () => this.logger.show(),
      revealDiff: (id) => this.diffs?.reveal(id) ?? Promise.resolve(),
    });
    const command = (id: string, run: (...args: unknown[]) => unknown) => vscode.commands.registerCommand(id, run);
    this.disposables.push(
      this.logger,
      this.statusBar,
      command('ideCompanion.runGemini', () => runGemini()),
      command('ideCompanion.runAgent', () => runAgent(this.context.extensionPath)),
      command('ideCompanion.acceptDiff', (target) => this.diffs?.accept(target)),
      command('ideCompanion.rejectDiff', (target) => this.diffs?.reject(target)),
      command(SHOW_STATUS_COMMAND, () => this.statusBar.showQuickPick()),
      command('ideCompanion.showLog', () => this.logger.show()),
      command('ideCompanion.sendToAgent', () => this.sendToAgent()),
      vscode.window.onDidCloseTerminal((t) => terminalClosed(t)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('ideCompanion.enabled')) void this.applyEnabled();
      }),
    );
  }

  /**
   * "Send to agent": the active file, or the lines of its selection, to the
   * connected Claude Code (its at_mentioned; Gemini CLI and Qwen Code have
   * no such channel). Says so when none is connected.
   */
  private sendToAgent(): number {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== 'file') {
      void vscode.window.showWarningMessage('Send to Claude Code: the active editor shows no file on disk.');
      return 0;
    }
    const { selection } = editor;
    // A selection ending at the start of a line does not take that line.
    const endLine = selection.end.character === 0 && selection.end.line > selection.start.line ? selection.end.line - 1 : selection.end.line;
    const sent = selection.isEmpty
      ? (this.companion?.mention(editor.document.uri.fsPath) ?? 0)
      : (this.companion?.mention(editor.document.uri.fsPath, selection.start.line + 1, endLine + 1) ?? 0);
    if (sent === 0) void vscode.window.showWarningMessage(`Send to agent: ${UNHEARD_MENTION}.`);
    return sent;
  }

  get enabled(): boolean {
    return vscode.workspace.getConfiguration('ideCompanion').get<boolean>('enabled', true);
  }

  /** The API object: live getters over this extension's companion. */
  api(activationMs: number): CompanionApi {
    const companion = () => this.companion;
    return Object.defineProperties(
      {
        activationMs,
        idePid: this.idePid,
        ideInfo: this.ideInfo,
        capabilities: vscodeCapabilities,
        sessions: () => companion()?.sessionList ?? [],
        pendingDiffs: () => this.pendingDiffs(),
      },
      {
        running: { enumerable: true, get: () => companion()?.running ?? false },
        port: { enumerable: true, get: () => (companion()?.running ? companion()!.port : undefined) },
        discoveryFile: { enumerable: true, get: () => companion()?.discoveryFilePath },
        socketPath: { enumerable: true, get: () => companion()?.socketPath },
        workspacePath: { enumerable: true, get: () => companion()?.workspacePath },
      },
    ) as CompanionApi;
  }

  async applyEnabled(): Promise<void> {
    if (this.enabled) await this.start();
    else if (this.companion) {
      await this.stop('turned off by ideCompanion.enabled');
      // This window stays: the edits its proposals had are opened here, now.
      void openDraftsLeftBehind(this.logger);
    }
    this.statusBar.update();
  }

  private async start(): Promise<void> {
    if (this.companion) return;
    const emit = (event: EditorEvent): boolean => {
      const companion = this.companion;
      if (!companion) return false;
      try {
        return applyEditorEvent(companion, event);
      } catch (err) {
        this.logger.warn('dropped an editor event', { type: event.type, error: describeError(err) });
        if (event.type === 'roots') void vscode.window.showWarningMessage(`Gemini CLI companion: ${describeError(err)}`);
        return false;
      }
    };
    const diffs = new VsCodeDiffs(
      {
        accept: (diffId, content) => emit(content === undefined ? { type: 'diffAccepted', diffId } : { type: 'diffAccepted', diffId, content }),
        reject: (diffId) => emit({ type: 'diffRejected', diffId }),
      },
      this.logger,
    );
    // Diffs, and every capability VS Code has: each one's MCP tool is offered.
    const editor: EditorActions = {
      showDiff: (diff) => diffs.showDiff(diff),
      diffText: (diff) => diffs.diffText(diff),
      closeDiff: (diff, reason) => diffs.closeDiff(diff, reason),
      ...vscodeCapabilities,
    };
    const setting = vscode.workspace.getConfiguration('ideCompanion').inspect<string[]>('agents');
    const chosenAgents = setting?.workspaceFolderValue ?? setting?.workspaceValue ?? setting?.globalValue;
    const ampSetting = vscode.workspace.getConfiguration('ideCompanion').inspect<string>('ampEditFile');
    const ampEditFile = ampSetting?.workspaceFolderValue ?? ampSetting?.workspaceValue ?? ampSetting?.globalValue;
    const companion = new Companion({
      ideInfo: this.ideInfo,
      workspaceRoots: workspaceRoots(),
      idePid: this.idePid,
      editor,
      logger: this.logger,
      trusted: vscode.workspace.isTrusted,
      handleSignals: false,
      // The extension host killed with -9 (a crash, an out-of-memory kill) runs no handler: a reaper removes its files.
      reapOnKill: true,
      // Only a list the user set names agents (whose folders are then made); the default serves the agents the user has.
      ...(chosenAgents && { agents: parseAgents(chosenAgents.join(',')) }),
      // Only a value the user set: unset, IDE_COMPANION_AMP_EDIT decides, else review.
      ...((ampEditFile === 'review' || ampEditFile === 'buffer') && { faceSettings: { amp: { editFile: ampEditFile } } }),
    });
    this.companion = companion;
    if (companion.rootsRefused) void vscode.window.showWarningMessage(`Gemini CLI companion: ${companion.rootsRefused}`);
    this.diffs = diffs;
    const feed = new ContextFeed((event) => void emit(event));
    this.feed = feed;
    try {
      await companion.start();
    } catch (err) {
      this.error = describeError(err);
      this.logger.error('the companion could not start', { error: this.error });
      void vscode.window.showErrorMessage(`Gemini CLI companion could not start: ${this.error}`);
      this.companion = undefined;
      this.feed = undefined;
      this.diffs = undefined;
      diffs.dispose();
      return;
    }
    this.error = undefined;
    feed.start();
    // What a killed extension host left accepted and unwritten: shown kept, as an unwritten accept is.
    void companion.diffs.keepAcceptedLeftBehind();
    if (companion.containerHint !== undefined)
      this.logger.info('in a container: terminals get REMOTE_CONTAINERS=1, so gemini there dials this window on 127.0.0.1');
    const applyEnv = () => applyTerminalEnv(this.context.environmentVariableCollection, companion.terminalEnv);
    applyEnv();
    companion.context.onDidChangeRoots(() => applyEnv());
    companion.onDidChangeSessions(() => this.statusBar.update());
    this.logger.info('companion ready', { port: companion.port, idePid: this.idePid, ide: this.ideInfo.displayName });
  }

  /** Until this extension host stops: edits other windows hand over are opened here. */
  watchHandovers(): void {
    this.handovers ??= openDraftsHandedOver(this.logger);
  }

  stopWatchingHandovers(): void {
    this.handovers?.dispose();
    this.handovers = undefined;
  }

  async stop(reason: string): Promise<void> {
    const companion = this.companion;
    if (!companion) return;
    this.logger.info('stopping the companion', { reason });
    this.companion = undefined;
    this.feed?.dispose();
    this.feed = undefined;
    this.context.environmentVariableCollection.clear();
    await companion.stop().catch((err) => this.logger.error('stop failed', { error: describeError(err) }));
    this.diffs?.dispose();
    this.diffs = undefined;
  }

  private pendingDiffs(): Array<{ id: string; filePath: string }> {
    return (this.diffs?.pending ?? []).map((d) => ({ id: d.id, filePath: d.filePath }));
  }

  dispose(): void {
    this.stopWatchingHandovers();
    for (const d of this.disposables) d.dispose();
  }
}

let current: CompanionExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<CompanionApi> {
  const started = performance.now();
  const extension = new CompanionExtension(context);
  current = extension;
  context.subscriptions.push(extension);
  await extension.applyEnabled();
  void warnAboutGoogleCompanion();
  void openDraftsLeftBehind(extension.logger);
  extension.watchHandovers();
  const activationMs = performance.now() - started;
  extension.logger.info('activated', { ms: Math.round(activationMs * 10) / 10 });
  return extension.api(activationMs);
}

/** The extension host is going away (window closed or reloaded): the discovery file goes first. */
export async function deactivate(): Promise<void> {
  const extension = current;
  current = undefined;
  // First, so this host's own handed-over edits are left for the window that comes next.
  extension?.stopWatchingHandovers();
  endRunTerminals();
  await extension?.stop('window closing');
}
