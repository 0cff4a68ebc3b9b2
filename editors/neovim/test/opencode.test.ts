/**
 * opencode (issue 31), the real pinned CLI, beside this Neovim: it finds the
 * companion through the Claude face's lock file (as Claude Code does) and
 * listens for selection_changed and at_mentioned. Neovim lists it as
 * opencode (its initialize's clientInfo), not Claude Code; the selection
 * made in Neovim reaches the model's request, and :GeminiSend's lines land
 * in its prompt.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { findOpencode, OPENCODE_AGENT_PROMPT, opencodeCommand, skipUnless, startOpenAiMock, waitFor, which } from '@ide-companion/testkit';
import { besideNeovim, neovimLists } from './agentBeside.js';
import { hasNvim } from './harness.js';

const opencode = findOpencode();
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(opencode !== undefined, 'opencode 1.18.33', 'run scripts/install-opencode.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test("opencode connects to Neovim's companion and is named opencode; Neovim's selection reaches the model", { skip, timeout: 240_000 }, async (t) => {
  const { s, model, tui } = await besideNeovim(
    t,
    { files: { 'a.txt': 'alpha line\nbeta line\ngamma line\n' } },
    () => startOpenAiMock([{ text: 'Done.' }, { text: 'Done.' }], OPENCODE_AGENT_PROMPT),
    [180, 50],
  );
  const file = path.join(s.workspace, 'a.txt');
  // The harness gave the host CLAUDE_CONFIG_DIR=tmp/home/.claude: opencode with HOME=tmp/home reads ~/.claude/ide.
  tui.start(opencodeCommand(opencode!, { home: path.join(s.tmp, 'home'), baseUrl: model.baseUrl }), { cwd: s.workspace });
  await neovimLists(s, tui, 'opencode');
  assert.match((await s.lua<string[]>("return require('ide_companion').status_lines()")).join('\n'), /opencode/);
  await tui.waitForText('Ask anything', 60_000);

  // The user selects "beta" in Neovim, then asks: opencode's request carries the selection.
  await s.nvim.command('edit a.txt');
  await s.nvim.input('2G0ve');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await tui.submit('what is selected', 10_000);
  const first = await waitFor(() => model.agentRequests()[0], 'the first request', 60_000).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
  });
  assert.ok(first.includes('what is selected'), 'the prompt reached the model');
  assert.ok(first.includes('beta') && first.includes(file), `the selection and its file reach the model: ${first.slice(-1500)}`);
  await s.nvim.input('<Esc>');
});
