/**
 * Integrated terminals tied to this window: every terminal gets the
 * companion's GEMINI_CLI_IDE_* (port, workspace, token, PID), so `gemini`
 * started there connects to this window even with several windows on one
 * folder. "Gemini CLI: Run" opens gemini in a new terminal.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CONTAINER_ENV } from '@ide-companion/protocol';
import type { TerminalEnv } from '@ide-companion/server/terminalEnv';

/**
 * `inContainer`: gemini here would dial host.docker.internal (the companion's
 * containerHint), where this window's companion is not: REMOTE_CONTAINERS=1
 * sends it to 127.0.0.1, as in a VS Code dev container.
 */
export function applyTerminalEnv(collection: vscode.GlobalEnvironmentVariableCollection, env: TerminalEnv, inContainer = false): void {
  // Per window: another window's companion has another port and token.
  collection.persistent = false;
  collection.description = inContainer
    ? `Connects Gemini CLI in this terminal to this window (ide-companion); ${CONTAINER_ENV.REMOTE_CONTAINERS}=1 so that in this container it dials 127.0.0.1, not host.docker.internal.`
    : 'Connects Gemini CLI in this terminal to this window (ide-companion).';
  collection.clear();
  for (const [name, value] of Object.entries(env)) collection.replace(name, value);
  if (inContainer) collection.replace(CONTAINER_ENV.REMOTE_CONTAINERS, '1');
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

/** `program` (a name or a path) as an executable file's absolute path, looked up on this process's PATH; undefined when there is none. */
export function findExecutable(program: string, pathVariable = process.env['PATH'] ?? ''): string | undefined {
  const candidates = program.includes('/')
    ? [path.resolve(program)]
    : pathVariable
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, program));
  for (const candidate of candidates) {
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/**
 * Opens gemini in a new terminal. The command, when it is one program found
 * from this window, runs as the terminal's own process: a login shell that
 * resets PATH (a profile that sets it anew) would not find it ("gemini:
 * command not found", issue 30). A command line of several words is the
 * user's own: typed into the shell as they wrote it, as is a program not
 * found here (the shell may find it), with the fix said in case it does not.
 */
export async function runGemini(): Promise<vscode.Terminal | undefined> {
  const command = (vscode.workspace.getConfiguration('ideCompanion').get<string>('geminiCommand') || 'gemini').trim();
  const oneProgram = !/\s/.test(command);
  const program = oneProgram ? findExecutable(command) : undefined;
  if (oneProgram && !program) {
    // The shell may still find it (its profile can add to PATH): typed there, and the fix said in case it does not.
    void vscode.window.showWarningMessage(
      `\`${command}\` is not on this window's PATH. If the terminal says "command not found": install Gemini CLI (npm install -g @google/gemini-cli), or set "ideCompanion.geminiCommand" to its full path.`,
    );
  }
  const cwd = await pickFolder();
  if (cwd === undefined) return undefined;
  const terminal = vscode.window.createTerminal({ name: 'Gemini CLI', ...(cwd && { cwd }), ...(program && { shellPath: program, shellArgs: [] }) });
  terminal.show(false);
  if (!program) terminal.sendText(command, true);
  return terminal;
}
