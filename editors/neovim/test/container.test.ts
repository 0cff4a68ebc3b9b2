/**
 * Issue 30: Neovim in a container or toolbox (`/run/.containerenv`): `:Gemini`
 * did not connect and nothing in the editor said why. Gemini CLI there dials
 * host.docker.internal unless REMOTE_CONTAINERS is set, and the plugin knew
 * it (the companion's container hint). Now `:Gemini` sets it for its own
 * terminal, and a terminal the user opens is told the fix when it opens.
 * The container is a private mount namespace whose /run holds the marker
 * file the CLI looks for: Neovim, its companion and gemini all see it, the
 * rest of the machine does not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
  STRAY_IDE_ENV,
  Tmux,
  waitFor,
  waitIdeConnected,
  which,
  writeFileTurns,
} from '@ide-companion/testkit';
import { PLUGIN_ROOT } from '../src/pluginFiles.js';
import { attachWhenListening, hasNvim, nvimPath } from './harness.js';

const cli = findGeminiCli();
const MARKER = '/run/.containerenv';
const inContainer = (sh: string) => ['unshare', '-m', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs tmpfs /run && : > ${MARKER} && ${sh}`];
const canFakeContainer =
  which('unshare') !== undefined && spawnSync(inContainer(`test -e ${MARKER}`)[0]!, inContainer(`test -e ${MARKER}`).slice(1)).status === 0;
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux') ||
  skipUnless(canFakeContainer, 'a private mount namespace (unshare -m, as root)', 'run the tests as root');

const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;

test(
  'in a container, a terminal the user opens says to export REMOTE_CONTAINERS=1, and :Gemini connects to this Neovim',
  { skip, timeout: 6 * 60_000 },
  async (t) => {
    const dir = makeGeminiRunDirs('ide-companion-nvim-container-', { files: { 'a.txt': 'a\n' }, turns: writeFileTurns('a.txt', 'b\n') });
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
    const wrapper = path.join(dir.path, 'gemini.sh');
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${shellCommand(geminiArgv(cli!, dir.fakeResponses), {}, HEADLESS_TRIGGER_ENV)} "$@"\n`, { mode: 0o755 });
    const socket = path.join(dir.path, 'nvim.sock');
    const setup = `require('ide_companion').setup({ terminal = { cmd = { '${wrapper}' } }, log_file = '${path.join(dir.path, 'host.log')}' })`;
    const nvim = shellCommand(
      [nvimPath!, '--clean', '-n', '--listen', socket, '-c', 'let g:ide_companion_auto_setup = v:false', '-c', `set rtp^=${PLUGIN_ROOT}`, '-c', `lua ${setup}`],
      {},
    );
    const [program, ...args] = inContainer(`exec ${nvim}`);
    // What the user's shell has in a container: none of the variables that send gemini to loopback.
    const { REMOTE_CONTAINERS: _set, ...env } = geminiEnv(dir);
    tmux.start(
      shellCommand(
        [program!, ...args],
        {
          ...env,
          XDG_CACHE_HOME: path.join(dir.path, 'cache'),
          XDG_STATE_HOME: path.join(dir.path, 'state'),
          XDG_RUNTIME_DIR: path.join(dir.path, 'run'),
          TERM: 'xterm-256color',
          SHELL: '/bin/sh',
        },
        [...STRAY_IDE_ENV, 'REMOTE_CONTAINERS', 'SSH_CONNECTION', 'VSCODE_REMOTE_CONTAINERS_SESSION'],
      ),
      { cwd: dir.workspace },
    );
    const { lua } = await attachWhenListening(socket, STEP_TIMEOUT_MS);
    await waitFor(async () => (await lua('return require("ide_companion").is_running()')) === true, 'the companion', STEP_TIMEOUT_MS);
    const messages = () => lua<string>("return vim.api.nvim_exec('messages', true)");

    // The user's own terminal: the editor says what gemini there needs.
    tmux.type(':terminal');
    tmux.keys('Enter');
    await waitFor(async () => /export REMOTE_CONTAINERS=1/.test(await messages()), 'the fix said as the terminal opens', STEP_TIMEOUT_MS).catch(
      async (err: Error) => {
        throw new Error(`${err.message}; messages: ${await messages()}\n--- screen ---\n${tmux.screen()}`);
      },
    );

    // :Gemini needs nothing from the user.
    tmux.type(':Gemini');
    tmux.keys('Enter');
    geminiPid = await waitFor(
      async () => (await lua<number | false>('local t = require("ide_companion.terminal").info(); return t and t.pid or false')) || undefined,
      'the terminal job',
      STEP_TIMEOUT_MS,
    );
    await tmux.waitForText('Type your message', START_TIMEOUT_MS);
    assert.match((await waitIdeConnected(tmux, STEP_TIMEOUT_MS)).status, /Connected to Neovim/);
  },
);
