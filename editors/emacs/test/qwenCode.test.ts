/**
 * Qwen Code (issue 19), the real pinned CLI, against the companion this
 * Emacs runs: only the lock file the Qwen face writes. Started in the
 * workspace, `/ide status` says Connected to Emacs, and its proposed write,
 * edited in the proposal buffer and accepted, lands byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  findQwenCode,
  makeQwenHome,
  makeTempDir,
  proposeWriteTurns,
  qwenCommand,
  skipUnless,
  startOpenAiMock,
  submitLine,
  Tmux,
  waitFor,
  waitQwenIdeConnected,
  which,
} from '@ide-companion/testkit';
import { emacsclientPath, hasEmacs } from './emacs.js';
import { elispString, startEmacs, TIMEOUT, waitForProposalBuffer } from './harness.js';

const qwen = findQwenCode();
const skip =
  skipUnless(hasEmacs && emacsclientPath !== undefined, 'emacs and emacsclient', 'apt-get install -y emacs-nox') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux') ||
  skipUnless(qwen !== undefined, 'Qwen Code 0.24.4', 'run scripts/install-qwen-code.sh');

test(
  'Qwen Code connects to this Emacs, and its proposed write, edited in the proposal buffer and accepted, lands byte for byte',
  { skip, timeout: 240_000 },
  async (t) => {
    const dirs = makeTempDir('ide-companion-emacs-qwen-');
    const qwenHome = makeQwenHome(path.join(dirs.path, 'qwen-home'));
    const emacs = await startEmacs({ files: { 'a.txt': 'original line\n' }, open: ['a.txt'], env: { QWEN_HOME: qwenHome } });
    const file = path.join(emacs.workspace, 'a.txt');
    const model = await startOpenAiMock(proposeWriteTurns(file, 'line from the model\n'));
    const tui = new Tmux(200, 50);
    t.after(async () => {
      await tui.stop();
      await model.close();
      await emacs.close();
      dirs.cleanup();
    });
    const { content } = await emacs.discovery();
    assert.ok(fs.existsSync(path.join(qwenHome, 'ide', `${content.port}.lock`)), "Emacs's host wrote the lock file");
    tui.start(qwenCommand(qwen!, { home: path.join(dirs.path, 'home'), tmpdir: emacs.tmp, qwenHome, baseUrl: model.baseUrl }), { cwd: emacs.workspace });
    assert.match(await waitQwenIdeConnected(tui), /Connected to Emacs/);
    await submitLine(tui, 'please change a.txt');
    const proposal = await waitForProposalBuffer(emacs, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    const edited = 'the user’s line 😀\nno final newline';
    await emacs.eval(`(with-current-buffer ${elispString(proposal)} (erase-buffer) (insert ${elispString(edited)}) (ide-companion-accept))`);
    await waitFor(() => fs.readFileSync(file, 'utf8') === edited, "Qwen Code to write the user's text", TIMEOUT * 2).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tui.screen()}`);
    });
  },
);
