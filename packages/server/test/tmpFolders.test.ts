/**
 * The folders a companion makes in TMP (issue 30): `gemini/ide`, `gemini`
 * and `ide-companion-UID` stayed, empty, after every companion had stopped.
 * Now the last one to stop removes them; one still running keeps them (its
 * files are in them), and one starting after a removal makes them again.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { makeTempDir } from '@ide-companion/testkit';
import { Companion } from '../src/companion.js';
import { silentLogger } from '../src/logger.js';

function companionIn(tmp: string): Companion {
  fs.mkdirSync(path.join(tmp, 'ws'), { recursive: true });
  return new Companion({
    ideInfo: { name: 'test-ide', displayName: 'Test IDE' },
    workspaceRoots: [path.join(tmp, 'ws')],
    tmpdir: tmp,
    logger: silentLogger,
    handleSignals: false,
    agents: ['gemini'],
  });
}

test('the last companion to stop removes the empty folders it made in TMP; one still running keeps them', async (t) => {
  const tmp = makeTempDir('ide-companion-tmpdirs-');
  t.after(() => tmp.cleanup());
  const first = companionIn(tmp.path);
  const second = companionIn(tmp.path);
  t.after(() => Promise.all([first.stop(), second.stop()]));
  await first.start();
  await second.start();
  const ours = () =>
    fs
      .readdirSync(tmp.path)
      .filter((n) => n !== 'ws')
      .sort();
  assert.deepEqual(ours(), ['gemini', `ide-companion-${process.getuid?.()}`]);
  await first.stop();
  assert.ok(fs.existsSync(second.discoveryFilePath!), "the running companion's discovery file stays");
  assert.ok(fs.existsSync(second.socketPath!), 'and its socket');
  await second.stop();
  // What stays is the stable per-user address (issue 29: a container or SSH session set up once mounts it,
  // so it outlives every companion), with no socket left in it.
  const uidDir = `ide-companion-${process.getuid?.()}`;
  assert.deepEqual(ours(), [uidDir]);
  assert.deepEqual(fs.readdirSync(path.join(tmp.path, uidDir)), ['workspaces']);
  assert.deepEqual(fs.readdirSync(path.join(tmp.path, uidDir, 'workspaces')), []);
  // One starting afterwards makes them again.
  const third = companionIn(tmp.path);
  t.after(() => third.stop());
  await third.start();
  assert.ok(fs.existsSync(third.discoveryFilePath!));
});
