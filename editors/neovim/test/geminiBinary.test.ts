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
import {
  findGeminiCli,
  geminiArgv,
  geminiEnv,
  HEADLESS_TRIGGER_ENV,
  makeGeminiRunDirs,
  shellCommand,
  skipUnless,
  sleep,
  Tmux,
  waitFor,
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

/** The CLI takes ~5 s to start when the machine is idle; a shared 2-core machine can take many times that. */
const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const ORIGINAL = 'original line\n';
const PROPOSAL = 'line from the model\n';
const EDITED = 'line the user wrote in Neovim\n';

test(
  "gemini run with :Gemini connects to this Neovim, and a write accepted with :w after editing leaves the user's text",
  { skip, timeout: 6 * 60_000 },
  async (t) => {
    const dir = makeGeminiRunDirs('ide-companion-nvim-e2e-', { files: { 'a.txt': ORIGINAL }, turns: writeFileTurns('a.txt', PROPOSAL) });
    const tmux = new Tmux(240, 60);
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
    // What :Gemini runs: the pinned CLI with scripted turns, reviewing diffs in the IDE.
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
          '-c',
          'edit a.txt',
        ],
        {
          // For the gemini that :Gemini starts, inherited through Neovim.
          ...geminiEnv(dir),
          XDG_CACHE_HOME: path.join(dir.path, 'cache'),
          XDG_STATE_HOME: path.join(dir.path, 'state'),
          TERM: 'xterm-256color',
        },
      ),
      { cwd: workspace },
    );
    const { nvim, lua } = await attachWhenListening(socket, STEP_TIMEOUT_MS);
    await waitFor(async () => (await lua('return require("ide_companion").is_running()')) === true, 'the companion', STEP_TIMEOUT_MS);

    await nvim.command('Gemini');
    geminiPid = await waitFor(
      async () => {
        const pid = await lua<number>('return vim.b.terminal_job_id and vim.fn.jobpid(vim.b.terminal_job_id) or false');
        return pid || undefined;
      },
      'the terminal job',
      STEP_TIMEOUT_MS,
    );
    await tmux.waitForText('Type your message', START_TIMEOUT_MS);

    // /ide status until connected: the CLI says Connected only after its tools/list.
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      tmux.type('/ide status');
      await tmux.waitForText('/ide status', STEP_TIMEOUT_MS);
      tmux.keys('Enter');
      const screen = await tmux.waitForText(/Connected to Neovim|Disconnected|Connecting/, STEP_TIMEOUT_MS);
      if (/Connected to Neovim/.test(screen)) break;
      if (Date.now() > deadline) throw new Error(`never connected:\n${screen}`);
      await sleep(1000);
    }

    tmux.type('please write a.txt');
    await tmux.waitForText('please write a.txt', STEP_TIMEOUT_MS);
    tmux.keys('Enter');
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
