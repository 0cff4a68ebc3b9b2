/**
 * Issue 30: after a diff ends (C-c C-c, C-c C-k, ediff's `q` then `y`), the
 * keyboard must be where the user was before it opened: in the agent's
 * terminal of M-x ide-companion-gemini, in the mode where typing reaches the
 * agent (char mode for term). Walked as a user does: the real `gemini` in
 * term, every key typed in tmux, and the next prompt seen to reach the agent.
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
  makeGeminiHome,
  shellCommand,
  skipUnless,
  sleep,
  submitLine,
  waitFor,
  which,
  writeFakeResponses,
  writeFileTurns,
} from '@ide-companion/testkit';
import { hasEmacs, emacsclientPath } from './emacs.js';
import { elispString, startEmacs, VTERM_DIR } from './harness.js';

const cli = findGeminiCli();
const skip =
  skipUnless(hasEmacs && emacsclientPath !== undefined, 'emacs and emacsclient', 'apt-get install -y emacs-nox') ||
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
/** Long enough for a scheduled window change, short enough to fail fast on the old code. */
const FOCUS_TIMEOUT_MS = 5_000;

for (const kind of ['term', 'vterm'] as const)
  test(
    `after C-c C-c, C-c C-k and q y on a diff the keyboard is back in the agent’s ${kind}${kind === 'term' ? ', in char mode' : ''}: the next prompt typed reaches gemini`,
    { skip: skip || (kind === 'vterm' && skipUnless(VTERM_DIR !== undefined, 'vterm', 'apt-get install -y elpa-vterm')), timeout: 8 * 60_000 },
    async (t) => {
      const emacs = await startEmacs({
        files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' },
        init: `(setq ide-companion-terminal '${kind})`,
        vterm: kind === 'vterm',
      });
      let geminiPid: number | undefined;
      t.after(async () => {
        if (geminiPid) {
          try {
            process.kill(-geminiPid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
        await emacs.close();
      });
      const home = makeGeminiHome(path.join(emacs.tmp, 'gemini-home'));
      const turns = path.join(emacs.tmp, 'turns.jsonl');
      writeFakeResponses(turns, [
        ...writeFileTurns('a.txt', 'a from the model\n'),
        // A rejected write ends the turn: no model answer follows it.
        ...writeFileTurns('b.txt', 'b from the model\n').slice(0, 1),
        ...writeFileTurns('c.txt', 'c from the model\n').slice(0, 1),
      ]);
      const wrapper = path.join(emacs.tmp, 'gemini.sh');
      fs.writeFileSync(
        wrapper,
        `#!/bin/sh\nexec ${shellCommand(geminiArgv(cli!, turns), geminiEnv({ home, tmpdir: emacs.tmp }), HEADLESS_TRIGGER_ENV)} "$@"\n`,
        {
          mode: 0o755,
        },
      );
      await emacs.discovery();
      await emacs.eval(`(setq ide-companion-gemini-command ${elispString(wrapper)})`);
      const where = async () =>
        `Emacs: ${await emacs.eval('(with-current-buffer (window-buffer (selected-window)) (list (buffer-name) major-mode (and (fboundp (quote term-in-char-mode)) (term-in-char-mode))))')}\n--- screen ---\n${emacs.tmux.screen()}`;

      emacs.tmux.keys('M-x');
      emacs.tmux.type('ide-companion-gemini');
      emacs.tmux.keys('Enter');
      await waitFor(
        async () =>
          (await emacs.evalJson(
            '(if (buffer-live-p ide-companion--gemini-buffer) (symbol-name (buffer-local-value (quote major-mode) ide-companion--gemini-buffer)) :false)',
          )) === `${kind}-mode`,
        `${kind} running gemini`,
        STEP_TIMEOUT_MS,
      );
      geminiPid = Number((await emacs.eval('(process-id (get-buffer-process ide-companion--gemini-buffer))')).trim());
      await emacs.tmux.waitForText('Type your message', START_TIMEOUT_MS);
      const deadline = Date.now() + START_TIMEOUT_MS;
      for (;;) {
        await submitLine(emacs.tmux, '/ide status', STEP_TIMEOUT_MS);
        const screen = await emacs.tmux.waitForText(/Connected to Emacs|Disconnected|Connecting/, STEP_TIMEOUT_MS);
        if (/Connected to Emacs/.test(screen)) break;
        if (Date.now() > deadline) throw new Error(`never connected:\n${screen}`);
        await sleep(1000);
      }

      const inAgentTerminal = () =>
        emacs.evalJson<boolean>(
          '(if (and (eq (window-buffer (selected-window)) ide-companion--gemini-buffer) (with-current-buffer ide-companion--gemini-buffer (or (not (eq major-mode (quote term-mode))) (term-in-char-mode))) (not (active-minibuffer-window))) t :false)',
        );
      for (const [file, keys] of [
        ['a.txt', ['C-c', 'C-c']],
        ['b.txt', ['C-c', 'C-k']],
        ['c.txt', ['q', 'y']],
      ] as const) {
        await submitLine(emacs.tmux, `please write ${file}`, STEP_TIMEOUT_MS);
        await waitFor(
          async () => (await emacs.evalJson<string>('(buffer-name (window-buffer (selected-window)))')).startsWith('*Ediff Control Panel'),
          `the diff of ${file} in ediff`,
          STEP_TIMEOUT_MS,
        ).catch(async (err: Error) => {
          throw new Error(`${err.message}\n${await where()}`);
        });
        for (const key of keys) {
          emacs.tmux.keys(key);
          if (key === 'q') await emacs.tmux.waitForText(/Reject .* proposal for c\.txt\?/, STEP_TIMEOUT_MS);
        }
        await waitFor(
          async () => (await emacs.evalJson<number>('(hash-table-count ide-companion--diffs)')) === 0,
          `the diff ended by ${keys.join(' ')}`,
          STEP_TIMEOUT_MS,
        );
        await waitFor(inAgentTerminal, `the agent's term in char mode after ${keys.join(' ')}`, FOCUS_TIMEOUT_MS).catch(async (err: Error) => {
          throw new Error(`${err.message}: ${await where()}`);
        });
        if (file === 'a.txt')
          await waitFor(() => fs.readFileSync(path.join(emacs.workspace, file), 'utf8') === 'a from the model\n', 'gemini wrote a.txt', STEP_TIMEOUT_MS);
        // The user's next prompt, typed: it reaches gemini, which answers it below this turn.
        await submitLine(emacs.tmux, '/ide status', STEP_TIMEOUT_MS);
        await waitFor(
          () => /Connected to Emacs/.test(emacs.tmux.screen().split(`please write ${file}`).at(-1)!),
          'gemini to answer /ide status',
          STEP_TIMEOUT_MS,
        ).catch(async (err: Error) => {
          throw new Error(`${err.message}: ${await where()}`);
        });
      }
      assert.equal(fs.readFileSync(path.join(emacs.workspace, 'b.txt'), 'utf8'), 'b\n', 'the rejected change is not written');
      assert.equal(fs.readFileSync(path.join(emacs.workspace, 'c.txt'), 'utf8'), 'c\n', 'the change rejected by q y is not written');
    },
  );
