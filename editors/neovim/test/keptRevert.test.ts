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
import {
  findGeminiCli,
  geminiArgv,
  geminiEnv,
  HEADLESS_TRIGGER_ENV,
  makeGeminiRunDirs,
  shellCommand,
  skipUnless,
  sleep,
  submitLine,
  Tmux,
  waitFor,
  waitIdeConnected,
  which,
  writeFileTurns,
} from '@ide-companion/testkit';
import { PLUGIN_ROOT } from '../src/pluginFiles.js';
import { attachWhenListening, hasNvim, nvimPath } from './harness.js';

const cli = findGeminiCli();
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux') ||
  skipUnless(which('git') !== undefined, 'git', 'apt-get install -y git');

const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;

test('accepted with :w and written, the file reverted with git, gemini quit: no kept proposal comes back', { skip, timeout: 6 * 60_000 }, async (t) => {
  const dir = makeGeminiRunDirs('ide-companion-nvim-revert-', { files: { 'a.txt': 'committed\n' }, turns: writeFileTurns('a.txt', 'from the model\n') });
  const tmux = new Tmux(200, 50);
  let geminiPid: number | undefined;
  t.after(async () => {
    if (geminiPid) {
      try {
        process.kill(-geminiPid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await tmux.stop();
    dir.cleanup();
  });
  const { workspace, fakeResponses } = dir;
  const file = path.join(workspace, 'a.txt');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: workspace, stdio: 'pipe' });
  git('init', '-q');
  git('add', 'a.txt');
  git('commit', '-q', '-m', 'a');
  const wrapper = path.join(dir.path, 'gemini.sh');
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${shellCommand(geminiArgv(cli!, fakeResponses), {}, HEADLESS_TRIGGER_ENV)} "$@"\n`, { mode: 0o755 });
  const socket = path.join(dir.path, 'nvim.sock');
  const setup = `require('ide_companion').setup({ terminal = { cmd = { '${wrapper}' } }, log_file = '${path.join(dir.path, 'host.log')}' })`;
  tmux.start(
    shellCommand(
      [nvimPath!, '--clean', '-n', '--listen', socket, '-c', 'let g:ide_companion_auto_setup = v:false', '-c', `set rtp^=${PLUGIN_ROOT}`, '-c', `lua ${setup}`],
      { ...geminiEnv(dir), XDG_CACHE_HOME: path.join(dir.path, 'cache'), XDG_STATE_HOME: path.join(dir.path, 'state'), TERM: 'xterm-256color' },
    ),
    { cwd: workspace },
  );
  const { lua } = await attachWhenListening(socket, STEP_TIMEOUT_MS);
  await waitFor(async () => (await lua('return require("ide_companion").is_running()')) === true, 'the companion', STEP_TIMEOUT_MS);
  const proposals = () =>
    lua<number>(
      "local n = 0 for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.api.nvim_buf_get_name(b):match('^ide%-companion://%d+/proposed') then n = n + 1 end end return n",
    );

  tmux.type(':Gemini');
  tmux.keys('Enter');
  geminiPid = await waitFor(
    async () => (await lua<number | false>('local t = require("ide_companion.terminal").info(); return t and t.pid or false')) || undefined,
    'the terminal job',
    STEP_TIMEOUT_MS,
  );
  await tmux.waitForText('Type your message', START_TIMEOUT_MS);
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
