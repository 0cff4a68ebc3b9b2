/**
 * Issue 39: Emacs in a container or toolbox (`/run/.containerenv`): `M-x
 * ide-companion-gemini` started gemini disconnected and said nothing. Gemini
 * CLI there dials host.docker.internal unless REMOTE_CONTAINERS is set; the
 * host knew (its container hint). Now the host's variables for Emacs's
 * terminals carry it, as Neovim's `:Gemini` does, and the echo area says so
 * when the agent's terminal opens. The container is a private mount
 * namespace whose /run holds the marker file the CLI looks for: Emacs, its
 * host and gemini all see it, the rest of the machine does not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  findGeminiCli,
  geminiEnvInContainer,
  makeGeminiHome,
  skipUnless,
  STRAY_IDE_ENV,
  waitFor,
  waitIdeConnected,
  writeFakeResponses,
  writeFileTurns,
  writeGeminiScript,
  CONTAINER_UNSET,
  inFakeContainer,
  skipFakeContainer,
} from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { elispString, mxGemini, startEmacs } from './harness.js';

const cli = findGeminiCli();
const skip = skipEmacsInTmux || skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') || skipFakeContainer();

/** The CLI takes ~5 s to start when the machine is idle; a shared 2-core machine can take many times that. */
const START_TIMEOUT_MS = 120_000;

test('in a container, M-x ide-companion-gemini runs gemini connected to this Emacs, and the echo area says why', { skip, timeout: 6 * 60_000 }, async (t) => {
  const emacs = await startEmacs({
    files: { 'a.txt': 'a\n' },
    open: ['a.txt'],
    wrap: (command) => inFakeContainer(`exec ${command}`),
    // What the user's shell has in a container: none of the variables that send gemini to loopback.
    unset: [...STRAY_IDE_ENV, ...CONTAINER_UNSET],
  });
  let geminiPid: number | undefined;
  t.after(async () => {
    // gemini survives the SIGHUP of its terminal going away: end its process group.
    if (geminiPid) {
      try {
        process.kill(-geminiPid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await emacs.close();
  });
  // What M-x ide-companion-gemini runs: the pinned CLI, with nothing of its own that sends it to loopback.
  const home = makeGeminiHome(path.join(emacs.tmp, 'gemini-home'));
  const turns = path.join(emacs.tmp, 'turns.jsonl');
  writeFakeResponses(turns, writeFileTurns('a.txt', 'b\n'));
  const wrapper = writeGeminiScript(path.join(emacs.tmp, 'gemini.sh'), cli!, turns, geminiEnvInContainer({ home, tmpdir: emacs.tmp }));
  await emacs.discovery();
  await emacs.eval(`(setq ide-companion-gemini-command ${elispString(wrapper)})`);

  geminiPid = await mxGemini(emacs, 'term', START_TIMEOUT_MS);
  await emacs.tmux.waitForText('Type your message', START_TIMEOUT_MS);
  const status = await waitIdeConnected(emacs.tmux, START_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${emacs.tmux.screen()}`);
  });
  assert.match(status.status, /Connected to Emacs/);
  const messages = await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))');
  assert.match(messages, /ide-companion: in a container: terminals opened from Emacs carry REMOTE_CONTAINERS=1, so gemini there dials this Emacs/);
  await waitFor(
    async () => (await emacs.evalJson<string>('(ide-companion--status-text)')).includes('1 session connected (Gemini CLI)'),
    'the session in Emacs',
    10_000,
  );
});
