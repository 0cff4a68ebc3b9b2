/**
 * End to end with the real `gemini` 0.61.0 binary, as a user runs it: Vim (in
 * tmux) loads the plugin, `:Gemini` opens the CLI in Vim's own terminal, the
 * scripted model proposes a write_file, the diff opens in a Vim tab, the user
 * edits the proposal and accepts with :w, and the CLI writes the user's text;
 * the file's buffer in Vim reloads without a prompt.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, geminiEnv, makeGeminiRunDirs, skipUnless, waitIdeConnected, waitFor, writeFileTurns, writeGeminiScript } from '@ide-companion/testkit';
import { openAgentTerminal, gotoBuffer, skipVim, startVim, vimString, waitForDiff, type VimSession } from './harness.js';

const cli = findGeminiCli();
const skip = skipVim || skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

/** The CLI takes ~5 s to start when the machine is idle; a shared 2-core machine can take many times that. */
const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const ORIGINAL = 'original line\n';
const PROPOSAL = 'line from the model\n';
const EDITED = 'line the user wrote in Vim ✓\n';

test(
  "gemini run with :Gemini connects to this Vim, and a write accepted with :w after editing leaves the user's text",
  { skip, timeout: 6 * 60_000 },
  async (t) => {
    const dir = makeGeminiRunDirs('ide-companion-vim-e2e-', { files: { 'a.txt': ORIGINAL }, turns: writeFileTurns('a.txt', PROPOSAL) });
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
    const file = path.join(fs.realpathSync(dir.workspace), 'a.txt');
    // What :Gemini runs: the pinned CLI with scripted turns, reviewing diffs in the IDE.
    const wrapper = writeGeminiScript(path.join(dir.path, 'gemini.sh'), cli!, dir.fakeResponses);
    s = await startVim({
      dirs: { tmp: dir.tmpdir, workspace: dir.workspace },
      open: ['a.txt'],
      vimrc: [`let g:ide_companion_gemini_cmd = [${vimString(wrapper)}]`],
      // For the gemini that :Gemini starts, inherited through Vim.
      env: geminiEnv(dir),
    });
    const vim = s;
    const tmux = vim.tmux;

    ({ pid: geminiPid } = await openAgentTerminal(vim, 'Gemini', 'ide_companion_gemini', STEP_TIMEOUT_MS));
    await tmux.waitForText('Type your message', START_TIMEOUT_MS);

    // /ide status until connected (the CLI says Connected only after its tools/list), each answer told from the last.
    assert.match((await waitIdeConnected(tmux, START_TIMEOUT_MS)).status, /Connected to Vim/);

    tmux.type('please write a.txt');
    await tmux.waitForText('please write a.txt', STEP_TIMEOUT_MS);
    tmux.keys('Enter');
    // The model turn and the CLI's diff request take long on a loaded machine.
    const diff = await waitForDiff(vim, file, STEP_TIMEOUT_MS).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tmux.screen()}`);
    });
    assert.deepEqual(await vim.expr(`getbufline(${diff.proposal}, 1, '$')`), ['line from the model']);
    assert.deepEqual(await vim.expr(`getbufline(${diff.original}, 1, '$')`), ['original line']);
    // The diff opened from Terminal-Job mode: the user is in Normal mode in the new tab.
    await waitFor(async () => (await vim.expr<string>('mode()')) === 'n', 'Normal mode in the diff tab', STEP_TIMEOUT_MS);
    // The user rewrites the proposal and saves it.
    await gotoBuffer(vim, diff.proposal);
    vim.type('cc' + EDITED.trimEnd());
    vim.keys('Escape');
    vim.type(':w');
    vim.keys('Enter');

    await waitFor(() => fs.readFileSync(file, 'utf8') === EDITED, "the CLI to write the user's text", STEP_TIMEOUT_MS).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tmux.screen()}`);
    });
    // The a.txt buffer shows the new text, with no prompt waiting.
    await waitFor(
      async () => (await vim.expr<string[]>(`getbufline(bufnr(${vimString(file)}), 1, '$')`))[0] === EDITED.trimEnd(),
      'the buffer reloaded',
      STEP_TIMEOUT_MS,
    );
    assert.equal(await vim.expr(`getbufvar(bufnr(${vimString(file)}), '&modified')`), 0);
    await tmux.waitForText(/Accepted|WriteFile/, STEP_TIMEOUT_MS);
  },
);
