/**
 * Issue 30: after `:w` (accept) or `:q!` (reject) on a diff, the cursor landed
 * in the agent's terminal window in Normal mode, so the next prompt the user
 * typed ran as Normal-mode commands (`/ide status` became a search, E486).
 * The diff now remembers that the user was typing to the agent, and puts the
 * keyboard back there, in Terminal mode, however the diff ends. Walked as a
 * user does: the real `gemini` in `:Gemini`'s terminal, every key typed in
 * tmux, and the next prompt seen to reach the agent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
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
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
/** Long enough for a scheduled mode change, short enough to fail fast on the old code. */
const MODE_TIMEOUT_MS = 5_000;

test(
  'after :w, :q! and :tabclose on a diff the keyboard is back in the agent’s terminal, in Terminal mode: the next prompt typed reaches gemini',
  { skip, timeout: 8 * 60_000 },
  async (t) => {
    const dir = makeGeminiRunDirs('ide-companion-nvim-focus-', {
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' },
      turns: [
        ...writeFileTurns('a.txt', 'a from the model\n'),
        // A rejected write ends the turn: no model answer follows it.
        ...writeFileTurns('b.txt', 'b from the model\n').slice(0, 1),
        ...writeFileTurns('c.txt', 'c from the model\n'),
      ],
    });
    const tmux = new Tmux(200, 60);
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
    const wrapper = path.join(dir.path, 'gemini.sh');
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${shellCommand(geminiArgv(cli!, fakeResponses), {}, HEADLESS_TRIGGER_ENV)} "$@"\n`, { mode: 0o755 });
    const socket = path.join(dir.path, 'nvim.sock');
    const setup = `require('ide_companion').setup({ terminal = { cmd = { '${wrapper}' } }, log_file = '${path.join(dir.path, 'host.log')}' })`;
    tmux.start(
      shellCommand(
        [
          nvimPath!,
          '--clean',
          '-n',
          '--listen',
          socket,
          '-c',
          'let g:ide_companion_auto_setup = v:false',
          '-c',
          `set rtp^=${PLUGIN_ROOT}`,
          '-c',
          `lua ${setup}`,
        ],
        { ...geminiEnv(dir), XDG_CACHE_HOME: path.join(dir.path, 'cache'), XDG_STATE_HOME: path.join(dir.path, 'state'), TERM: 'xterm-256color' },
      ),
      { cwd: workspace },
    );
    const { nvim, lua } = await attachWhenListening(socket, STEP_TIMEOUT_MS);
    await waitFor(async () => (await lua('return require("ide_companion").is_running()')) === true, 'the companion', STEP_TIMEOUT_MS);
    const mode = async () => ((await nvim.mode) as { mode: string }).mode;
    const where = async () => `mode ${await mode()}, buffer ${await lua<string>('return vim.bo.buftype')}\n--- screen ---\n${tmux.screen()}`;

    // The user types :Gemini.
    tmux.type(':Gemini');
    tmux.keys('Enter');
    geminiPid = await waitFor(
      async () => (await lua<number | false>('local t = require("ide_companion.terminal").info(); return t and t.pid or false')) || undefined,
      'the terminal job',
      STEP_TIMEOUT_MS,
    );
    await tmux.waitForText('Type your message', START_TIMEOUT_MS);
    await waitIdeConnected(tmux, START_TIMEOUT_MS);

    for (const [file, key] of [
      ['a.txt', ':w'],
      ['b.txt', ':q!'],
      ['c.txt', ':tabclose'],
    ] as const) {
      await submitLine(tmux, `please write ${file}`);
      await waitFor(
        async () => (await lua<Array<{ path: string }>>("return require('ide_companion.diff').list()")).some((d) => d.path === path.join(workspace, file)),
        `the diff of ${file}`,
        STEP_TIMEOUT_MS,
      ).catch(async (err: Error) => {
        throw new Error(`${err.message}\n${await where()}`);
      });
      assert.equal(await lua('return vim.bo.buftype'), 'acwrite', 'the cursor is in the proposal');
      // The diff tab's label names the file readably (it was the whole path, each folder cut to a letter).
      const tabline = await waitFor(() => tmux.screen().split('\n')[0], 'the tab line');
      const label = tabline.split(/\s+/).find((word) => word.endsWith(file));
      assert.ok(label !== undefined && label.length <= `i//1/p/${file}`.length, `the tab label in ${tabline}`);
      tmux.type(key);
      tmux.keys('Enter');
      await waitFor(
        async () => (await lua<unknown[]>("return require('ide_companion.diff').list()")).length === 0,
        `the diff ended by ${key}`,
        STEP_TIMEOUT_MS,
      );
      if (key === ':w')
        await waitFor(() => fs.readFileSync(path.join(workspace, file), 'utf8') === 'a from the model\n', 'gemini wrote a.txt', STEP_TIMEOUT_MS);
      await waitFor(async () => (await mode()) === 't', `Terminal mode in the agent's window after ${key}`, MODE_TIMEOUT_MS).catch(async (err: Error) => {
        throw new Error(`${err.message}: ${await where()}`);
      });
      assert.equal(await lua('return vim.bo.buftype'), 'terminal');
      // The user's next prompt, typed: it reaches gemini, which answers it below this turn.
      await submitLine(tmux, '/ide status');
      await waitFor(
        () => /Connected to Neovim/.test(tmux.screen().split(`please write ${file}`).at(-1)!),
        'gemini to answer /ide status',
        STEP_TIMEOUT_MS,
      ).catch(async (err: Error) => {
        throw new Error(`${err.message}: ${await where()}`);
      });
    }
    assert.equal(fs.readFileSync(path.join(workspace, 'b.txt'), 'utf8'), 'b\n', 'the rejected change is not written');
    assert.equal(fs.readFileSync(path.join(workspace, 'c.txt'), 'utf8'), 'c\n', 'the rejected change is not written');
  },
);
