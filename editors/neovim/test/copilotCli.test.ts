/**
 * GitHub Copilot CLI (issue 31), the real pinned CLI (no sign-in: a custom
 * provider on testkit's OpenAI-compatible mock), beside this Neovim: it finds
 * the companion through its lock file in COPILOT_HOME/ide and connects over
 * the companion's Unix socket; Neovim lists it; the selection made in Neovim
 * reaches the model's request (selection_changed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { COPILOT_AGENT_PROMPT, copilotCommand, findCopilotCli, skipUnless, startOpenAiMock, waitFor, which } from '@ide-companion/testkit';
import { besideNeovim, neovimLists } from './agentBeside.js';
import { hasNvim } from './harness.js';

const copilot = findCopilotCli();
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(copilot !== undefined, 'GitHub Copilot CLI 1.0.102', 'run scripts/install-copilot-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test("copilot connects to Neovim's companion and is listed; Neovim's selection reaches the model", { skip, timeout: 240_000 }, async (t) => {
  const { s, model, tui } = await besideNeovim(
    t,
    { files: { 'a.txt': 'alpha line\nbeta line\ngamma line\n' }, copilot: true },
    () => startOpenAiMock([{ text: 'Hello.' }, { text: 'Done.' }], COPILOT_AGENT_PROMPT),
    [180, 50],
  );
  const file = path.join(s.workspace, 'a.txt');
  tui.start(copilotCommand(copilot!, { home: path.join(s.tmp, 'home'), baseUrl: model.baseUrl }), { cwd: s.workspace });
  await neovimLists(s, tui, 'GitHub Copilot CLI');
  await tui.waitForText('Do you trust the files in this folder?', 60_000);
  tui.keys('Enter');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await tui.submit('hello', 10_000);
  await tui.waitForText('Hello.', 60_000);
  await new Promise((resolve) => setTimeout(resolve, 2_000));

  // The user selects "beta" in Neovim, then asks: Copilot CLI's request carries the selection.
  await s.nvim.command('edit a.txt');
  await s.nvim.input('2G0ve');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await tui.submit('what is selected', 10_000);
  const second = await waitFor(() => model.agentRequests()[1], 'the second request', 60_000).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
  });
  assert.ok(second.includes('what is selected'), 'the prompt reached the model');
  const users = (JSON.parse(second) as { messages: Array<{ role: string; content: unknown }> }).messages.filter((m) => m.role === 'user');
  const asked = String(users.at(-1)?.content);
  // Copilot CLI's own words: the selection (selection_changed) as an <ide_selection> block, the file relative to its folder.
  assert.ok(
    asked.includes('<ide_selection>') && asked.includes('File: a.txt (line 2)') && asked.includes('```\nbeta\n```'),
    `the selection reaches the model: ${asked}`,
  );
  assert.ok(file.endsWith('a.txt'));
});
