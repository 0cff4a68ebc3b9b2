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
import * as path from 'node:path';
import { geminiEnv, skipUnless, STRAY_IDE_ENV, waitFor, waitIdeConnected, which, writeFileTurns } from '@ide-companion/testkit';
import { skipGeminiInTmux, startGeminiInTmux, STEP_TIMEOUT_MS } from './geminiInTmux.js';

const MARKER = '/run/.containerenv';
const inContainer = (sh: string) => ['unshare', '-m', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs tmpfs /run && : > ${MARKER} && ${sh}`];
const canFakeContainer =
  which('unshare') !== undefined && spawnSync(inContainer(`test -e ${MARKER}`)[0]!, inContainer(`test -e ${MARKER}`).slice(1)).status === 0;
const skip = skipGeminiInTmux || skipUnless(canFakeContainer, 'a private mount namespace (unshare -m, as root)', 'run the tests as root');

test(
  'in a container, a terminal the user opens says to export REMOTE_CONTAINERS=1, and :Gemini connects to this Neovim',
  { skip, timeout: 6 * 60_000 },
  async (t) => {
    const { tmux, lua, close, gemini } = await startGeminiInTmux({
      prefix: 'ide-companion-nvim-container-',
      files: { 'a.txt': 'a\n' },
      turns: writeFileTurns('a.txt', 'b\n'),
      size: [200, 50],
      wrap: (nvim) => inContainer(`exec ${nvim}`),
      // What the user's shell has in a container: none of the variables that send gemini to loopback.
      env: (dir) => {
        const { REMOTE_CONTAINERS: _set, ...env } = geminiEnv(dir);
        return { ...env, XDG_RUNTIME_DIR: path.join(dir.path, 'run'), SHELL: '/bin/sh' };
      },
      unset: [...STRAY_IDE_ENV, 'REMOTE_CONTAINERS', 'SSH_CONNECTION', 'VSCODE_REMOTE_CONTAINERS_SESSION'],
    });
    t.after(close);
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
    await gemini();
    assert.match((await waitIdeConnected(tmux, STEP_TIMEOUT_MS)).status, /Connected to Neovim/);
  },
);
