/**
 * Qwen Code (issue 19), the real pinned CLI, against the companion this Neovim
 * runs: no plugin of Qwen's own, only the lock file the Qwen face writes.
 * Started in the workspace, `/ide status` says Connected to Neovim.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findQwenCode, makeQwenHome, qwenArgv, shellCommand, skipUnless, Tmux, waitQwenIdeConnected, which } from '@ide-companion/testkit';
import { hasNvim, startNeovim } from './harness.js';

const qwen = findQwenCode();
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(qwen !== undefined, 'Qwen Code 0.24.4', 'run scripts/install-qwen-code.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test(
  'Qwen Code started in the workspace finds the Qwen lock file of this Neovim: /ide status says Connected to Neovim',
  { skip, timeout: 180_000 },
  async (t) => {
    const s = await startNeovim({ files: { 'a.txt': 'hello\n' } });
    const tui = new Tmux(200, 50);
    t.after(async () => {
      await tui.stop();
      await s.close();
    });
    await s.discovery();
    const qwenHome = path.join(s.tmp, 'qwen-home');
    const lock = await s.lua<{ port: number }>('return require("ide_companion.host").state.info');
    assert.ok(fs.existsSync(path.join(qwenHome, 'ide', `${lock.port}.lock`)), 'the host wrote the lock file');
    makeQwenHome(qwenHome);
    fs.mkdirSync(path.join(s.tmp, 'home'));
    tui.start(shellCommand(qwenArgv(qwen!), { HOME: path.join(s.tmp, 'home'), TMPDIR: s.tmp, QWEN_HOME: qwenHome }, ['CI', 'GITHUB_ACTIONS', 'TERM_PROGRAM']), {
      cwd: s.workspace,
    });
    assert.match(await waitQwenIdeConnected(tui), /Connected to Neovim/);
  },
);
