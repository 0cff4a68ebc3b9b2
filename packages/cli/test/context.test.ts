import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestCompanion, type TestCompanion } from '@ide-companion/server/testing';
import { waitFor } from '@ide-companion/testkit';
import { binEnv, focusFile, runBin, setup } from './support/clientCommands.js';

test('context: prints the normalised context the model would see (exit 0)', async () => {
  const s = await setup();
  try {
    const a = focusFile(s, 'a.ts', 'abc\n');
    s.companion.context.setCursor(a, { line: 1, character: 2 }, 'b'.repeat(20_000));
    const r = await runBin(['context'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 0, r.stderr);
    const ctx = JSON.parse(r.stdout);
    const file = ctx.workspaceState.openFiles[0];
    assert.equal(file.path, a);
    assert.equal(file.isActive, true);
    // The companion already cuts to 16 KiB with the marker; the CLI's cut then leaves it as is.
    assert.ok(file.selectedText.length <= 16384 + '... [TRUNCATED]'.length);
    assert.ok(file.selectedText.endsWith('... [TRUNCATED]'));
  } finally {
    await s.cleanup();
  }
});

test('context: no companion gives exit 1 and the reason on stderr', async () => {
  const s = await setup({ start: false });
  try {
    const r = await runBin(['context'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /ide-companion context: /);
  } finally {
    await s.cleanup();
  }
});

// Regression: SIGHUP (a closed terminal) ended --watch without ending its session.
test('context --watch --json: one line per change, survives a companion restart, exits 0 on SIGHUP as on SIGINT, ending its session', async () => {
  const s = await setup();
  let second: TestCompanion | undefined;
  const run = runBin(['context', '--watch', '--json'], { cwd: s.workspace, env: binEnv(s.tmp), timeoutMs: 120_000 });
  try {
    const collected: string[] = [];
    const lines = () => collected.map((l) => JSON.parse(l));
    let buffer = '';
    run.child.stdout!.on('data', (d: string) => {
      buffer += d;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      collected.push(...parts.filter(Boolean));
    });
    const first = focusFile(s, 'first.ts');
    await waitFor(() => lines().some((l) => l.workspaceState?.openFiles?.[0]?.path === first), 'the first context line', 30_000);
    const later = focusFile(s, 'later.ts');
    await waitFor(() => lines().some((l) => l.workspaceState?.openFiles?.[0]?.path === later), 'a line for the change', 30_000);
    // Restart: a new companion for the same workspace; the watcher finds it by itself.
    await s.companion.stop();
    second = await startTestCompanion({ tmp: s.tmp, workspace: s.workspace });
    const after = focusFile(second, 'after-restart.ts');
    await waitFor(() => lines().some((l) => l.workspaceState?.openFiles?.[0]?.path === after), 'context from the restarted companion', 60_000);
    run.child.kill('SIGHUP');
    const r = await run;
    assert.equal(r.code, 0);
    assert.deepEqual(second.companion.sessionList, []);
    assert.ok(
      lines().some((l) => l.status === 'disconnected'),
      'the drop was reported',
    );
    // Issue 39: the user's own stop read "[disconnected: IDE integration stopped.]"; it says what happened.
    assert.deepEqual(lines().at(-1), { status: 'stopped', signal: 'SIGHUP' });
    assert.equal(lines().filter((l) => l.details === 'IDE integration stopped.').length, 0, 'no disconnection reported for the stop');
  } finally {
    run.child.kill('SIGKILL');
    await second?.cleanup();
    await s.cleanup();
  }
});

// Issue 39, trip 10: Ctrl-C on a text-mode --watch said "[disconnected: IDE integration stopped.]", as if the IDE had gone.
test('context --watch in text mode: Ctrl-C (SIGINT) says "[stopped watching (Ctrl-C)]", exits 0 and ends its session; no disconnection is reported', async () => {
  const s = await setup();
  const run = runBin(['context', '--watch'], { cwd: s.workspace, env: binEnv(s.tmp), timeoutMs: 60_000 });
  try {
    let stderr = '';
    run.child.stderr!.on('data', (d: string) => (stderr += d));
    let stdout = '';
    run.child.stdout!.on('data', (d: string) => (stdout += d));
    const file = focusFile(s, 'watched.ts');
    await waitFor(() => stdout.includes(JSON.stringify(file)) && s.companion.sessionList.length === 1, 'the context printed and the session open', 30_000);
    assert.match(stderr, /^\[connected to /m);
    run.child.kill('SIGINT');
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /\n\[stopped watching \(Ctrl-C\)\]\n$/);
    assert.doesNotMatch(r.stderr, /disconnected/);
    assert.deepEqual(s.companion.sessionList, []);
  } finally {
    run.child.kill('SIGKILL');
    await s.cleanup();
  }
});
