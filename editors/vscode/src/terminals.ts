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
import { startSessionReaper, type SessionReaper } from '@ide-companion/server/reaper';
import type { TerminalEnv } from '@ide-companion/server/terminalEnv';
import { acpLauncher } from '@ide-companion/shared/acpLauncher';

/**
 * In a container the companion's variables hold REMOTE_CONTAINERS=1
 * (server/terminalEnv.ts): gemini there would dial host.docker.internal,
 * where this window's companion is not; with it, 127.0.0.1, as in a VS Code
 * dev container. The description says so.
 */
export function applyTerminalEnv(collection: vscode.GlobalEnvironmentVariableCollection, env: TerminalEnv): void {
  const inContainer = env[CONTAINER_ENV.REMOTE_CONTAINERS] !== undefined;
  // Per window: another window's companion has another port and token.
  collection.persistent = false;
  collection.description = inContainer
    ? `Connects Gemini CLI in this terminal to this window (ide-companion); ${CONTAINER_ENV.REMOTE_CONTAINERS}=1 so that in this container it dials 127.0.0.1, not host.docker.internal.`
    : 'Connects Gemini CLI in this terminal to this window (ide-companion).';
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
 * The PATH of the process that started this extension host (code-server's
 * server, VS Code's main process), read from /proc (Linux): VS Code gives
 * the extension host the login shell's environment, so a profile that resets
 * PATH hides what was on the PATH code-server was started with.
 */
export function launchPath(ppid = process.ppid): string | undefined {
  try {
    const entry = fs
      .readFileSync(`/proc/${ppid}/environ`, 'utf8')
      .split('\0')
      .find((e) => e.startsWith('PATH='));
    return entry?.slice('PATH='.length);
  } catch {
    return undefined;
  }
}

/**
 * Where `program` is: on this window's PATH, else on the PATH its extension
 * host was started with (then `PATH` is that one, for the terminal, so a
 * `#!/usr/bin/env node` script finds the node it was installed with).
 */
export function findProgram(program: string, hostPath = process.env['PATH'] ?? '', startPath = launchPath()): { program: string; PATH?: string } | undefined {
  const here = findExecutable(program, hostPath);
  if (here) return { program: here };
  const there = startPath !== undefined && startPath !== hostPath ? findExecutable(program, startPath) : undefined;
  return there ? { program: there, PATH: startPath! } : undefined;
}

/**
 * Opens gemini in a new terminal. The command, when it is one program,
 * runs as the terminal's own process: a login shell that resets PATH (a
 * profile that sets it anew) would not find it ("gemini: command not found",
 * issues 30 and 39), and neither does the window, whose environment comes
 * from that shell: it is looked for on the PATH the window was started with
 * too. Found nowhere, a modal says so with the fix, and no terminal opens. A
 * command line of several words is the user's own: typed into the shell.
 */
export async function runGemini(): Promise<vscode.Terminal | undefined> {
  const command = (vscode.workspace.getConfiguration('ideCompanion').get<string>('geminiCommand') || 'gemini').trim();
  const oneProgram = !/\s/.test(command);
  const startPath = launchPath();
  const found = oneProgram ? findProgram(command, process.env['PATH'], startPath) : undefined;
  if (oneProgram && !found) {
    const settings = 'Open Settings';
    const where = startPath === undefined ? "this window's PATH" : "this window's PATH, nor on the PATH it was started with";
    const answer = await vscode.window.showErrorMessage(
      `Gemini CLI: \`${command}\` was not found on ${where}.`,
      {
        modal: true,
        detail: `Install Gemini CLI (npm install -g @google/gemini-cli), or set "ideCompanion.geminiCommand" to its full path (\`which ${command}\` in a shell that finds it).`,
      },
      settings,
    );
    if (answer === settings) await vscode.commands.executeCommand('workbench.action.openSettings', 'ideCompanion.geminiCommand');
    return undefined;
  }
  const cwd = await pickFolder();
  if (cwd === undefined) return undefined;
  const terminal = vscode.window.createTerminal({
    name: 'Gemini CLI',
    // Not kept for the window to come back to (code-server's persistent sessions): it ends with the window.
    isTransient: true,
    ...(cwd && { cwd }),
    ...(found && { shellPath: found.program, shellArgs: [] }),
    ...(found?.PATH !== undefined && { env: { PATH: found.PATH } }),
  });
  endWithWindow(terminal);
  terminal.show(false);
  if (!found) terminal.sendText(command, true);
  return terminal;
}

/**
 * "ide-companion: Run ACP Agent": the agent of ideCompanion.agentCommand (else
 * asked) under `ide-companion agent --` (shared/acpLauncher.ts, from this
 * extension's folder), as the terminal's own process: no shell. Its terminal
 * gets the companion's variables as every terminal of this window does.
 */
export async function runAgent(extensionPath: string): Promise<vscode.Terminal | undefined> {
  let command = vscode.workspace.getConfiguration('ideCompanion').get<string[]>('agentCommand') ?? [];
  if (command.length === 0) {
    const typed = await vscode.window.showInputBox({
      prompt: 'The ACP agent to run (`ide-companion agent --list` names the ones on PATH)',
      placeHolder: 'gemini --acp',
    });
    command = typed?.split(/\s+/).filter(Boolean) ?? [];
    if (command.length === 0) return undefined;
  }
  const startPath = launchPath();
  // Looked for on the window's PATH, then on the one it was started with (as gemini is, above).
  const acp = acpLauncher(path.join(extensionPath, 'package.json'), [process.env['PATH'], startPath].filter(Boolean).join(path.delimiter));
  const found = findProgram(command[0]!, process.env['PATH'], startPath);
  const why =
    acp.missing ??
    (found
      ? undefined
      : `\`${command[0]}\` was not found on this window's PATH, nor on the PATH it was started with: install it, or set "ideCompanion.agentCommand" to its full path.`);
  if (why || !acp.argv) {
    void vscode.window.showErrorMessage(`ide-companion: ${why}`);
    return undefined;
  }
  const cwd = await pickFolder();
  if (cwd === undefined) return undefined;
  const [program, ...args] = [...acp.argv, found!.program, ...command.slice(1)];
  const terminal = vscode.window.createTerminal({
    name: 'ACP agent',
    isTransient: true,
    ...(cwd && { cwd }),
    shellPath: program!,
    shellArgs: args,
    ...(found!.PATH !== undefined && { env: { PATH: found!.PATH } }),
  });
  endWithWindow(terminal);
  terminal.show(false);
  return terminal;
}

/**
 * The reapers of the terminals "Gemini CLI: Run" opened: each ends its
 * terminal's session when this extension host ends, however it ends (the
 * window closed or reloaded, code-server stopped or Ctrl-C'd). code-server
 * keeps a window's terminals running for it to come back (persistent
 * sessions, on by default), and gemini outlived the hangup its terminal got
 * when code-server was Ctrl-C'd: it ran on, disconnected, with no window
 * (issue 39).
 */
const reapers = new Map<vscode.Terminal, Promise<SessionReaper | undefined>>();

function endWithWindow(terminal: vscode.Terminal): void {
  reapers.set(
    terminal,
    Promise.resolve(terminal.processId).then((pid) => (pid ? startSessionReaper(pid) : undefined)),
  );
}

/** A terminal closed: a program that ended by itself leaves nothing to end; one closed by the user ends now; by the window going, with this host. */
export function terminalClosed(terminal: vscode.Terminal): void {
  const reaper = reapers.get(terminal);
  if (!reaper) return;
  const reason = terminal.exitStatus?.reason;
  if (reason === vscode.TerminalExitReason.Shutdown) return;
  reapers.delete(terminal);
  void reaper.then((r) => (reason === vscode.TerminalExitReason.Process ? r?.dispose() : r?.end()));
}

/** This extension host is going: every terminal Run opened ends now. */
export function endRunTerminals(): void {
  for (const reaper of reapers.values()) void reaper.then((r) => r?.end());
  reapers.clear();
}
