import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor } from '@ide-companion/testkit';
import { binEnv, runBin, setup } from './support/clientCommands.js';

test("diff: accept prints the final content with the user's edits and leaves FILE alone (exit 0)", async () => {
  const s = await setup();
  try {
    const file = path.join(s.workspace, 'f.txt');
    fs.writeFileSync(file, 'old\n');
    const run = runBin(['diff', 'f.txt', '-'], { cwd: s.workspace, env: binEnv(s.tmp), stdin: 'new\n' });
    const shown = await waitFor(() => s.view.shown[0], 'the diff in the IDE', 30_000);
    assert.equal(shown.filePath, file);
    assert.equal(shown.newContent, 'new\n');
    s.companion.diffs.accept(shown.id, 'new, edited\n');
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'new, edited\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n');
  } finally {
    await s.cleanup();
  }
});

test('diff --write --json: writes FILE on accept, from NEWFILE', async () => {
  const s = await setup();
  try {
    const file = path.join(s.workspace, 'g.txt');
    fs.writeFileSync(file, 'old\n');
    fs.writeFileSync(path.join(s.tmp, 'proposal.txt'), 'proposed\n');
    const run = runBin(['diff', file, path.join(s.tmp, 'proposal.txt'), '--write', '--json'], { cwd: s.workspace, env: binEnv(s.tmp) });
    const shown = await waitFor(() => s.view.shown[0], 'the diff', 30_000);
    s.companion.diffs.accept(shown.id);
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { status: 'accepted', filePath: file, content: 'proposed\n', written: true });
    assert.equal(fs.readFileSync(file, 'utf8'), 'proposed\n');
  } finally {
    await s.cleanup();
  }
});

test('diff: reject exits 1 and writes nothing even with --write', async () => {
  const s = await setup();
  try {
    const file = path.join(s.workspace, 'h.txt');
    fs.writeFileSync(file, 'keep\n');
    const run = runBin(['diff', 'h.txt', '-', '--write'], { cwd: s.workspace, env: binEnv(s.tmp), stdin: 'nope\n' });
    const shown = await waitFor(() => s.view.shown[0], 'the diff', 30_000);
    s.companion.diffs.reject(shown.id);
    const r = await run;
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.equal(fs.readFileSync(file, 'utf8'), 'keep\n');
  } finally {
    await s.cleanup();
  }
});

test('diff: the companion going away mid-diff is an error (exit 3), not a hang', async () => {
  const s = await setup();
  try {
    const run = runBin(['diff', 'gone.txt', '-'], { cwd: s.workspace, env: binEnv(s.tmp), stdin: 'x' });
    await waitFor(() => s.view.shown[0], 'the diff', 30_000);
    await s.companion.stop();
    const r = await run;
    assert.equal(r.code, 3);
    assert.match(r.stderr, /ide-companion diff: /);
  } finally {
    await s.cleanup();
  }
});

test('diff: no companion exits 3; missing FILE exits 2; unreadable NEWFILE exits 2', async () => {
  const s = await setup({ start: false });
  try {
    const none = await runBin(['diff', 'a.txt', '-'], { cwd: s.workspace, env: binEnv(s.tmp), stdin: 'x' });
    assert.equal(none.code, 3);
    const usage = await runBin(['diff'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(usage.code, 2);
    const missing = await runBin(['diff', 'a.txt', 'no-such-file'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /ENOENT/);
  } finally {
    await s.cleanup();
  }
});

// Regression: a diff killed with SIGTERM or SIGHUP left its proposal open for the user.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  test(`diff: ${signal} closes the diff in the IDE and exits 1 as a rejection`, async () => {
    const s = await setup();
    try {
      const run = runBin(['diff', 'int.txt', '-', '--json'], { cwd: s.workspace, env: binEnv(s.tmp), stdin: 'x' });
      await waitFor(() => s.view.shown[0], 'the diff', 30_000);
      run.child.kill(signal);
      const r = await run;
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), { status: 'rejected', filePath: path.join(s.workspace, 'int.txt'), interrupted: true });
      await waitFor(() => s.view.closed.length === 1, 'the view closed by closeDiff');
      assert.deepEqual(s.companion.diffs.list(), []);
      assert.deepEqual(s.companion.sessionList, []);
    } finally {
      await s.cleanup();
    }
  });
}
