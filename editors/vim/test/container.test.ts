/**
 * Issue 39, item 1: Vim in a container or toolbox (`/run/.containerenv`,
 * `/.dockerenv`). Gemini CLI there dials host.docker.internal unless
 * REMOTE_CONTAINERS is set, so `:Gemini` started it disconnected ("Failed to
 * connect to IDE companion extension in Vim") and Vim said nothing; the
 * plugin had the host's hint and showed it only in :GeminiHealth. Now the
 * host puts REMOTE_CONTAINERS=1 among the terminal variables there (one rule,
 * server/terminalEnv.ts): `:Gemini` and any `:terminal` connect to this Vim.
 * The container is testkit's fake one (a private mount namespace): Vim, its
 * companion and gemini see the marker, the rest of the machine does not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CONTAINER_UNSET,
  findGeminiCli,
  geminiEnvInContainer,
  inFakeContainer,
  makeGeminiRunDirs,
  skipFakeContainer,
  skipUnless,
  STRAY_IDE_ENV,
  waitFor,
  waitIdeConnected,
  writeFileTurns,
  writeGeminiScript,
} from '@ide-companion/testkit';
import { openAgentTerminal, skipVim, startVim, vimString, type VimSession } from './harness.js';

const cli = findGeminiCli();
const skip = skipVim || skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') || skipFakeContainer();

/** The CLI takes ~5 s to start when the machine is idle; a shared 2-core machine can take many times that. */
const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;

test('in a container, :Gemini connects to this Vim, and a :terminal of the user has REMOTE_CONTAINERS=1 too', { skip, timeout: 6 * 60_000 }, async (t) => {
  const dir = makeGeminiRunDirs('ide-companion-vim-container-', { files: { 'a.txt': 'a\n' }, turns: writeFileTurns('a.txt', 'b\n') });
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
  const wrapper = writeGeminiScript(path.join(dir.path, 'gemini.sh'), cli!, dir.fakeResponses);
  s = await startVim({
    dirs: { tmp: dir.tmpdir, workspace: dir.workspace },
    open: ['a.txt'],
    vimrc: [`let g:ide_companion_gemini_cmd = [${vimString(wrapper)}]`],
    // What the user's shell has in a container: none of the variables that send gemini to loopback.
    env: geminiEnvInContainer(dir),
    unset: [...STRAY_IDE_ENV, ...CONTAINER_UNSET],
    wrap: (vim) => inFakeContainer(`exec ${vim}`),
  });
  const vim = s;
  assert.equal(await vim.expr('filereadable("/run/.containerenv")'), 1, 'Vim runs in the container');

  // :Gemini needs nothing from the user.
  ({ pid: geminiPid } = await openAgentTerminal(vim, 'Gemini', 'ide_companion_gemini', STEP_TIMEOUT_MS));
  await vim.tmux.waitForText('Type your message', START_TIMEOUT_MS);
  assert.match((await waitIdeConnected(vim.tmux, START_TIMEOUT_MS)).status, /Connected to Vim/);

  // The user's own terminal: what gemini started there reads.
  const out = path.join(dir.path, 'terminal.env');
  await vim.expr(`term_start(['sh', '-c', 'echo "$REMOTE_CONTAINERS" > ${out}'])`);
  await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8') !== '', 'the terminal to write its REMOTE_CONTAINERS', STEP_TIMEOUT_MS);
  assert.equal(fs.readFileSync(out, 'utf8'), '1\n');
});
