/**
 * M-x ide-companion-agent runs an ACP agent (the real Gemini CLI 0.61.0
 * `--acp`, scripted turns, its own IDE mode off) under `ide-companion agent` in
 * a terminal inside Emacs (term: the argv runs without a shell): it connects to
 * this Emacs, and the write it proposes opens Emacs's diff, where the user's
 * edit accepted with C-c C-c lands byte for byte.
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
  waitFor,
  writeAcpGeminiScript,
  writeFakeResponses,
  writeFileTurns,
} from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { elispString, startEmacs, waitForProposalBuffer } from './harness.js';

const cli = findGeminiCli();
const skip = skipEmacsInTmux || skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');
const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const EDITED = 'line the user wrote in Emacs ✓\n';

test(
  'M-x ide-companion-agent runs an ACP agent connected to this Emacs; its write opens the diff and the edited accept lands',
  { skip, timeout: 6 * 60_000 },
  async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'original line\n' }, open: ['a.txt'] });
    let pid = 0;
    t.after(async () => {
      if (pid) process.kill(-pid, 'SIGKILL');
      await emacs.close();
    });
    const file = path.join(emacs.workspace, 'a.txt');
    const dirs = { path: emacs.tmp, home: makeGeminiHome(path.join(emacs.tmp, 'gemini-home')), fakeResponses: path.join(emacs.tmp, 'turns.jsonl') };
    writeFakeResponses(dirs.fakeResponses, writeFileTurns('a.txt', 'line from the model\n', 'Wrote it.'));
    const script = writeAcpGeminiScript(dirs, cli!, geminiEnv({ home: dirs.home, tmpdir: emacs.tmp }));
    await emacs.discovery();
    await emacs.eval(`(setq ide-companion-agent-command (list ${elispString(script)}))`);
    emacs.tmux.keys('M-x');
    emacs.tmux.type('ide-companion-agent');
    emacs.tmux.keys('Enter');
    const text = () => emacs.evalJson<string>('(with-current-buffer ide-companion--agent-buffer (buffer-substring-no-properties (point-min) (point-max)))');
    pid = await waitFor(
      async () =>
        Number((await emacs.eval('(if (buffer-live-p ide-companion--agent-buffer) (process-id (get-buffer-process ide-companion--agent-buffer)) 0)')).trim()) ||
        undefined,
      'the agent terminal',
      STEP_TIMEOUT_MS,
    );
    await waitFor(async () => (await text()).includes('IDE: connected to Emacs') || undefined, 'connected to Emacs', START_TIMEOUT_MS).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${emacs.tmux.screen()}`);
    });
    await waitFor(async () => (await text()).includes('[agent: ') || undefined, 'the agent started', START_TIMEOUT_MS);
    emacs.tmux.type('please write a.txt');
    emacs.tmux.keys('Enter');
    const proposal = await waitForProposalBuffer(emacs, STEP_TIMEOUT_MS, file).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${emacs.tmux.screen()}`);
    });
    assert.equal(await emacs.evalJson(`(with-current-buffer ${elispString(proposal)} (buffer-string))`), 'line from the model\n');
    await emacs.eval(`(with-current-buffer ${elispString(proposal)} (erase-buffer) (insert ${elispString(EDITED)}))`);
    await emacs.eval(`(select-window (get-buffer-window ${elispString(proposal)}))`);
    emacs.tmux.keys('C-c', 'C-c');
    await waitFor(async () => (await text()).includes('Wrote it.') || undefined, 'the turn after the write', STEP_TIMEOUT_MS);
    assert.equal(fs.readFileSync(file, 'utf8'), EDITED);
  },
);
