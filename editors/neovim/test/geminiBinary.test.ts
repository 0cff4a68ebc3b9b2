/**
 * End to end with the real `gemini` 0.61.0 binary, as a user runs it: Neovim
 * (with a UI, in tmux) loads the plugin, `:Gemini` opens the CLI in Neovim's
 * own terminal, the scripted model proposes a write_file, the diff opens in
 * Neovim, the user edits the proposal and accepts with :w, and the CLI writes
 * the user's text. Neovim is also reachable over --listen for the assertions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { submitLine, waitFor, waitIdeConnected, writeFileTurns } from '@ide-companion/testkit';
import { skipGeminiInTmux as skip, startGeminiInTmux, START_TIMEOUT_MS, STEP_TIMEOUT_MS } from './geminiInTmux.js';

const ORIGINAL = 'original line\n';
const PROPOSAL = 'line from the model\n';
const EDITED = 'line the user wrote in Neovim\n';

test(
  "gemini run with :Gemini connects to this Neovim, and a write accepted with :w after editing leaves the user's text",
  { skip, timeout: 6 * 60_000 },
  async (t) => {
    const { dir, tmux, nvim, lua, close, gemini } = await startGeminiInTmux({
      prefix: 'ide-companion-nvim-e2e-',
      files: { 'a.txt': ORIGINAL },
      turns: writeFileTurns('a.txt', PROPOSAL),
      size: [240, 60],
      args: ['-c', 'edit a.txt'],
    });
    t.after(close);
    const file = path.join(dir.workspace, 'a.txt');
    await gemini();

    assert.match((await waitIdeConnected(tmux, START_TIMEOUT_MS)).status, /Connected to Neovim/);

    await submitLine(tmux, 'please write a.txt');
    const diff = await waitFor(
      async () => (await lua<Array<{ path: string; proposal: number }>>("return require('ide_companion.diff').list()")).find((d) => d.path === file),
      'the diff in Neovim',
      STEP_TIMEOUT_MS,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tmux.screen()}`);
    });
    assert.deepEqual(await lua('return vim.api.nvim_buf_get_lines(..., 0, -1, false)', diff.proposal), ['line from the model']);
    // The user rewrites the proposal and saves it.
    await lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, { 'line the user wrote in Neovim' })", diff.proposal);
    await lua('vim.fn.win_gotoid(vim.fn.win_findbuf(...)[1])', diff.proposal);
    await nvim.command('write');

    await waitFor(() => fs.readFileSync(file, 'utf8') === EDITED, "the CLI to write the user's text", STEP_TIMEOUT_MS).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tmux.screen()}`);
    });
    // The a.txt buffer shows the new text, with no prompt waiting.
    const buf = await lua<number>('return vim.fn.bufnr(...)', file);
    await waitFor(
      async () => (await lua<string[]>('return vim.api.nvim_buf_get_lines(..., 0, -1, false)', buf))[0] === 'line the user wrote in Neovim',
      'the buffer reloaded',
      STEP_TIMEOUT_MS,
    );
    assert.equal(((await nvim.mode) as { blocking: boolean }).blocking, false);
    await tmux.waitForText(/WriteFile.*Accepted|Accepted/, STEP_TIMEOUT_MS);
  },
);
