/**
 * The status bar item: how many agent sessions (Gemini CLI's, Qwen Code's,
 * Claude Code's) are connected to this window, named in its tooltip; a click opens a quick pick with the companion's status, its log and
 * the diffs waiting for a decision.
 */
import * as vscode from 'vscode';
import type { SessionInfo } from '@ide-companion/server/sessions';
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';

export interface StatusSource {
  state(): { running: boolean; port?: number; socketPath?: string; workspacePath?: string; error?: string; disabled?: boolean };
  sessions(): SessionInfo[];
  /** The agents served, as the user reads them. */
  agents(): string[];
  pendingDiffs(): Array<{ id: string; filePath: string }>;
  showLog(): void;
  revealDiff(id: string): Promise<void>;
}

export const SHOW_STATUS_COMMAND = 'ideCompanion.showStatus';

export class CompanionStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('ideCompanion.status', vscode.StatusBarAlignment.Right, 100);

  constructor(private readonly source: StatusSource) {
    this.item.name = 'Gemini CLI Companion';
    this.item.command = SHOW_STATUS_COMMAND;
    this.update();
    this.item.show();
  }

  update(): void {
    const state = this.source.state();
    const count = this.source.sessions().length;
    if (state.disabled) {
      this.item.text = '$(circle-slash) Gemini';
      this.item.tooltip = 'Gemini CLI companion turned off in this workspace (ideCompanion.enabled)';
    } else if (!state.running) {
      this.item.text = state.error ? '$(warning) Gemini' : '$(loading~spin) Gemini';
      this.item.tooltip = state.error ? `Gemini CLI companion failed: ${state.error}` : 'Gemini CLI companion starting';
    } else {
      this.item.text = count > 0 ? `$(sparkle) Gemini ${count}` : '$(sparkle) Gemini';
      // Named by agent: the count is any agent's (Claude Code's, Qwen Code's), not Gemini CLI's alone.
      const agents = [...new Set(this.source.sessions().map((s) => AGENT_DISPLAY_NAMES[s.agent]))].join(', ');
      this.item.tooltip = `Gemini CLI companion on port ${state.port}: ${count} CLI session${count === 1 ? '' : 's'} connected${agents ? ` (${agents})` : ''}`;
    }
  }

  async showQuickPick(): Promise<void> {
    const state = this.source.state();
    const sessions = this.source.sessions();
    type Item = vscode.QuickPickItem & { run?: () => unknown };
    const items: Item[] = [
      {
        label: state.running
          ? `$(sparkle) Listening on 127.0.0.1:${state.port}`
          : state.disabled
            ? '$(circle-slash) Turned off'
            : `$(warning) Not running${state.error ? `: ${state.error}` : ''}`,
        detail: state.workspacePath ? `Workspace: ${state.workspacePath}` : 'No folder open: gemini needs a folder of this window',
      },
      ...(state.socketPath
        ? [
            {
              label: `$(plug) Socket: ${state.socketPath}`,
              detail: 'For gemini in a container, --sandbox or over SSH: ide-companion container, sandbox or ssh HOST (docs/remote.md)',
            },
          ]
        : []),
      {
        label: `${sessions.length} CLI session${sessions.length === 1 ? '' : 's'} connected (${this.source.agents().join(', ')} served)`,
        kind: vscode.QuickPickItemKind.Separator,
      },
      ...sessions.map((s) => ({
        label: `$(terminal) ${AGENT_DISPLAY_NAMES[s.agent]}: ${s.clientName ?? 'client'} ${s.clientVersion ?? ''}`.trim(),
        description: s.streamOpen ? 'listening' : 'no event stream',
        detail: `since ${new Date(s.connectedAt).toLocaleTimeString()}`,
      })),
      { label: 'Diffs waiting', kind: vscode.QuickPickItemKind.Separator },
      ...this.source.pendingDiffs().map((d) => ({ label: `$(diff) ${vscode.workspace.asRelativePath(d.filePath)}`, run: () => this.source.revealDiff(d.id) })),
      { label: '', kind: vscode.QuickPickItemKind.Separator },
      { label: '$(output) Show log', run: () => this.source.showLog() },
      { label: '$(terminal) Run Gemini CLI', run: () => vscode.commands.executeCommand('ideCompanion.runGemini') },
    ];
    const picked = await vscode.window.showQuickPick(items, { placeHolder: 'Gemini CLI companion' });
    await picked?.run?.();
  }

  dispose(): void {
    this.item.dispose();
  }
}
