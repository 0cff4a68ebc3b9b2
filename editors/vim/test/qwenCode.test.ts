/**
 * Qwen Code (issue 19), the real pinned CLI, against the companion this Vim
 * runs: only the lock file the Qwen face writes. Started in the workspace,
 * `/ide status` says Connected to Vim.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findQwenCode, makeQwenHome, makeTempDir, qwenCommand, skipUnless, Tmux, waitQwenIdeConnected } from '@ide-companion/testkit';
import { skipVim, startVim } from './harness.js';

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
