/** Small readers of the workbench and the MCP client's view, shared by the code-server tests. */
import * as fs from 'node:fs';
import type { Page } from 'playwright-core';
import type { RecordingClient } from '@ide-companion/testkit';
import { WITH_API, type Window } from './codeServer.js';

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

/** Rejects every diff still pending in `win`, so one failed test does not leave its diff to the next. */
export async function rejectAllDiffs(win: Window): Promise<void> {
  await win.eval(`${WITH_API} for (const d of api.pendingDiffs()) await vscode.commands.executeCommand('ideCompanion.rejectDiff', d.id);`);
}
