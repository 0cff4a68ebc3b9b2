/**
 * Issue 27 item 2: `serve --workspace /` served the whole machine (its
 * discovery file said `/`, and openFile /etc/passwd went to the editor). serve
 * now refuses to start for `/` (however written) or the home folder as a
 * whole, saying why, and writes no discovery file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { makeTempDir, repoRoot } from '@ide-companion/testkit';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

test('serve refuses `/`, `//`, `/./`, the home folder and a missing folder as its workspace, says why, and writes no discovery file', (t) => {
  const tmp = makeTempDir();
  t.after(() => tmp.cleanup());
  const home = path.join(tmp.path, 'home');
  fs.mkdirSync(home);
  const env = { ...process.env, TMPDIR: tmp.path, HOME: home, QWEN_HOME: path.join(tmp.path, 'qwen'), CLAUDE_CONFIG_DIR: path.join(tmp.path, 'claude') };
  for (const [workspace, said] of [
    ['/', /workspace \/ refused: it is the file system's root/],
    ['//', /workspace \/\/ refused: it is the file system's root/],
    ['/./', /workspace \/\.\/ refused: it is the file system's root/],
    [home, /refused: it is your home folder as a whole/],
    [path.join(tmp.path, 'gone'), /workspace .*gone does not exist/],
  ] as const) {
    const run = spawnSync(process.execPath, [bin, 'serve', '--json', '--workspace', workspace], {
      env,
      encoding: 'utf8',
      timeout: 15_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.notEqual(run.status, 0, `${workspace}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, said, workspace);
    assert.equal(
      fs.existsSync(path.join(tmp.path, 'gemini', 'ide')) && fs.readdirSync(path.join(tmp.path, 'gemini', 'ide')).length > 0,
      false,
      'no discovery file',
    );
  }
  // Started in the home folder with no --workspace: the same refusal.
  const inHome = spawnSync(process.execPath, [bin, 'serve', '--json'], {
    cwd: home,
    env,
    encoding: 'utf8',
    timeout: 15_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  assert.notEqual(inHome.status, 0);
  assert.match(inHome.stderr, /refused: it is your home folder as a whole/);
});
