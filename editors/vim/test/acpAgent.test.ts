/**
 * :IdeAgent runs an ACP agent (the real Gemini CLI 0.61.0 `--acp`, scripted
 * turns, its own IDE mode off) under `ide-companion agent` in Vim's terminal:
 * it connects to this Vim, and the write it proposes opens Vim's diff tab,
 * where the user's edit accepted with :w lands byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, geminiEnv, makeGeminiRunDirs, skipUnless, waitFor, writeAcpGeminiScript, writeFileTurns } from '@ide-companion/testkit';
import { openAgentTerminal, gotoBuffer, skipVim, startVim, vimString, waitForDiff, type VimSession } from './harness.js';

const cli = findGeminiCli();
const skip = skipVim || skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');
const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const EDITED = 'line the user wrote in Vim ✓\n';

test(':IdeAgent runs an ACP agent connected to this Vim; its write opens the diff and the edited accept lands', { skip, timeout: 6 * 60_000 }, async (t) => {
  const dir = makeGeminiRunDirs('ide-companion-vim-acp-', {
    files: { 'a.txt': 'original line\n' },
    turns: writeFileTurns('a.txt', 'line from the model\n', 'Wrote it.'),
  });
  let s: VimSession | undefined;
  let pid = 0;
  t.after(async () => {
    if (pid) process.kill(-pid, 'SIGKILL');
    await s?.close();
    dir.cleanup();
  });
  const file = path.join(fs.realpathSync(dir.workspace), 'a.txt');
  s = await startVim({
    dirs: { tmp: dir.tmpdir, workspace: dir.workspace },
    open: ['a.txt'],
    vimrc: [`let g:ide_companion_agent_command = [${vimString(writeAcpGeminiScript(dir, cli!))}]`],
    env: geminiEnv(dir),
  });
  const vim = s;
  const opened = await openAgentTerminal(vim, 'IdeAgent', 'ide_companion_agent', STEP_TIMEOUT_MS);
  const terminal = opened.terminal;
  pid = opened.pid;
  await vim.tmux.waitForText('IDE: connected to Vim', START_TIMEOUT_MS);
  await vim.tmux.waitForText('[agent: ', START_TIMEOUT_MS);
  vim.type('please write a.txt');
  vim.keys('Enter');
  const diff = await waitForDiff(vim, file, STEP_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${vim.tmux.screen()}`);
  });
  assert.deepEqual(await vim.expr(`getbufline(${diff.proposal}, 1, '$')`), ['line from the model']);
  await waitFor(async () => (await vim.expr<string>('mode()')) === 'n', 'Normal mode in the diff tab', STEP_TIMEOUT_MS);
  await gotoBuffer(vim, diff.proposal);
  vim.type('cc' + EDITED.trimEnd());
  vim.keys('Escape');
  vim.type(':w');
  vim.keys('Enter');
  await waitFor(
    async () => (await vim.expr<string[]>(`getbufline(${terminal}, 1, '$')`)).join('\n').includes('Wrote it.'),
    'the turn after the write',
    STEP_TIMEOUT_MS,
  );
  assert.equal(fs.readFileSync(file, 'utf8'), EDITED);
});
