/**
 * Integrated terminals tied to this window: every terminal gets the
 * companion's GEMINI_CLI_IDE_* (port, workspace, token, PID), so `gemini`
 * started there connects to this window even with several windows on one
 * folder. "Gemini CLI: Run" opens gemini in a new terminal.
 */
import * as vscode from 'vscode';
import type { TerminalEnv } from '@ide-companion/server/terminalEnv';

export function applyTerminalEnv(collection: vscode.GlobalEnvironmentVariableCollection, env: TerminalEnv): void {
  // Per window: another window's companion has another port and token.
  collection.persistent = false;
  collection.description = 'Connects Gemini CLI in this terminal to this window (ide-companion).';
  collection.clear();
  for (const [name, value] of Object.entries(env)) collection.replace(name, value);
}

/** Asks for the folder in a multi-root workspace; undefined when the user cancelled. */
async function pickFolder(): Promise<vscode.Uri | undefined | null> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 0) return null;
  if (folders.length === 1) return folders[0]!.uri;
  const picked = await vscode.window.showQuickPick(
    folders.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })),
    { placeHolder: 'Run Gemini CLI in which folder?' },
  );
  return picked?.folder.uri;
}

export async function runGemini(): Promise<vscode.Terminal | undefined> {
  const cwd = await pickFolder();
  if (cwd === undefined) return undefined;
  const command = vscode.workspace.getConfiguration('ideCompanion').get<string>('geminiCommand') || 'gemini';
  const terminal = vscode.window.createTerminal({ name: 'Gemini CLI', ...(cwd && { cwd }) });
  terminal.show(false);
  terminal.sendText(command, true);
  return terminal;
}
