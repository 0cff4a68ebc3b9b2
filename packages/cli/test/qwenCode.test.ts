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
  IDE_COMPANION_BIN,
  makeQwenHome,
  makeTempDir,
  qwenArgv,
  shellCommand,
  skipUnless,
  Tmux,
  waitQwenIdeConnected,
  which,
} from '@ide-companion/testkit';

const qwen = findQwenCode();
const skip =
  skipUnless(qwen !== undefined, 'Qwen Code 0.24.4', 'run scripts/install-qwen-code.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test('qwen in the project connects to ide-companion serve: /ide status says Connected to IDE Companion (terminal)', { skip, timeout: 180_000 }, async (t) => {
  const tmp = makeTempDir('ide-companion-qwen-serve-');
  const project = path.join(tmp.path, 'proj');
  const tmpdir = path.join(tmp.path, 'tmp');
  const qwenHome = makeQwenHome(path.join(tmp.path, 'qwen-home'));
  for (const dir of [project, tmpdir, path.join(tmp.path, 'home')]) fs.mkdirSync(dir);
  const serve = new Tmux(160, 40);
  const tui = new Tmux(200, 50);
  t.after(async () => {
    await tui.stop();
    await serve.stop();
    tmp.cleanup();
  });
  serve.start(shellCommand([process.execPath, IDE_COMPANION_BIN, 'serve', '--no-color'], { TMPDIR: tmpdir, QWEN_HOME: qwenHome }), { cwd: project });
  await serve.waitForText(`cd ${project} && gemini`, 60_000);
  const locks = fs.readdirSync(path.join(qwenHome, 'ide')).filter((name) => name.endsWith('.lock'));
  assert.equal(locks.length, 1, 'serve wrote one lock file');
  tui.start(
    shellCommand(qwenArgv(qwen!), { HOME: path.join(tmp.path, 'home'), TMPDIR: tmpdir, QWEN_HOME: qwenHome }, ['CI', 'GITHUB_ACTIONS', 'TERM_PROGRAM']),
    { cwd: project },
  );
  assert.match(await waitQwenIdeConnected(tui), /Connected to IDE Companion \(terminal\)/);
});
