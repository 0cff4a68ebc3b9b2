/** The discovery file: content, privacy, atomic writes, links, foreign owners, stale files, removal on every way out. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { makeTempDir, skipUnless, waitFor } from '@ide-companion/testkit';
import { Companion, DiscoveryFileError, ensureDiscoveryDir, sweepStaleDiscoveryFiles } from '../src/index.js';
import { startCompanion } from './helpers.js';

const isRoot = process.getuid?.() === 0;

test('the file holds port, every workspace root (OS delimiter), token, ideInfo and the socket', async () => {
  const h = await startCompanion();
  try {
    const second = path.join(h.tmp, 'second root');
    fs.mkdirSync(second);
    h.companion.context.setRoots([h.workspace, second]);
    const file = h.companion.discoveryFilePath!;
    assert.equal(path.basename(file), `gemini-ide-server-${process.pid}-${h.companion.port}.json`);
    assert.equal(path.dirname(file), path.join(h.tmp, 'gemini', 'ide'));
    const content = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(content, {
      port: h.companion.port,
      workspacePath: `${h.workspace}${path.delimiter}${second}`,
      authToken: h.companion.authToken,
      ideInfo: { name: 'test-ide', displayName: 'Test IDE' },
      socketPath: h.companion.socketPath,
      // Which agents this companion serves, and why not the others (list and doctor read it): as the companion says.
      agents: { served: h.companion.agents, notServed: h.companion.agentsNotServed },
    });
    assert.ok(h.companion.socketPath);
    assert.ok(content.agents.served.includes('gemini'));
  } finally {
    await h.cleanup();
  }
});

test('directories are 0700 and the file 0600', async () => {
  const h = await startCompanion();
  try {
    assert.equal(fs.statSync(path.join(h.tmp, 'gemini')).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(h.tmp, 'gemini', 'ide')).mode & 0o777, 0o700);
    assert.equal(fs.statSync(h.companion.discoveryFilePath!).mode & 0o777, 0o600);
  } finally {
    await h.cleanup();
  }
});

test('a group/world-readable discovery dir of ours is tightened to 0700', () => {
  const tmp = makeTempDir();
  try {
    fs.mkdirSync(path.join(tmp.path, 'gemini', 'ide'), { recursive: true, mode: 0o777 });
    fs.chmodSync(path.join(tmp.path, 'gemini', 'ide'), 0o777);
    ensureDiscoveryDir(tmp.path);
    assert.equal(fs.statSync(path.join(tmp.path, 'gemini', 'ide')).mode & 0o777, 0o700);
  } finally {
    tmp.cleanup();
  }
});

test('the file is private from its first byte, even with a permissive umask', async () => {
  const previous = process.umask(0);
  try {
    const h = await startCompanion();
    try {
      assert.equal(fs.statSync(h.companion.discoveryFilePath!).mode & 0o777, 0o600);
    } finally {
      await h.cleanup();
    }
  } finally {
    process.umask(previous);
  }
});

test('a rewrite replaces the file atomically (new inode, never a partial file) when roots change', async () => {
  const h = await startCompanion();
  try {
    const file = h.companion.discoveryFilePath!;
    const inode = fs.statSync(file).ino;
    const other = path.join(h.tmp, 'other');
    fs.mkdirSync(other);
    h.companion.context.setRoots([other]);
    assert.notEqual(fs.statSync(file).ino, inode);
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).workspacePath, other);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const leftovers = fs.readdirSync(path.dirname(file)).filter((n) => n.endsWith('.tmp'));
    assert.deepEqual(leftovers, []);
  } finally {
    await h.cleanup();
  }
});

test('a symlink planted at the discovery path is replaced, never followed', async () => {
  const tmp = makeTempDir();
  const victim = path.join(tmp.path, 'victim.txt');
  fs.writeFileSync(victim, 'precious');
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  const companion = new Companion({ ideInfo: { name: 't', displayName: 'T' }, workspaceRoots: [workspace], tmpdir: tmp.path, handleSignals: false });
  // The name holds the port, known only once listening: plant the link before the next (roots) rewrite.
  await companion.start();
  try {
    const file = companion.discoveryFilePath!;
    fs.rmSync(file);
    fs.symlinkSync(victim, file);
    companion.context.setRoots([tmp.path]);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious');
    assert.equal(fs.lstatSync(file).isSymbolicLink(), false);
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).port, companion.port);
  } finally {
    await companion.stop();
    tmp.cleanup();
  }
});

test('a symlinked discovery directory is refused with a clear error', async () => {
  const tmp = makeTempDir();
  try {
    const elsewhere = path.join(tmp.path, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.mkdirSync(path.join(tmp.path, 'gemini'), { mode: 0o700 });
    fs.symlinkSync(elsewhere, path.join(tmp.path, 'gemini', 'ide'));
    const companion = new Companion({ ideInfo: { name: 't', displayName: 'T' }, tmpdir: tmp.path, handleSignals: false });
    await assert.rejects(companion.start(), (err: Error) => err instanceof DiscoveryFileError && /symbolic link/.test(err.message));
    assert.deepEqual(fs.readdirSync(elsewhere), []);
  } finally {
    tmp.cleanup();
  }
});

test(
  'a discovery directory owned by another user is refused with a clear error',
  { skip: skipUnless(isRoot, 'root (to chown a directory to another user)') },
  async () => {
    const tmp = makeTempDir();
    try {
      const dir = path.join(tmp.path, 'gemini');
      fs.mkdirSync(dir, { mode: 0o700 });
      fs.chownSync(dir, 65534, 65534);
      const companion = new Companion({ ideInfo: { name: 't', displayName: 'T' }, tmpdir: tmp.path, handleSignals: false });
      await assert.rejects(companion.start(), /belongs to another user \(uid 65534/);
    } finally {
      tmp.cleanup();
    }
  },
);

test('files left by dead processes are swept at start; live and foreign ones stay', async () => {
  const tmp = makeTempDir();
  try {
    const dir = ensureDiscoveryDir(tmp.path);
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    const deadFile = path.join(dir, `gemini-ide-server-${dead.pid}-1234.json`);
    const liveFile = path.join(dir, `gemini-ide-server-${process.pid}-1.json`);
    const unrelated = path.join(dir, 'notes.txt');
    for (const f of [deadFile, liveFile, unrelated]) fs.writeFileSync(f, '{}', { mode: 0o600 });
    const removed = sweepStaleDiscoveryFiles(dir);
    assert.deepEqual(removed, [path.basename(deadFile)]);
    assert.equal(fs.existsSync(liveFile), true);
    assert.equal(fs.existsSync(unrelated), true);

    fs.writeFileSync(deadFile, '{}', { mode: 0o600 });
    const companion = new Companion({ ideInfo: { name: 't', displayName: 'T' }, tmpdir: tmp.path, handleSignals: false });
    await companion.start();
    assert.equal(fs.existsSync(deadFile), false, 'start sweeps stale files');
    await companion.stop();
  } finally {
    tmp.cleanup();
  }
});

test('stop removes the file; start and stop are idempotent', async () => {
  const h = await startCompanion();
  const file = h.companion.discoveryFilePath!;
  await Promise.all([h.companion.start(), h.companion.start()]);
  assert.equal(fs.existsSync(file), true);
  await Promise.all([h.companion.stop(), h.companion.stop()]);
  assert.equal(fs.existsSync(file), false);
  await h.companion.stop();
  await assert.rejects(h.companion.start(), /stopped/);
  await h.cleanup();
});

const fixture = fileURLToPath(new URL('../../test/fixtures/companion-process.mjs', import.meta.url));

async function spawnCompanionProcess() {
  const tmp = makeTempDir();
  const child = spawn(process.execPath, [fixture, tmp.path, tmp.path], { stdio: ['pipe', 'pipe', 'pipe'] });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`companion process exited early (${code})`)));
  });
  const { file } = JSON.parse(line) as { file: string };
  assert.equal(fs.existsSync(file), true);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, file, exited, cleanup: tmp.cleanup };
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  test(`${signal} removes the file and still ends the process by that signal`, async () => {
    const p = await spawnCompanionProcess();
    try {
      p.child.kill(signal);
      const { signal: got } = await p.exited;
      assert.equal(got, signal);
      assert.equal(fs.existsSync(p.file), false);
    } finally {
      p.cleanup();
    }
  });
}

test('a normal exit removes the file', async () => {
  const p = await spawnCompanionProcess();
  try {
    p.child.stdin.write('exit\n');
    const { code } = await p.exited;
    assert.equal(code, 0);
    await waitFor(() => !fs.existsSync(p.file), 'file removed');
  } finally {
    p.cleanup();
  }
});

test('a crash (uncaught exception) removes the file', async () => {
  const p = await spawnCompanionProcess();
  try {
    p.child.stdin.write('throw\n');
    const { code } = await p.exited;
    assert.notEqual(code, 0);
    assert.equal(fs.existsSync(p.file), false);
  } finally {
    p.cleanup();
  }
});
