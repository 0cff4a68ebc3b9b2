/**
 * Issue 30: after `:w` (accept) or `:q!` (reject) on a diff the keys went to
 * the wrong place: the agent's window in Normal mode, and in Vim, after a diff
 * accepted with :w, the first CTRL-W N in the :Gemini terminal did not leave
 * Terminal-Job mode (the `:` typed next went to gemini). Walked as a user
 * does: the real `gemini` in `:Gemini`'s terminal, every key typed in tmux,
 * the next prompt seen to reach the agent, and CTRL-W N seen to work.
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
  submitLine,
  waitIdeConnected,
  waitFor,
  writeFileTurns,
} from '@ide-companion/testkit';
import { skipVim, startVim, vimString, waitForDiff, type VimSession } from './harness.js';

const cli = findGeminiCli();
const skip = skipVim || skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
/** Long enough for a timer's window change, short enough to fail fast on the old code. */
const MODE_TIMEOUT_MS = 5_000;

test(
  'after :w, :q! and :tabclose on a diff the keyboard is back in the agent’s terminal: the next prompt typed reaches gemini, and CTRL-W N leaves Terminal-Job mode',
  { skip, timeout: 8 * 60_000 },
  async (t) => {
    const dir = makeGeminiRunDirs('ide-companion-vim-focus-', {
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' },
      turns: [
        ...writeFileTurns('a.txt', 'a from the model\n'),
        // A rejected write ends the turn: no model answer follows it.
        ...writeFileTurns('b.txt', 'b from the model\n').slice(0, 1),
        ...writeFileTurns('c.txt', 'c from the model\n'),
      ],
    });
    let s: VimSession | undefined;
    let geminiPid = 0;
    t.after(async () => {
      if (geminiPid) {
        try {
          process.kill(-geminiPid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await s?.close();
      dir.cleanup();
    });
    const workspace = fs.realpathSync(dir.workspace);
    const wrapper = path.join(dir.path, 'gemini.sh');
    fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${shellCommand(geminiArgv(cli!, dir.fakeResponses), {}, HEADLESS_TRIGGER_ENV)} "$@"\n`, { mode: 0o755 });
    s = await startVim({
      dirs: { tmp: dir.tmpdir, workspace: dir.workspace },
      vimrc: [`let g:ide_companion_gemini_cmd = [${vimString(wrapper)}]`],
      env: geminiEnv(dir),
    });
    const vim = s;
    const tmux = vim.tmux;
    const where = async () => `mode ${await vim.expr<string>('mode()')}, buffer ${await vim.expr<string>('&buftype')}\n--- screen ---\n${tmux.screen()}`;

    vim.keys('Escape');
    vim.type(':Gemini');
    vim.keys('Enter');
    const terminal = await waitFor(
      async () => (await vim.expr<number[]>('filter(term_list(), {_, b -> getbufvar(b, "ide_companion_gemini", 0)})'))[0],
      'the terminal',
      STEP_TIMEOUT_MS,
    );
    geminiPid = await vim.expr<number>(`job_info(term_getjob(${terminal})).process`);
    await tmux.waitForText('Type your message', START_TIMEOUT_MS);
    await waitIdeConnected(tmux, START_TIMEOUT_MS);

    for (const [file, key] of [
      ['a.txt', ':w'],
      ['b.txt', ':q!'],
      ['c.txt', ':tabclose'],
    ] as const) {
      await submitLine(tmux, `please write ${file}`);
      await waitForDiff(vim, path.join(workspace, file), STEP_TIMEOUT_MS).catch(async (err: Error) => {
        throw new Error(`${err.message}\n${await where()}`);
      });
      await waitFor(async () => (await vim.expr<string>('&buftype')) === 'acwrite', 'the cursor in the proposal', STEP_TIMEOUT_MS);
      // The diff tab's label names the file readably (it was the whole path, each folder cut to a letter).
      const tabline = await waitFor(() => tmux.screen().split('\n')[0], 'the tab line');
      const label = tabline.split(/\s+/).find((word) => word.endsWith(file));
      assert.ok(label !== undefined && label.length <= `i//1/p/${file}`.length, `the tab label in ${tabline}`);
      vim.type(key);
      vim.keys('Enter');
      // Nothing asks Vim anything until the user's next keys are typed: a
      // message on the test's channel would wake Vim's main loop, which the
      // user's Vim, idle, does not get.
      if (key === ':w')
        await waitFor(() => fs.readFileSync(path.join(workspace, file), 'utf8') === 'a from the model\n', 'gemini wrote a.txt', STEP_TIMEOUT_MS);
      await sleep(1_500);
      if (key === ':w') {
        // CTRL-W N leaves Terminal-Job mode at the first try; `i` goes back.
        vim.keys('C-w', 'N');
        await waitFor(
          async () => (await vim.expr<string>(`term_getstatus(${terminal})`)).includes('normal'),
          `CTRL-W N to leave Terminal-Job mode after ${key}`,
          MODE_TIMEOUT_MS,
        ).catch(async (err: Error) => {
          throw new Error(`${err.message}: ${await where()}`);
        });
        vim.type('i');
        await waitFor(async () => (await vim.expr<string>('mode()')) === 't', 'Terminal-Job mode again', MODE_TIMEOUT_MS);
      }
      // The user's next prompt, typed: it reaches gemini, which answers it below this turn.
      await submitLine(tmux, '/ide status').catch(async (err: Error) => {
        throw new Error(`${err.message}: ${await where()}`);
      });
      await waitFor(() => /Connected to Vim/.test(tmux.screen().split(`please write ${file}`).at(-1)!), 'gemini to answer /ide status', STEP_TIMEOUT_MS).catch(
        async (err: Error) => {
          throw new Error(`${err.message}: ${await where()}`);
        },
      );
      assert.equal(await vim.expr('bufnr("")'), terminal, "the cursor in the agent's window");
      assert.deepEqual(await vim.expr('ide_companion#diff#list()'), [], `the diff ended by ${key}`);
    }
    assert.equal(fs.readFileSync(path.join(workspace, 'b.txt'), 'utf8'), 'b\n', 'the rejected change is not written');
    assert.equal(fs.readFileSync(path.join(workspace, 'c.txt'), 'utf8'), 'c\n', 'the rejected change is not written');
  },
);
