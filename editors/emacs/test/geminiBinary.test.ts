/**
 * End to end with the real `gemini` 0.61.0 binary, as a user runs it: Emacs
 * (emacs -nw, in tmux) loads the package, M-x ide-companion-gemini opens the
 * CLI in vterm inside Emacs, `/ide status` says Connected to Emacs, the
 * scripted model proposes a write_file, the diff opens in ediff, the user
 * edits the proposal and accepts with C-c C-c, and the CLI writes the user's
 * text, which the file's buffer then shows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  findGeminiCli,
  geminiEnv,
  makeGeminiHome,
  skipUnless,
  submitLine,
  waitFor,
  waitIdeConnected,
  writeFakeResponses,
  writeFileTurns,
  writeGeminiScript,
} from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { elispString, mxGemini, startEmacs, VTERM_DIR, waitForProposalBuffer } from './harness.js';

const cli = findGeminiCli();
const skip =
  skipEmacsInTmux ||
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(VTERM_DIR !== undefined, 'vterm', 'apt-get install -y elpa-vterm');

/** The CLI takes ~5 s to start when the machine is idle; a shared 2-core machine can take many times that. */
const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const ORIGINAL = 'original line\n';
const PROPOSAL = 'line from the model\n';
const EDITED = 'line the user wrote in Emacs\n';

test(
  "M-x ide-companion-gemini runs gemini connected to this Emacs; a write accepted with C-c C-c after editing leaves the user's text",
  { skip, timeout: 6 * 60_000 },
  async (t) => {
    const emacs = await startEmacs({
      files: { 'a.txt': ORIGINAL },
      open: ['a.txt'],
      vterm: true,
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
    const file = path.join(emacs.workspace, 'a.txt');
    // What M-x ide-companion-gemini runs: the pinned CLI with scripted turns, reviewing diffs in the IDE.
    const home = makeGeminiHome(path.join(emacs.tmp, 'gemini-home'));
    const turns = path.join(emacs.tmp, 'turns.jsonl');
    writeFakeResponses(turns, writeFileTurns('a.txt', PROPOSAL));
    const wrapper = writeGeminiScript(path.join(emacs.tmp, 'gemini.sh'), cli!, turns, geminiEnv({ home, tmpdir: emacs.tmp }));
    await emacs.discovery();
    await emacs.eval(`(setq ide-companion-gemini-command ${elispString(wrapper)})`);

    geminiPid = await mxGemini(emacs, 'vterm', STEP_TIMEOUT_MS);
    await emacs.tmux.waitForText('Type your message', START_TIMEOUT_MS);

    // /ide status until connected: the CLI says Connected only after its tools/list.
    assert.match((await waitIdeConnected(emacs.tmux, START_TIMEOUT_MS)).status, /Connected to Emacs/);
    // M-x ide-companion-gemini again shows the same terminal instead of a second gemini.
    const before = await emacs.evalJson<string>('(buffer-name ide-companion--gemini-buffer)');
    await emacs.eval('(ide-companion-gemini)');
    assert.equal(
      await emacs.evalJson('(length (cl-remove-if-not (lambda (b) (eq (buffer-local-value (quote major-mode) b) (quote vterm-mode))) (buffer-list)))'),
      1,
    );
    assert.equal(await emacs.evalJson<string>('(buffer-name ide-companion--gemini-buffer)'), before);

    // Typed, seen in the input box, then Enter a moment later: an Enter read with the text is a newline to the CLI.
    await submitLine(emacs.tmux, 'please write a.txt', STEP_TIMEOUT_MS);
    const proposal = await waitForProposalBuffer(emacs, STEP_TIMEOUT_MS, file).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${emacs.tmux.screen()}`);
    });
    assert.equal(await emacs.evalJson(`(with-current-buffer ${elispString(proposal)} (buffer-string))`), PROPOSAL);
    // The user rewrites the proposal and accepts it from its window.
    await emacs.eval(`(with-current-buffer ${elispString(proposal)} (erase-buffer) (insert ${elispString(EDITED)}))`);
    await emacs.eval(`(select-window (get-buffer-window ${elispString(proposal)}))`);
    emacs.tmux.keys('C-c', 'C-c');

    await waitFor(() => fs.readFileSync(file, 'utf8') === EDITED, "the CLI to write the user's text", STEP_TIMEOUT_MS).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${emacs.tmux.screen()}`);
    });
    // The a.txt buffer shows the new text, with no prompt waiting.
    await waitFor(
      async () => (await emacs.evalJson(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (buffer-string))`)) === EDITED,
      'the buffer reverted',
      STEP_TIMEOUT_MS,
    ).catch(async (err: Error) => {
      const state = await emacs.eval(
        `(list (with-current-buffer (find-buffer-visiting ${elispString(file)}) (list (buffer-string) (buffer-modified-p) (verify-visited-file-modtime))) (with-current-buffer "*Messages*" (buffer-string)))`,
      );
      throw new Error(`${err.message}; Emacs: ${state}`);
    });
    assert.equal(await emacs.evalJson('(if (active-minibuffer-window) t :false)'), false);
  },
);
