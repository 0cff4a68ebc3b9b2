import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureDiscoveryDir, isProcessAlive } from '@ide-companion/server';
import { faceDefinition } from '@ide-companion/server/faces/registry';
import { startTestCompanion } from '@ide-companion/server/testing';
import { waitFor } from '@ide-companion/testkit';
import { BIN, binEnv, runBin, setup } from './support/clientCommands.js';

test('list: shows every companion with IDE, PID, port, workspace and liveness', async () => {
  const s = await setup();
  try {
    // Above every OS's PID ceiling: never alive.
    const dead = 90_000_888;
    assert.equal(isProcessAlive(dead), false);
    fs.writeFileSync(
      path.join(s.tmp, 'gemini', 'ide', `gemini-ide-server-${dead}-9.json`),
      JSON.stringify({ port: 9, workspacePath: '/somewhere', authToken: 't', ideInfo: { name: 'old', displayName: 'Old IDE' } }),
    );
    const r = await runBin(['list', '--json'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    const live = rows.find((x) => x['port'] === s.companion.port)!;
    assert.equal(live['state'], 'alive');
    assert.equal(live['chosenHere'], true);
    assert.deepEqual(live['ide'], { name: 'test-ide', displayName: 'Test IDE' });
    assert.deepEqual(live['roots'], [s.workspace]);
    // It serves every other agent too (the test's folders given count as named): their lock files name the same port and IDE PID.
    assert.deepEqual(live['agents'], ['gemini', 'qwen', 'claude', 'copilot', 'codex', 'amp', 'droid']);
    const stale = rows.find((x) => x['pid'] === dead)!;
    assert.equal(stale['state'], 'stale');
    assert.equal(stale['chosenHere'], false);
    assert.equal(r.stdout.includes(s.companion.authToken), false);
    const text = await runBin(['list'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.match(
      text.stdout,
      /^\*\s+Test IDE\s+\d+\s+\d+\s+alive\s+Gemini CLI, Qwen Code, Claude Code, opencode, GitHub Copilot CLI, Codex CLI, Amp, Factory Droid\s+/m,
    );
    assert.match(text.stdout, /Old IDE\s+\d+\s+9\s+stale\s+Gemini CLI\s+\/somewhere/);
  } finally {
    await s.cleanup();
  }
});

test('list and doctor: a companion serving Amp names it (its lock file PORT.json names the port and IDE PID)', async () => {
  const s = await startTestCompanion({ agents: ['gemini', 'amp'] });
  ensureDiscoveryDir(s.tmp);
  try {
    const env = binEnv(s.tmp, { AMP_DATA_HOME: s.tmp });
    const r = await runBin(['list', '--json'], { cwd: s.workspace, env });
    assert.equal(r.code, 0, r.stderr);
    const live = (JSON.parse(r.stdout) as Array<Record<string, unknown>>).find((x) => x['port'] === s.companion.port)!;
    assert.deepEqual(live['agents'], ['gemini', 'amp']);
    const text = await runBin(['list'], { cwd: s.workspace, env });
    assert.match(text.stdout, /^\*\s+Test IDE\s+\d+\s+\d+\s+alive\s+Gemini CLI, Amp\s+/m);
    const doctor = await runBin(['doctor'], { cwd: s.workspace, env });
    // The words serve's banner says (the face's connectHint), from the one table doctor reads too.
    assert.ok(doctor.stdout.includes(`it serves Gemini CLI, Amp (${faceDefinition('amp')!.connectHint})\n`), doctor.stdout);
  } finally {
    await s.cleanup();
  }
});

// Issue 39, trip 10: list's AGENTS column named opencode but not Codex CLI, while serve's banner did the opposite.
test("serve's banner names every agent it serves, opencode and Codex CLI among them, as list's AGENTS column does", { timeout: 90_000 }, async (t) => {
  const s = await setup({ start: false });
  t.after(() => s.cleanup());
  const home = path.join(s.tmp, 'home');
  fs.mkdirSync(home);
  // A private home and none of the agents' own variables: the folders `--agents all` makes are the test's.
  const env = binEnv(s.tmp, {
    HOME: home,
    QWEN_HOME: '',
    CLAUDE_CONFIG_DIR: '',
    COPILOT_HOME: '',
    CODEX_HOME: '',
    AMP_DATA_HOME: '',
    XDG_DATA_HOME: '',
    IDE_COMPANION_AGENTS: '',
  });
  const serve = spawn(process.execPath, [BIN, 'serve', '--agents', 'all', '--no-color'], { cwd: s.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
  serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((resolve) => serve.once('exit', resolve));
  t.after(async () => {
    if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGTERM');
    await exited;
  });
  const banner = await waitFor(() => /^ide-companion serve: companion for (.*) on 127\.0\.0\.1:\d+$/m.exec(out)?.[1], `serve's banner:\n${out}`, 60_000);
  assert.equal(banner, 'Gemini CLI, Qwen Code, Claude Code, opencode, GitHub Copilot CLI, Codex CLI, Amp, Factory Droid');
  const list = await runBin(['list'], { cwd: s.workspace, env });
  assert.equal(list.code, 0, list.stderr);
  assert.ok(list.stdout.includes(banner), `list names the same agents:\n${list.stdout}`);
});

// Regression: list exited 0 with no companion, unlike every other "no" answer.
test('list: none found says so and exits 1 (the "no" answer), in text and JSON', async () => {
  const s = await setup({ start: false });
  try {
    const r = await runBin(['list'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /No companions/);
    const json = await runBin(['list', '--json'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stdout), []);
  } finally {
    await s.cleanup();
  }
});

// Issue 27: what a discovery file or companion says (an IDE name, a folder) was printed as it came: an
// OSC 52 or CSI in it reached the terminal. Now every printed text is cleaned of control characters.
test('list: escapes in a discovery file never reach the terminal, in text or JSON', async () => {
  const s = await setup();
  try {
    const dead = 90_000_887;
    fs.writeFileSync(
      path.join(s.tmp, 'gemini', 'ide', `gemini-ide-server-${dead}-9.json`),
      JSON.stringify({ port: 9, workspacePath: '/some\x1b[2Jwhere', authToken: 't', ideInfo: { name: 'evil', displayName: 'Evil\x1b]52;c;aGk=\x07\x9b IDE' } }),
    );
    for (const args of [['list'], ['list', '--json']]) {
      const r = await runBin(args, { cwd: s.workspace, env: binEnv(s.tmp) });
      assert.equal(r.code, 0, r.stderr);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(r.stdout, /[\x00-\x08\x0b-\x1f\x7f-\x9f]|\\u00[01][0-9a-f]|\\u00[89][0-9a-f]/i, args.join(' '));
      assert.match(r.stdout, /Evil\]52;c;aGk= IDE/);
    }
  } finally {
    await s.cleanup();
  }
});

// What escapes a command (parseArgs' error naming an unknown option, a thrown error) went to stderr as it came,
// beside printError, which cleans: an option holding OSC 52 reached the terminal raw.
test('an error that escapes a command reaches the terminal without control characters, as printError writes it', async () => {
  const s = await setup();
  try {
    const r = await runBin(['list', '--\x1b]52;c;aGk\x07x'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^ide-companion list: Unknown option '--\]52;c;aGkx'/);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(r.stderr, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  } finally {
    await s.cleanup();
  }
});

// help.ts echoed an unknown command's name as typed: one holding OSC 52 reached the terminal raw.
test('an unknown command reaches the terminal without control characters, near miss or not', async () => {
  const s = await setup();
  try {
    for (const [name, shown] of [
      ['lis\x1b]52;c;aGk\x07t', /^ide-companion: unknown command 'lis\]52;c;aGkt'/],
      ['\x1b]52;c;aGk\x07nothing-like-it', /^ide-companion: unknown command '\]52;c;aGknothing-like-it'/],
    ] as const) {
      const r = await runBin([name], { cwd: s.workspace, env: binEnv(s.tmp) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, shown);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(r.stderr, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    }
  } finally {
    await s.cleanup();
  }
});

test("list, status and doctor: Codex CLI's socket (one per user) said once, with what its /ide gets for this folder", async () => {
  const s = await startTestCompanion({ agents: ['gemini', 'codex'] });
  try {
    const file = path.join(s.workspace, 'main.ts');
    fs.writeFileSync(file, 'x\n');
    s.companion.context.focus(file, { cursor: { line: 1, character: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const env = binEnv(s.tmp, { CODEX_HOME: path.join(s.tmp, 'codex') });
    const socket = path.join(s.tmp, 'codex', 'ipc', 'ipc.sock');
    const list = await runBin(['list'], { cwd: s.workspace, env });
    assert.equal(list.code, 0, list.stderr);
    assert.ok(list.stdout.includes(`Codex CLI (${socket}): answered for ${s.workspace} (active file ${file})`), list.stdout);
    const status = await runBin(['status'], { cwd: s.workspace, env });
    assert.ok(status.stdout.includes(`Codex CLI's /ide here (${socket}): answered for ${s.workspace} (active file ${file})`), status.stdout);
    const doctor = await runBin(['doctor'], { cwd: s.workspace, env });
    assert.ok(doctor.stdout.includes(`Codex CLI's /ide: answered for ${s.workspace} (active file ${file})`), doctor.stdout);
    // Another folder: the router says no editor has it.
    const elsewhere = fs.mkdtempSync(path.join(s.tmp, 'elsewhere-'));
    const other = await runBin(['list'], { cwd: elsewhere, env });
    assert.ok(other.stdout.includes(`no editor serves ${elsewhere}: Codex CLI's /ide gets no context here`), other.stdout);
    assert.equal(other.stdout.includes('no-client-found'), false, 'no router jargon');
    // No socket: nothing said.
    const none = await runBin(['list'], { cwd: s.workspace, env: binEnv(s.tmp, { CODEX_HOME: path.join(s.tmp, 'no-codex') }) });
    assert.equal(none.stdout.includes('Codex CLI ('), false, none.stdout);
  } finally {
    await s.cleanup();
  }
});
