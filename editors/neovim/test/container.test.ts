/**
 * Neovim in a container or toolbox (`/run/.containerenv`): Gemini CLI there
 * dials host.docker.internal unless REMOTE_CONTAINERS is set. Issue 30 had
 * `:Gemini` set it for its own terminal and tell a terminal the user opened;
 * issue 39 made it the host's rule for every end: in a container the terminal
 * variables carry REMOTE_CONTAINERS=1, so `:Gemini` and any `:terminal`
 * connect to this Neovim. The container is testkit's fake one (a private
 * mount namespace): Neovim, its companion and gemini see the marker, the rest
 * of the machine does not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CONTAINER_UNSET,
  geminiEnvInContainer,
  inFakeContainer,
  skipFakeContainer,
  STRAY_IDE_ENV,
  waitFor,
  waitIdeConnected,
  writeFileTurns,
} from '@ide-companion/testkit';
import { skipGeminiInTmux, startGeminiInTmux, STEP_TIMEOUT_MS } from './geminiInTmux.js';

const skip = skipGeminiInTmux || skipFakeContainer();

test('in a container, a :terminal of the user has REMOTE_CONTAINERS=1, and :Gemini connects to this Neovim', { skip, timeout: 6 * 60_000 }, async (t) => {
  const { tmux, lua, close, gemini, dir } = await startGeminiInTmux({
    prefix: 'ide-companion-nvim-container-',
    files: { 'a.txt': 'a\n' },
    turns: writeFileTurns('a.txt', 'b\n'),
    size: [200, 50],
    wrap: (nvim) => inFakeContainer(`exec ${nvim}`),
    // What the user's shell has in a container: none of the variables that send gemini to loopback.
    env: (dir) => ({ ...geminiEnvInContainer(dir), XDG_RUNTIME_DIR: path.join(dir.path, 'run'), SHELL: '/bin/sh' }),
    unset: [...STRAY_IDE_ENV, ...CONTAINER_UNSET],
  });
  t.after(close);

  // The user's own terminal: what gemini started there reads.
  const out = path.join(dir.path, 'terminal.env');
  await lua(`vim.cmd('belowright split'); vim.fn.termopen({ 'sh', '-c', 'echo "$REMOTE_CONTAINERS" > ${out}' })`);
  await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8') !== '', 'the terminal to write its REMOTE_CONTAINERS', STEP_TIMEOUT_MS);
  assert.equal(fs.readFileSync(out, 'utf8'), '1\n');
  await lua(`vim.cmd('close!')`);

  // :Gemini needs nothing from the user.
  await gemini();
  assert.match((await waitIdeConnected(tmux, STEP_TIMEOUT_MS)).status, /Connected to Neovim/);
});
