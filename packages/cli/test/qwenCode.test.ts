/**
 * Qwen Code (issue 19), the real pinned CLI, against `ide-companion serve`:
 * started in the project in another terminal, it finds serve through the lock
 * file the Qwen face writes, and `/ide status` says Connected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  findQwenCode,
  makeQwenHome,
  qwenCommand,
  skipUnless,
  proposeWriteTurns,
  startOpenAiMock,
  submitLine,
  waitFor,
  waitQwenIdeConnected,
  which,
  editorWriting,
} from '@ide-companion/testkit';
import { serveDirs, startServe } from './support/serveInTmux.js';

const qwen = findQwenCode();
const skip =
  skipUnless(qwen !== undefined, 'Qwen Code 0.24.4', 'run scripts/install-qwen-code.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test(
  "qwen in the project connects to ide-companion serve; its proposed write, edited in $EDITOR and accepted in serve's terminal, lands byte for byte, and a rejected one changes nothing",
  { skip, timeout: 240_000 },
  async (t) => {
    const dirs = serveDirs('ide-companion-qwen-serve-');
    const { project, tmpdir } = dirs;
    const qwenHome = makeQwenHome(path.join(dirs.root, 'qwen-home'));
    const file = path.join(project, 'a.txt');
    fs.writeFileSync(file, 'original line\n');
    // What the user's $EDITOR writes in serve: CRLF, non-ASCII, no final newline.
    const edited = 'the user’s line\r\nsecond 😀';
    const editor = editorWriting(dirs.root, edited);
    // The first prompt reads and writes; the second proposes again (the file already read).
    const model = await startOpenAiMock([
      ...proposeWriteTurns(file, 'line from the model\n'),
      { tool: 'write_file', args: { file_path: file, content: 'rejected text\n' } },
      { text: 'Done.' },
    ]);
    const { serve, tui } = await startServe(t, dirs, model, { QWEN_HOME: qwenHome, EDITOR: editor }, `cd ${project} && gemini`, [200, 50]);
    const locks = fs.readdirSync(path.join(qwenHome, 'ide')).filter((name) => name.endsWith('.lock'));
    assert.equal(locks.length, 1, 'serve wrote one lock file');
    tui.start(qwenCommand(qwen!, { home: path.join(dirs.root, 'home'), tmpdir, qwenHome, baseUrl: model.baseUrl }), { cwd: project });
    assert.match(await waitQwenIdeConnected(tui), /Connected to IDE Companion \(terminal\)/);

    await submitLine(tui, 'please change a.txt');
    await serve.waitForText(`proposes a change to ${file}`, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- qwen ---\n${tui.screen()}`);
    });
    await serve.waitForText('[a]ccept', 10_000);
    serve.type('e');
    await serve.waitForText('(with your edits)', 10_000);
    serve.type('a');
    await waitFor(() => fs.readFileSync(file, 'utf8') === edited, "Qwen Code to write the user's text", 60_000).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- qwen ---\n${tui.screen()}`);
    });

    await submitLine(tui, 'once more');
    await serve.waitForText('+rejected text', 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- qwen ---\n${tui.screen()}`);
    });
    serve.type('r');
    await serve.waitForText('Rejected', 10_000);
    // Time for Qwen Code to act on the outcome: it must not write.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(fs.readFileSync(file, 'utf8'), edited, 'the rejected proposal never reached the file');
  },
);
