/** Small readers of the workbench and the MCP client's view, and the user's steps at it, shared by the code-server tests. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { connectRecordingClient, sleep, waitFor, type RecordingClient, type TypingUi } from '@ide-companion/testkit';
import { CodeServer, WITH_API, type Window } from './codeServer.js';

export interface ContextFile {
  path: string;
  timestamp: number;
  isActive?: boolean;
  cursor?: { line: number; character: number };
  selectedText?: string;
}

export function discoveryOf(file: string): {
  port: number;
  authToken: string;
  workspacePath: string;
  ideInfo: { name: string; displayName: string };
  socketPath?: string;
} {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** The workspace state of the newest ide/contextUpdate. */
export function lastContext(client: RecordingClient): { openFiles: ContextFile[]; isTrusted?: boolean } | undefined {
  const updates = client.notifications.filter((n) => n.method === 'ide/contextUpdate');
  return updates[updates.length - 1]?.params.workspaceState;
}

/** Whether the keyboard is in a terminal (xterm's input element has focus). */
export function activeElementIsTerminal(page: Page): Promise<boolean> {
  return page.evaluate<boolean>("document.activeElement?.classList.contains('xterm-helper-textarea') ?? false");
}

/** What the workbench's terminals show, row by row. */
export function terminalText(page: Page): Promise<string> {
  return page.evaluate<string>("[...document.querySelectorAll('.xterm-rows')].map((e) => e.innerText).join('\\n')");
}

export function diffTabCount(win: Window): Promise<number> {
  return win.eval<number>(
    `return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'ide-companion-proposal').length;`,
  );
}

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.find((c) => c.type === 'text')?.text ?? '';
}

/** openDiff as the CLI calls it; resolves once the companion answered (the diff is showing). */
export async function openDiff(client: RecordingClient, filePath: string, newContent: string): Promise<void> {
  const result = (await client.client.callTool({ name: 'openDiff', arguments: { filePath, newContent } })) as { isError?: boolean };
  if (result.isError) throw new Error(`openDiff failed: ${textOf(result)}`);
}

/**
 * code-server started with a window on `ws` (in its dir) holding `files`
 * (relative paths), and the CLI's recording client connected to the window's
 * companion: a suite's start. A step that fails stops code-server.
 */
export async function startWithClient(files: Record<string, string>): Promise<{ cs: CodeServer; ws: string; win: Window; client: RecordingClient }> {
  const cs = new CodeServer();
  try {
    const ws = path.join(cs.dir, 'ws');
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
      fs.writeFileSync(path.join(ws, name), text);
    }
    await cs.start();
    const win = await cs.openWindow(ws);
    const discovery = discoveryOf((await win.api()).discoveryFile);
    const client = await connectRecordingClient({ port: discovery.port, token: discovery.authToken });
    return { cs, ws, win, client };
  } catch (err) {
    await cs.stop();
    throw err;
  }
}

/** Rejects every diff still pending in `win`, so one failed test does not leave its diff to the next. */
export async function rejectAllDiffs(win: Window): Promise<void> {
  await win.eval(`${WITH_API} for (const d of api.pendingDiffs()) await vscode.commands.executeCommand('ideCompanion.rejectDiff', d.id);`);
}

/** tmux's key names as Playwright's. */
const KEYS: Record<string, string> = { BSpace: 'Backspace', Escape: 'Escape', Enter: 'Enter' };

/** The user runs `command` from the command palette (F1). */
export async function palette(win: Window, command: string): Promise<void> {
  await win.page.keyboard.press('F1');
  await win.page.locator('.quick-input-widget input').waitFor({ timeout: 30_000 });
  await win.page.keyboard.type(command);
  await win.page.locator('.quick-input-list .monaco-list-row', { hasText: command }).first().waitFor({ timeout: 30_000 });
  await win.page.keyboard.press('Enter');
}

/** The keyboard where it is and the workbench's terminals as the CLI's UI (testkit's submitLine, waitIdeConnected). */
export function terminalUi(win: Window): TypingUi {
  return {
    type: (text) => win.page.keyboard.type(text),
    async keys(...keys) {
      for (const key of keys) await win.page.keyboard.press(KEYS[key] ?? key);
    },
    screen: () => terminalText(win.page),
  };
}

/**
 * "Gemini CLI: Run" from the palette with `command` (an executable, or
 * undefined to keep the setting) as ideCompanion.geminiCommand; resolves
 * once the CLI shows its prompt.
 */
export async function runGemini(win: Window, command?: string): Promise<void> {
  if (command !== undefined)
    await win.eval(`await vscode.workspace.getConfiguration('ideCompanion').update('geminiCommand', args.command, vscode.ConfigurationTarget.Global);`, {
      command,
    });
  const screen = () => terminalText(win.page);
  const fail = async (err: Error): Promise<never> => {
    throw new Error(`${err.message}\n--- terminal ---\n${await screen().catch(() => '')}`);
  };
  await palette(win, 'Gemini CLI: Run');
  // In a VS Code terminal the CLI offers to set up Shift+Enter keybindings, before or after its prompt shows: the user declines.
  const OFFER = /terminal keybindings\?/;
  const first = await waitFor(
    async () => {
      const text = await screen();
      if (/command not found/.test(text)) return 'not found';
      return OFFER.test(text) ? 'offer' : text.includes('Type your message') ? 'prompt' : undefined;
    },
    'gemini to start',
    120_000,
    250,
  ).catch(fail);
  if (first === 'not found') await fail(new Error('the shell did not find gemini'));
  if (first === 'offer' || (await waitFor(async () => OFFER.test(await screen()), 'the keybinding offer', 5_000, 250).catch(() => false))) {
    await win.page.keyboard.press('ArrowDown');
    await win.page.keyboard.press('Enter');
    // Keys that came while the dialog was still being drawn can be lost (once in CI, "No" selected but
    // not taken): Enter again, with "No" shown selected, until the dialog goes.
    const deadline = Date.now() + 60_000;
    while (OFFER.test(await screen())) {
      if (Date.now() > deadline) await fail(new Error('timed out waiting for the offer to go'));
      await sleep(2_000);
      const text = await screen();
      if (OFFER.test(text) && /● 2\. No/.test(text)) await win.page.keyboard.press('Enter');
    }
  }
  await waitFor(async () => (await screen()).includes('Type your message'), 'the prompt', 60_000, 250).catch(fail);
}
