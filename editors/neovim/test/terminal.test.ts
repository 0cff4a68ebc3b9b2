/**
 * :Gemini's terminal. Regressions: without gemini installed it printed a Lua
 * traceback and left an empty split; run twice it opened two terminals; after
 * :qa! a gemini process lived on, re-parented to init.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipUnless, waitFor, processRunning } from '@ide-companion/testkit';
import { hasNvim, startNeovim, TIMEOUT, type NeovimSession } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');

/** The user types :Gemini (typed: over RPC an error would come back as the command's error); Neovim's messages once one says not found. */
async function geminiNotFound(s: NeovimSession): Promise<string> {
  await s.nvim.input(':Gemini<CR>');
  return waitFor(
    async () => {
      const m = await s.messages();
      return /not found/.test(m) && m;
    },
    'the message',
    TIMEOUT,
  );
}

describe(':Gemini terminal', { skip, timeout: 120_000 }, () => {
  test('without gemini on PATH: one clear message, no split, no traceback', async () => {
    const s = await startNeovim();
    try {
      await s.discovery();
      const empty = path.join(s.tmp, 'empty-bin');
      fs.mkdirSync(empty);
      await s.lua('vim.env.PATH = ...', empty);
      const windowsBefore = await s.lua<number>('return #vim.api.nvim_tabpage_list_wins(0)');
      const buffersBefore = await s.lua<number>('return #vim.api.nvim_list_bufs()');
      const messages = await geminiNotFound(s);
      assert.match(messages, /ide-companion: `gemini` was not found on PATH\. Install Gemini CLI/);
      assert.doesNotMatch(messages, /stack traceback|E5108|\.lua:\d+:/);
      assert.equal(await s.lua('return #vim.api.nvim_tabpage_list_wins(0)'), windowsBefore, 'no empty split');
      assert.equal(await s.lua('return #vim.api.nvim_list_bufs()'), buffersBefore, 'no empty buffer');
    } finally {
      await s.close();
    }
  });

  test('a command that is not executable: the same, naming it', async () => {
    const s = await startNeovim({ setup: "{ terminal = { cmd = { '/nonexistent/gemini-build' } } }" });
    try {
      await s.discovery();
      const messages = await geminiNotFound(s);
      assert.match(messages, /\/nonexistent\/gemini-build \(terminal\.cmd\) was not found or is not executable/);
      assert.doesNotMatch(messages, /stack traceback|E5108/);
      assert.equal(await s.lua('return #vim.api.nvim_tabpage_list_wins(0)'), 1);
    } finally {
      await s.close();
    }
  });

  test(':Gemini twice shows one terminal; after its window closed, :Gemini shows the same one again', async () => {
    const s = await startNeovim({ setup: "{ terminal = { cmd = { 'sh' } } }" });
    try {
      await s.discovery();
      const terminals = () =>
        s.lua<number>("local n = 0 for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.bo[b].buftype == 'terminal' then n = n + 1 end end return n");
      await s.nvim.command('Gemini');
      await waitFor(async () => (await terminals()) === 1, 'the terminal', TIMEOUT);
      const first = await s.lua<{ buf: number; pid: number }>("return require('ide_companion.terminal').info()");
      await s.nvim.command('stopinsert');
      await s.nvim.command('wincmd p');
      await s.nvim.command('Gemini');
      assert.equal(await terminals(), 1);
      assert.equal(await s.lua('return #vim.api.nvim_tabpage_list_wins(0)'), 2, 'no second split');
      assert.equal(await s.lua('return vim.api.nvim_get_current_buf()'), first.buf, 'the terminal has focus');
      await s.nvim.command('stopinsert');
      await s.nvim.command('close');
      await s.nvim.command('Gemini');
      assert.equal(await terminals(), 1);
      assert.equal(await s.lua('return vim.api.nvim_get_current_buf()'), first.buf);
      assert.equal((await s.lua<{ pid: number }>("return require('ide_companion.terminal').info()")).pid, first.pid);
    } finally {
      await s.close();
    }
  });

  test('quitting Neovim ends the processes it started: the CLI with its process group (even one ignoring SIGHUP), and the host', async () => {
    const s = await startNeovim();
    const pids = path.join(s.tmp, 'pids');
    // Like a CLI that survives the hangup of its terminal, with a child of its own.
    const script = `trap '' HUP; sleep 600 & echo "$$ $!" > ${JSON.stringify(pids)}; wait`;
    await s.lua("require('ide_companion').config.terminal.cmd = { 'sh', '-c', ... }", script);
    await s.discovery();
    await s.nvim.command('Gemini');
    const [shell, child] = await waitFor(
      () => (fs.existsSync(pids) && /^\d+ \d+\n/.test(fs.readFileSync(pids, 'utf8')) ? fs.readFileSync(pids, 'utf8').trim().split(' ').map(Number) : undefined),
      'the CLI stand-in to start',
      TIMEOUT,
    );
    const hostPid = await s.lua<number>("return vim.fn.jobpid(require('ide_companion.host').state.job)");
    assert.ok(processRunning(shell!) && processRunning(child!) && processRunning(hostPid));
    await s.close();
    await waitFor(() => !processRunning(shell!) && !processRunning(child!) && !processRunning(hostPid), 'every process Neovim started to end', TIMEOUT).catch(
      (err: Error) => {
        for (const pid of [shell!, child!]) if (processRunning(pid)) process.kill(pid, 'SIGKILL');
        throw err;
      },
    );
  });
});
