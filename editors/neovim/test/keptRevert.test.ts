/**
 * Issue 30: accept a diff with :w (gemini writes the file), revert the file
 * with git, quit gemini: a tab came back saying the CLI had gone away before
 * writing (it had written, seconds before), its status line still saying
 * ":w accepts". An accept the CLI was seen writing is not kept. Walked as a
 * user does: the real `gemini` in `:Gemini`'s terminal, every key typed in
 * tmux, `git checkout` on the file, `/quit`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipUnless, sleep, submitLine, waitFor, waitIdeConnected, which, writeFileTurns } from '@ide-companion/testkit';
import { skipGeminiInTmux, startGeminiInTmux, START_TIMEOUT_MS, STEP_TIMEOUT_MS } from './geminiInTmux.js';

const skip = skipGeminiInTmux || skipUnless(which('git') !== undefined, 'git', 'apt-get install -y git');

test('accepted with :w and written, the file reverted with git, gemini quit: no kept proposal comes back', { skip, timeout: 6 * 60_000 }, async (t) => {
  const { dir, tmux, lua, close, gemini } = await startGeminiInTmux({
    prefix: 'ide-companion-nvim-revert-',
    files: { 'a.txt': 'committed\n' },
    turns: writeFileTurns('a.txt', 'from the model\n'),
    size: [200, 50],
  });
  t.after(close);
  const { workspace } = dir;
  const file = path.join(workspace, 'a.txt');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: workspace, stdio: 'pipe' });
  git('init', '-q');
  git('add', 'a.txt');
  git('commit', '-q', '-m', 'a');
  const proposals = () =>
    lua<number>(
      "local n = 0 for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.api.nvim_buf_get_name(b):match('^ide%-companion://%d+/proposed') then n = n + 1 end end return n",
    );

  await gemini();
  await waitIdeConnected(tmux, START_TIMEOUT_MS);

  await submitLine(tmux, 'please write a.txt');
  await waitFor(async () => (await proposals()) === 1, 'the diff', STEP_TIMEOUT_MS);
  tmux.type(':w');
  tmux.keys('Enter');
  await waitFor(() => fs.readFileSync(file, 'utf8') === 'from the model\n', 'gemini wrote a.txt', STEP_TIMEOUT_MS);
  await tmux.waitForText(/Done\./, STEP_TIMEOUT_MS);

  // The user takes the change back, then quits gemini.
  git('checkout', '--', 'a.txt');
  assert.equal(fs.readFileSync(file, 'utf8'), 'committed\n');
  await submitLine(tmux, '/quit');
  await waitFor(async () => (await lua('return require("ide_companion.terminal").info() == nil')) === true, 'gemini to exit', STEP_TIMEOUT_MS);
  await waitFor(
    async () => (await lua<number>('return vim.tbl_count(require("ide_companion.host").state.sessions)')) === 0,
    'its session to end',
    STEP_TIMEOUT_MS,
  );
  // What would come back comes as the session ends: give it time to.
  await sleep(2_000);
  assert.equal(await proposals(), 0, 'no kept proposal');
  assert.doesNotMatch(await lua<string>("return vim.api.nvim_exec('messages', true)"), /went away/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'committed\n');
});
