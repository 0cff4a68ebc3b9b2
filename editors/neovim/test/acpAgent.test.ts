/**
 * :IdeAgent runs an ACP agent (the real Gemini CLI 0.61.0 `--acp`, scripted
 * turns, its own IDE mode off) under `ide-companion agent` in Neovim's terminal:
 * it connects to this Neovim, and the write it proposes opens Neovim's diff,
 * where the user's edit accepted with :w lands byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor, writeFileTurns } from '@ide-companion/testkit';
import { skipGeminiInTmux as skip, startGeminiInTmux, START_TIMEOUT_MS, STEP_TIMEOUT_MS } from './geminiInTmux.js';

const EDITED = 'line the user wrote in Neovim ✓\n';

test(':IdeAgent runs an ACP agent connected to this Neovim; its write opens the diff and the edited accept lands', { skip, timeout: 6 * 60_000 }, async (t) => {
  const { dir, tmux, lua, nvim, close } = await startGeminiInTmux({
    prefix: 'ide-companion-nvim-acp-',
    files: { 'a.txt': 'original line\n' },
    turns: writeFileTurns('a.txt', 'line from the model\n', 'Wrote it.'),
    size: [240, 60],
    args: ['-c', 'edit a.txt'],
    acp: true,
  });
  let pid = 0;
  t.after(async () => {
    if (pid) process.kill(-pid, 'SIGKILL');
    await close();
  });
  const file = path.join(dir.workspace, 'a.txt');
  await nvim.command('IdeAgent');
  pid = await waitFor(
    async () => (await lua<number | false>("local t = require('ide_companion.terminal').info('agent'); return t and t.pid or false")) || undefined,
    'the agent terminal',
    STEP_TIMEOUT_MS,
  );
  await tmux.waitForText('IDE: connected to Neovim', START_TIMEOUT_MS);
  await tmux.waitForText('[agent: ', START_TIMEOUT_MS);
  tmux.type('please write a.txt');
  tmux.keys('Enter');
  const diff = await waitFor(
    async () => (await lua<Array<{ path: string; proposal: number }>>("return require('ide_companion.diff').list()")).find((d) => d.path === file),
    'the diff in Neovim',
    STEP_TIMEOUT_MS,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tmux.screen()}`);
  });
  assert.deepEqual(await lua('return vim.api.nvim_buf_get_lines(..., 0, -1, false)', diff.proposal), ['line from the model']);
  await lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, { 'line the user wrote in Neovim ✓' })", diff.proposal);
  await lua('vim.fn.win_gotoid(vim.fn.win_findbuf(...)[1])', diff.proposal);
  await nvim.command('write');
  await tmux.waitForText('Wrote it.', STEP_TIMEOUT_MS);
  assert.equal(fs.readFileSync(file, 'utf8'), EDITED);
});
