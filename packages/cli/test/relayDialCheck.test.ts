/**
 * The relay checks its socket right before every dial (issue 35): at start,
 * for each GET stream and for each reconnect, the socket's folder and the
 * socket must be ours and not links, the folder not writable by group or
 * others, and no folder on the way one another user could swap
 * (shared/privateSocket.ts). Refused, it says why (stderr and the log, once
 * per reason) and the CLI's session waits instead of a dial. The race is
 * played by a second local user (nobody, uid 65534) owning a shared 0777
 * folder without the sticky bit, swapping a fake companion in and out.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { startTestCompanion, type TestCompanion } from '@ide-companion/server/testing';
import { stableSocketDir, workspaceSocketPath } from '@ide-companion/server/workspaceSockets';
import { makeTempDir, waitFor } from '@ide-companion/testkit';
import { RELAY_BUNDLE_PATH } from '../src/connect/build/bundle.js';

const TIMEOUT = 30_000;
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;
/** The race's rounds, and the time they may take at most. */
const ROUNDS = 300;
const RACE_BUDGET_MS = 60_000;

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'script', version: '0' } };

/** The bundled relay driven line by line, as a CLI does; its answers, its stderr. */
function scriptedRelay(args: string[]) {
  const child = spawn(process.execPath, [RELAY_BUNDLE_PATH, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const answers = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as any);
  return {
    child,
    exited,
    stderr: () => stderr,
    send: (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n'),
    answer: (id: unknown) => waitFor(() => answers().find((m) => m.id === id), `the answer to ${String(id)}`, TIMEOUT),
    stop: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A listener that only counts who dials it (and hangs up at once). */
async function countingServer(socketPath: string): Promise<{ count: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server = net.createServer((c) => {
    n += 1;
    c.destroy();
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return { count: () => n, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Lines of `text` saying a refusal, each at most once (what "once per reason" means). */
function refusals(text: string): string[] {
  const lines = text.split('\n').filter((l) => l.includes('refusing to dial'));
  assert.equal(new Set(lines).size, lines.length, `a refusal said twice:\n${lines.join('\n')}`);
  return lines;
}

test(
  'each refusal says why, once, and nothing is dialled: group-writable folder, folder of another user, folder or socket a link, a shared folder above',
  { timeout: 4 * TIMEOUT },
  async (t) => {
    if (!isRoot) return t.skip('needs root to make folders of another user');
    const tmp = makeTempDir('relay-dial-check-');
    t.after(() => tmp.cleanup());
    // Each case makes its folder `dir` and returns where the counting server listens, and the socket the relay is
    // given when it is another path (a link to it).
    const cases: Array<{ name: string; dir: string; prepare: (dir: string) => { listen: string; dial?: string }; reason: RegExp }> = [
      {
        name: 'a group-writable folder',
        dir: 'mode',
        prepare: (dir) => {
          fs.mkdirSync(dir, { mode: 0o700 });
          fs.chmodSync(dir, 0o770);
          return { listen: path.join(dir, 'x.sock') };
        },
        reason: /mode is writable by others \(mode 0770\)/,
      },
      {
        name: 'a folder of another user',
        dir: 'owner',
        prepare: (dir) => {
          fs.mkdirSync(dir, { mode: 0o700 });
          fs.chownSync(dir, NOBODY, NOBODY);
          return { listen: path.join(dir, 'x.sock') };
        },
        reason: /owner belongs to another user \(uid 65534, we are 0\)/,
      },
      {
        name: 'the folder a link to a private one',
        dir: 'folder-link',
        prepare: (dir) => {
          fs.mkdirSync(`${dir}-real`, { mode: 0o700 });
          fs.symlinkSync(`${dir}-real`, dir);
          return { listen: path.join(dir, 'x.sock') };
        },
        reason: /folder-link is a symbolic link, not a folder of ours/,
      },
      {
        name: 'the socket a link',
        dir: 'socket-link',
        prepare: (dir) => {
          fs.mkdirSync(dir, { mode: 0o700 });
          fs.symlinkSync(path.join(tmp.path, 'socket-link-target.sock'), path.join(dir, 'x.sock'));
          return { listen: path.join(tmp.path, 'socket-link-target.sock'), dial: path.join(dir, 'x.sock') };
        },
        reason: /x\.sock is a symbolic link, not a socket of ours/,
      },
      {
        name: 'a shared 0777 folder without the sticky bit above',
        dir: 'shared',
        prepare: (dir) => {
          fs.mkdirSync(dir, { mode: 0o777 });
          fs.chmodSync(dir, 0o777);
          fs.mkdirSync(path.join(dir, 'ours'), { mode: 0o700 });
          return { listen: path.join(dir, 'ours', 'x.sock') };
        },
        reason: /shared is writable by other users without the sticky bit \(mode 0777\)/,
      },
    ];
    for (const c of cases) {
      const { listen, dial } = c.prepare(path.join(tmp.path, c.dir));
      const server = await countingServer(listen);
      const socketPath = dial ?? listen;
      const log = path.join(tmp.path, `${c.dir}.log`);
      const relay = scriptedRelay(['--socket', socketPath, '--reconnect', '--log', log]);
      try {
        relay.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT });
        const init = await relay.answer('init');
        assert.match(init.error?.message ?? '', c.reason, `${c.name}: ${JSON.stringify(init)}`);
        // At least four reconnect attempts (every 250 ms): each refused, said once.
        await new Promise((r) => setTimeout(r, 1_200));
        relay.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        assert.match((await relay.answer(2)).error?.message ?? '', c.reason, c.name);
        assert.equal(relay.child.exitCode, null, `${c.name}: the relay waits`);
        const said = refusals(relay.stderr());
        assert.equal(said.length, 1, `${c.name}: ${relay.stderr()}`);
        assert.match(said[0]!, c.reason, c.name);
        assert.match(fs.readFileSync(log, 'utf8'), c.reason, c.name);
        assert.equal(server.count(), 0, `${c.name}: dialled ${server.count()} time(s)`);
      } finally {
        await relay.stop();
        await server.close();
      }
    }
  },
);

/** The second user: a script run as nobody, swapping `dir` (ours, in their shared folder) for a folder of theirs holding a fake socket. */
const ATTACKER = `
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
const [shared, name, rounds, holdMs, gapMs] = process.argv.slice(2);
const dir = path.join(shared, 'ide-companion');
const fake = path.join(shared, '.fake');
const aside = path.join(shared, '.aside');
const say = (line) => process.stdout.write(line + '\\n');
fs.mkdirSync(fake, { mode: 0o777 });
const server = net.createServer((c) => { say('dialled'); c.on('data', () => say('request')); });
server.listen(path.join(fake, name), async () => {
  fs.chmodSync(path.join(fake, name), 0o777);
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  for (let i = 1; i <= Number(rounds); i++) {
    fs.renameSync(dir, aside);
    fs.renameSync(fake, dir);
    await sleep(Number(holdMs));
    if (Number(rounds) === 1) { say('swapped'); await sleep(1e9); }
    fs.renameSync(dir, fake);
    fs.renameSync(aside, dir);
    say('round ' + i);
    await sleep(Number(gapMs));
  }
  say('done');
  server.close();
});
`;

interface Stage {
  base: string;
  shared: string;
  /** The socket the relay dials: a hard link, in the shared folder, to the real companion's workspace socket. */
  socketPath: string;
  real: TestCompanion;
}

/** A real companion; its workspace socket linked (same inode: dialling the link reaches it) into `shared/ide-companion/`. */
async function stage(t: import('node:test').TestContext, sharedNow: boolean): Promise<Stage> {
  const tmp = makeTempDir('relay-race-');
  t.after(() => tmp.cleanup());
  const base = tmp.path;
  fs.chmodSync(base, 0o755); // nobody walks through it to the shared folder
  const shared = path.join(base, 'shared');
  fs.mkdirSync(shared, { mode: 0o755 });
  if (sharedNow) makeShared(shared);
  fs.mkdirSync(path.join(base, 'companion'), { mode: 0o700 });
  const real = await startTestCompanion({ tmp: path.join(base, 'companion'), workspace: path.join(base, 'ws') });
  t.after(() => real.cleanup());
  const realSocket = workspaceSocketPath(stableSocketDir({ tmpdir: path.join(base, 'companion') }), real.workspace);
  fs.mkdirSync(path.join(shared, 'ide-companion'), { mode: 0o700 });
  const socketPath = path.join(shared, 'ide-companion', path.basename(realSocket));
  fs.linkSync(realSocket, socketPath);
  fs.writeFileSync(path.join(base, 'attacker.mjs'), ATTACKER, { mode: 0o644 });
  return { base, shared, socketPath, real };
}

/** The folder becomes the second user's, 0777 without the sticky bit (an XDG_RUNTIME_DIR or TMPDIR on such a folder). */
function makeShared(shared: string): void {
  fs.chownSync(shared, NOBODY, NOBODY);
  fs.chmodSync(shared, 0o777);
}

function attacker(s: Stage, rounds: number, holdMs: number, gapMs: number) {
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(s.base, 'attacker.mjs'), s.shared, path.basename(s.socketPath), String(rounds), String(holdMs), String(gapMs)],
    {
      uid: NOBODY,
      gid: NOBODY,
      cwd: s.base,
      env: { PATH: process.env['PATH'] },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    exited,
    lines: () => out.split('\n').filter(Boolean),
    dialled: () => out.split('\n').filter((l) => l === 'dialled' || l === 'request').length,
    rounds: () => out.split('\n').filter((l) => l.startsWith('round ')).length,
    stderr: () => err,
  };
}

test(
  `a second user swaps a fake companion in and out of a shared 0777 folder ${ROUNDS} times: the relay never dials it`,
  { timeout: RACE_BUDGET_MS + 4 * TIMEOUT },
  async (t) => {
    if (!isRoot) return t.skip('needs root to run a second user (nobody)');
    const s = await stage(t, true);
    const log = path.join(s.base, 'relay.log');
    const relay = scriptedRelay(['--socket', s.socketPath, '--reconnect', '--log', log]);
    t.after(() => void relay.child.kill('SIGKILL'));
    relay.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT });
    await relay.answer('init');
    relay.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const evil = attacker(s, ROUNDS, 25, 10);
    t.after(() => void evil.child.kill('SIGKILL'));
    // The CLI asks all along; the companion goes away early, so a relay that dials by path would dial again and again.
    let asked = 0;
    const asking = setInterval(() => relay.send({ jsonrpc: '2.0', id: `q${++asked}`, method: 'tools/list' }), 50);
    t.after(() => clearInterval(asking));
    await waitFor(() => evil.rounds() >= 10 || undefined, 'the swaps to start', TIMEOUT);
    await s.real.cleanup();
    const started = Date.now();
    await waitFor(() => evil.lines().includes('done') || evil.child.exitCode !== null || undefined, `${ROUNDS} rounds`, RACE_BUDGET_MS);
    clearInterval(asking);
    assert.equal(evil.rounds(), ROUNDS, evil.stderr());
    assert.ok(Date.now() - started < RACE_BUDGET_MS);
    assert.equal(
      evil.dialled(),
      0,
      `the fake companion was dialled (${evil
        .lines()
        .filter((l) => !l.startsWith('round'))
        .join(', ')})`,
    );
    assert.ok(asked > 20, `the CLI asked ${asked} times`);
    const said = refusals(relay.stderr());
    assert.ok(said.length >= 1 && said.length <= 4, relay.stderr());
    assert.match(relay.stderr(), /shared belongs to another user \(uid 65534\)/);
    assert.equal(relay.child.exitCode, null, 'the relay waits, the CLI session kept');
    assert.doesNotMatch(fs.readFileSync(log, 'utf8') + relay.stderr(), /Bearer|token=/i);
  },
);

test(
  'the folder above turns shared after the start: the GET stream and each reconnect are checked, the fake never dialled',
  { timeout: 4 * TIMEOUT },
  async (t) => {
    if (!isRoot) return t.skip('needs root to run a second user (nobody)');
    for (const mode of ['--reconnect', 'one companion'] as const) {
      const s = await stage(t, false);
      let socketPath = s.socketPath;
      const args = ['--log', path.join(s.base, 'relay.log')];
      if (mode === '--reconnect') args.push('--socket', socketPath, '--reconnect');
      else {
        // One companion's own socket and token, linked beside each other in the folder.
        const own = s.real.companion.socketPath!;
        socketPath = path.join(path.dirname(s.socketPath), path.basename(s.socketPath));
        fs.rmSync(socketPath);
        fs.linkSync(own, socketPath);
        fs.copyFileSync(path.join(path.dirname(own), 'token'), path.join(path.dirname(socketPath), 'token'));
        args.push('--socket', socketPath);
      }
      const relay = scriptedRelay(args);
      t.after(() => void relay.child.kill('SIGKILL'));
      relay.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT });
      assert.ok((await relay.answer('init')).result, `${mode}: the safe start connects`);
      relay.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await waitFor(() => (s.real.companion.sessionList.length === 1 ? true : undefined), 'the session', TIMEOUT);
      makeShared(s.shared);
      const evil = attacker(s, 1, 0, 0);
      t.after(() => void evil.child.kill('SIGKILL'));
      await waitFor(() => evil.lines().includes('swapped') || evil.child.exitCode !== null || undefined, 'the swap', TIMEOUT);
      assert.ok(evil.lines().includes('swapped'), evil.stderr());
      // The companion goes: its GET stream drops, and the relay would dial the path again.
      await s.real.cleanup();
      await new Promise((r) => setTimeout(r, 2_000));
      assert.equal(evil.dialled(), 0, `${mode}: the fake companion was dialled`);
      assert.match(relay.stderr(), /refusing to dial: .*shared belongs to another user \(uid 65534\)/, mode);
      refusals(relay.stderr());
      if (mode === 'one companion') assert.equal(await relay.exited, 1, 'without --reconnect the relay ends, as when its companion goes');
      else assert.equal(relay.child.exitCode, null, 'with --reconnect the session waits');
      evil.child.kill('SIGKILL');
      await evil.exited;
      await relay.stop();
    }
  },
);
