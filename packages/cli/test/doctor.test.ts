import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isProcessAlive } from '@ide-companion/server';
import { binEnv, runBin, setup } from './support/clientCommands.js';

/** Above every OS's PID ceiling: never alive. */
function deadPid(): number {
  const pid = 90_000_777;
  assert.equal(isProcessAlive(pid), false);
  return pid;
}

test('doctor: says gemini would connect, and why (exit 0)', async () => {
  const s = await setup();
  try {
    const r = await runBin(['doctor'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^gemini started in .* would connect to Test IDE\./);
    assert.match(r.stdout, /✔ \[workspace\]/);
    assert.match(r.stdout, /✔ \[reachability\] http:\/\/127\.0\.0\.1:\d+\/mcp \(file\): connected/);
    assert.equal(r.stdout.includes(s.companion.authToken), false);
  } finally {
    await s.cleanup();
  }
});

// Regression: `doctor --json` printed the chosen discovery file's content, token included
// (redactDiscovery redacted `files` but not `chosen`, the same object). Both are redacted now.
test('doctor: from another folder, lists the workspace roots to run from (exit 1)', async () => {
  const s = await setup();
  try {
    const other = path.join(s.tmp, 'other');
    fs.mkdirSync(other);
    const r = await runBin(['doctor', '--json'], { cwd: other, env: binEnv(s.tmp) });
    assert.equal(r.code, 1);
    const report = JSON.parse(r.stdout);
    assert.equal(report.wouldConnect, false);
    const ws = report.findings.find((f: { topic: string; ok: boolean }) => f.topic === 'workspace');
    assert.equal(ws.ok, false);
    assert.ok(ws.advice.includes(s.workspace), 'the advice names the root');
    assert.equal(r.stdout.includes(s.companion.authToken), false, 'JSON never carries the token');
  } finally {
    await s.cleanup();
  }
});

test('doctor: a stale file of a dead IDE is named as stale, with its path to delete (exit 1)', async () => {
  const s = await setup({ start: false });
  try {
    const pid = deadPid();
    const stale = path.join(s.tmp, 'gemini', 'ide', `gemini-ide-server-${pid}-1.json`);
    fs.writeFileSync(stale, JSON.stringify({ port: 1, workspacePath: s.workspace, authToken: 't', ideInfo: { name: 'x', displayName: 'X' } }), { mode: 0o600 });
    const r = await runBin(['doctor'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /not running \(stale\)/);
    assert.ok(r.stdout.includes(`Delete ${stale}`));
    assert.match(r.stdout, /✖ \[reachability\] http:\/\/127\.0\.0\.1:1\/mcp/);
  } finally {
    await s.cleanup();
  }
});

test('doctor: a refused token is explained (exit 1)', async () => {
  const s = await setup();
  try {
    const file = s.companion.discoveryFilePath!;
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, JSON.stringify({ ...json, authToken: 'stale-token' }));
    const r = await runBin(['doctor'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /token was refused/);
    assert.equal(r.stdout.includes('stale-token'), false);
  } finally {
    await s.cleanup();
  }
});

test(
  'doctor: in a container without REMOTE_CONTAINERS the host mapping is explained',
  { skip: ['/.dockerenv', '/run/.containerenv'].some((f) => fs.existsSync(f)) ? false : 'not in a container' },
  async () => {
    const s = await setup();
    try {
      const env = binEnv(s.tmp);
      delete env['REMOTE_CONTAINERS'];
      delete env['SSH_CONNECTION'];
      delete env['VSCODE_REMOTE_CONTAINERS_SESSION'];
      const r = await runBin(['doctor'], { cwd: s.workspace, env });
      assert.equal(r.code, 1);
      assert.match(r.stdout, /host\.docker\.internal/);
      assert.match(r.stdout, /export REMOTE_CONTAINERS=1/);
    } finally {
      await s.cleanup();
    }
  },
);

test("doctor: Google's VS Code companion installed beside ours is named, with how to keep one", async () => {
  const s = await setup();
  try {
    const home = path.join(s.tmp, 'home');
    fs.mkdirSync(path.join(home, '.vscode', 'extensions', 'google.gemini-cli-vscode-ide-companion-0.7.0'), { recursive: true });
    const r = await runBin(['doctor', '--json'], { cwd: s.workspace, env: binEnv(s.tmp, { HOME: home }) });
    const note = JSON.parse(r.stdout).findings.find((f: { topic: string }) => f.topic === 'VS Code');
    assert.ok(note, r.stdout);
    assert.equal(note.ok, false);
    assert.match(note.text, /Google's Gemini CLI companion 0\.7\.0 is installed for VS Code/);
    assert.match(note.advice, /Keep one per window/);
    const clean = await runBin(['doctor', '--json'], { cwd: s.workspace, env: binEnv(s.tmp, { HOME: path.join(s.tmp, 'empty-home') }) });
    assert.equal(
      JSON.parse(clean.stdout).findings.some((f: { topic: string }) => f.topic === 'VS Code'),
      false,
    );
  } finally {
    await s.cleanup();
  }
});
