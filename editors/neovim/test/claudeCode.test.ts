/**
 * Claude Code (issue 19), the real pinned CLI, against the companion this
 * Neovim runs: no plugin of Claude's own, only the lock file and WebSocket
 * of the Claude face. Started with --ide in the workspace, it connects; it
 * sees Neovim's selection; :GeminiSend puts the file's lines into its
 * prompt; its proposed write opens as Neovim's diff, edited and accepted
 * with :w (the user's bytes land) or rejected (the file untouched).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  claudeCommand,
  claudeProposeWriteTurns,
  claudeSubmit,
  findClaudeCode,
  makeClaudeHome,
  skipUnless,
  startAnthropicMock,
  Tmux,
  waitClaudeIdeConnected,
  waitFor,
  which,
} from '@ide-companion/testkit';
import { hasNvim, inProposal, startNeovim, TIMEOUT, waitForDiff } from './harness.js';

const claude = findClaudeCode();
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(claude !== undefined, 'Claude Code 2.1.332', 'run scripts/install-claude-code.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

/** Neovim on a.txt, a model that reads it and proposes a write, and Claude Code connected to Neovim. */
async function claudeBesideNeovim(t: TestContext) {
  const s = await startNeovim({ files: { 'a.txt': 'original line\nsecond line\n' } });
  const file = path.join(s.workspace, 'a.txt');
  const model = await startAnthropicMock(claudeProposeWriteTurns(file, 'line from the model\n'));
  const tui = new Tmux(160, 50);
  t.after(async () => {
    await tui.stop();
    await model.close();
    await s.close();
  });
  await s.discovery();
  // The harness gave the host CLAUDE_CONFIG_DIR=tmp/home/.claude: where Claude Code with HOME=tmp/home looks.
  const { home, claudeDir } = makeClaudeHome(path.join(s.tmp, 'home'), [s.workspace]);
  const info = await s.lua<{ port: number }>('return require("ide_companion.host").state.info');
  assert.ok(fs.existsSync(path.join(claudeDir, 'ide', `${info.port}.lock`)), 'the host wrote the lock file');
  tui.start(claudeCommand(claude!, { home, baseUrl: model.baseUrl }), { cwd: s.workspace });
  assert.match(await waitClaudeIdeConnected(tui, 'Neovim'), /Neovim/);
  await waitFor(
    async () => (await s.lua<Array<{ agent: string }>>('return require("ide_companion.host").state.sessions')).some((x) => x.agent === 'Claude Code'),
    'Neovim to list Claude Code',
    TIMEOUT,
  );
  return { s, file, tui, model };
}

test(
  "Claude Code sees Neovim's selection and gets :GeminiSend's lines; its proposed write opens as Neovim's diff, and the user's edit accepted with :w is what lands, byte for byte",
  { skip, timeout: 240_000 },
  async (t) => {
    const { s, file, tui, model } = await claudeBesideNeovim(t);
    assert.match((await s.lua<string[]>("return require('ide_companion').status_lines()")).join('\n'), /Claude Code: claude-code /);
    // "Send to agent": line 2 lands in Claude Code's prompt as an @-mention.
    await s.nvim.command('edit a.txt');
    await s.nvim.command('2GeminiSend');
    await waitFor(() => /a\.txt#L2/.test(tui.screen()), "the mention in Claude Code's prompt", 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    // The user selects a word in Neovim before asking: Claude Code's request carries it.
    await s.nvim.input('gg0wve');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await claudeSubmit(tui, 'please change a.txt');
    const diff = await waitForDiff(s, file).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    const first = model.agentRequests()[0] ?? '';
    assert.ok(first.includes(file) && first.includes('please change a.txt'), 'the first request carries the prompt and the file');
    // Claude Code's own words, in the JSON of the request: the selection ("line" on line 1) and its file.
    assert.ok(first.includes(`The user selected the lines 1 to 1 from ${file}:\\nline\\n`), 'the selection reaches the model');
    assert.ok(first.includes('@a.txt#L2 please change a.txt'), ':GeminiSend put line 2 into the prompt');
    assert.match((await s.lua<string[]>("return require('ide_companion').status_lines()")).join('\n'), /pending diff: .*a\.txt/);
    assert.deepEqual(await s.lua('return vim.api.nvim_buf_get_lines(..., 0, -1, false)', diff.proposal), ['line from the model']);
    await s.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, { 'the user’s line 😀', 'no final newline' })", diff.proposal);
    await s.lua('vim.bo[...].eol = false; vim.bo[...].fixeol = false', diff.proposal);
    await inProposal(s, diff.proposal, 'write');
    const expected = 'the user’s line 😀\nno final newline';
    await waitFor(() => fs.readFileSync(file, 'utf8') === expected, "Claude Code to write the user's text", TIMEOUT * 2).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tui.screen()}`);
    });
  },
);

test("Claude Code's proposed write rejected in Neovim leaves the file untouched", { skip, timeout: 240_000 }, async (t) => {
  const { s, file, tui } = await claudeBesideNeovim(t);
  await claudeSubmit(tui, 'please change a.txt');
  const diff = await waitForDiff(s, file).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
  });
  await inProposal(s, diff.proposal, 'GeminiReject');
  await waitFor(() => tui.screen().includes('Rejected write to a.txt'), 'Claude Code to hear the rejection', 30_000).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
  });
  assert.equal(fs.readFileSync(file, 'utf8'), 'original line\nsecond line\n');
});
