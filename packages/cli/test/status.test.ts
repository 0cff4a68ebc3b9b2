import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { binEnv, focusFile, runBin, setup } from './support/clientCommands.js';

test('status: connected, with the open files and the companion chosen (exit 0)', async () => {
  const s = await setup();
  try {
    focusFile(s, 'one.ts');
    focusFile(s, 'two.ts');
    const text = await runBin(['status'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^🟢 Connected to Test IDE/);
    assert.match(text.stdout, /Open files:\n {2}- two\.ts \(active\)\n {2}- one\.ts\n/);
    assert.ok(text.stdout.includes(s.companion.discoveryFilePath!));
    const json = await runBin(['status', '--json'], { cwd: s.workspace, env: binEnv(s.tmp) });
    const report = JSON.parse(json.stdout);
    assert.equal(report.status, 'connected');
    assert.equal(report.companion.target.port, s.companion.port);
    assert.deepEqual(report.openFiles.map((f: { path: string }) => path.basename(f.path)), ['two.ts', 'one.ts']);
    assert.equal(json.stdout.includes(s.companion.authToken), false, 'the token is never printed');
  } finally {
    await s.cleanup();
  }
});

// Regression: every status run left its session counted by the companion until the grace expired.
test('status, doctor and context end their session on exit: the companion lists none right after', async () => {
  const s = await setup();
  try {
    focusFile(s, 'one.ts');
    for (const args of [['status'], ['doctor'], ['context']]) {
      const r = await runBin(args, { cwd: s.workspace, env: binEnv(s.tmp) });
      assert.equal(r.code, 0, `${args[0]}: ${r.stderr}`);
      assert.deepEqual(s.companion.sessionList, [], `${args[0]} left a session`);
    }
  } finally {
    await s.cleanup();
  }
});

test('status: disconnected with the CLI\'s mismatch message from another folder (exit 1)', async () => {
  const s = await setup();
  try {
    const elsewhere = path.join(s.tmp, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const r = await runBin(['status', '--json'], { cwd: elsewhere, env: binEnv(s.tmp) });
    assert.equal(r.code, 1);
    const report = JSON.parse(r.stdout);
    assert.equal(report.status, 'disconnected');
    assert.match(report.headline, /^🔴 Disconnected: Directory mismatch/);
    assert.ok(report.details.includes(s.workspace));
  } finally {
    await s.cleanup();
  }
});

test('status: no companion at all (exit 1) and a bad option (exit 2)', async () => {
  const s = await setup({ start: false });
  try {
    const r = await runBin(['status'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /🔴 Disconnected/);
    const bad = await runBin(['status', '--bogus'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bogus/);
  } finally {
    await s.cleanup();
  }
});
