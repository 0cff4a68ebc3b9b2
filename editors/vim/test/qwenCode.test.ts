/**
 * Qwen Code (issue 19), the real pinned CLI, against the companion this Vim
 * runs: only the lock file the Qwen face writes. Started in the workspace,
 * `/ide status` says Connected to Vim; it sees Vim's selection, and its
 * proposed write, rewritten in Vim's diff and saved, lands byte for byte.
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
} from '@ide-companion/testkit';
import { gotoBuffer, skipVim, startVim, TIMEOUT, waitForDiff } from './harness.js';

const qwen = findQwenCode();
const skip = skipVim || skipUnless(qwen !== undefined, 'Qwen Code 0.24.4', 'run scripts/install-qwen-code.sh');

test('Qwen Code started in the workspace finds the Qwen lock file of this Vim: /ide status says Connected to Vim', { skip, timeout: 180_000 }, async (t) => {
  const dirs = makeTempDir('ide-companion-vim-qwen-');
  const qwenHome = makeQwenHome(path.join(dirs.path, 'qwen-home'));
  const s = await startVim({ files: { 'a.txt': 'hello\n' }, env: { QWEN_HOME: qwenHome } });
  const tui = new Tmux(200, 50);
  t.after(async () => {
    await tui.stop();
    await s.close();
    dirs.cleanup();
  });
  const { content } = await s.discovery();
  assert.ok(fs.existsSync(path.join(qwenHome, 'ide', `${content.port}.lock`)), "Vim's host wrote the lock file");
  tui.start(qwenCommand(qwen!, { home: path.join(dirs.path, 'home'), tmpdir: s.tmp, qwenHome }), {
    cwd: s.workspace,
  });
  assert.match(await waitQwenIdeConnected(tui), /Connected to Vim/);
});

test(
  "Qwen Code sees Vim's selection; its proposed write rewritten in Vim's diff and saved with :w lands byte for byte, a rejected one changes nothing",
  { skip, timeout: 240_000 },
  async (t) => {
    const dirs = makeTempDir('ide-companion-vim-qwen-');
    const qwenHome = makeQwenHome(path.join(dirs.path, 'qwen-home'));
    const s = await startVim({ files: { 'a.txt': 'original line\n' }, env: { QWEN_HOME: qwenHome } });
    const file = path.join(s.workspace, 'a.txt');
    // The first prompt reads and writes; the second proposes again (the file already read).
    const model = await startOpenAiMock([
      ...proposeWriteTurns(file, 'line from the model\n'),
      { tool: 'write_file', args: { file_path: file, content: 'rejected text\n' } },
      { text: 'Done.' },
    ]);
    const tui = new Tmux(200, 50);
    t.after(async () => {
      await tui.stop();
      await model.close();
      await s.close();
      dirs.cleanup();
    });
    await s.discovery();
    tui.start(qwenCommand(qwen!, { home: path.join(dirs.path, 'home'), tmpdir: s.tmp, qwenHome, baseUrl: model.baseUrl }), { cwd: s.workspace });
    assert.match(await waitQwenIdeConnected(tui), /Connected to Vim/);
    await s.ex('edit a.txt');
    s.type('gg0wve');
    await new Promise((resolve) => setTimeout(resolve, 700));
    await submitLine(tui, 'please change a.txt');
    const diff = await waitForDiff(s, file, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    assert.match(model.agentRequests()[0] ?? '', /Selected text:\\n```\\nline\\n```/);
    const status = await s.ex('GeminiStatus');
    assert.match(status, /connected \(Qwen Code\)/);
    await gotoBuffer(s, diff.proposal);
    s.type('ccthe user’s line 😀');
    s.keys('Escape');
    s.type(':w');
    s.keys('Enter');
    await waitFor(() => fs.readFileSync(file, 'utf8') === 'the user’s line 😀\n', "Qwen Code to write the user's text", TIMEOUT * 3).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tui.screen()}`);
    });

    await submitLine(tui, 'once more');
    const second = await waitForDiff(s, file, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    await gotoBuffer(s, second.proposal);
    await s.ex('GeminiReject');
    await waitFor(async () => (await s.expr<unknown[]>('ide_companion#diff#list()')).length === 0, 'the diff to close', TIMEOUT);
    // Time for Qwen Code to act on the outcome: it must not write.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(fs.readFileSync(file, 'utf8'), 'the user’s line 😀\n', 'the rejected proposal never reached the file');
  },
);
