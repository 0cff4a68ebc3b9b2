import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, makeTempDir, skipUnless } from '@ide-companion/testkit';
import { isProcessAlive } from '@ide-companion/server';
import { containerHint } from '@ide-companion/protocol';
import { checkWorkspace, discoverCompanion, listCompanions, MAX_DISCOVERY_FILE_BYTES, type DiscoveryResult } from '../src/index.js';
import { cleanEnv } from './helpers.js';

const cli = findGeminiCli();

/** Runs the real CLI's file selection and workspace check in a child process with TMPDIR pointed at `tmp`. */
function realChoice(tmp: string, cwd: string, env: NodeJS.ProcessEnv, idePid: number): { token: string | null; valid: boolean; error?: string } {
  const ideDir = path.join(cli!.coreDir, 'dist', 'src', 'ide');
  const script = `
    const utils = await import(${JSON.stringify(path.join(ideDir, 'ide-connection-utils.js'))});
    for (const l of ['log','info','debug','warn','error']) console[l] = () => {};
    const config = await utils.getConnectionConfigFromFile(${idePid});
    const ws = config?.workspacePath ?? process.env.GEMINI_CLI_IDE_WORKSPACE_PATH;
    const check = utils.validateWorkspacePath(ws, process.cwd());
    process.stdout.write(JSON.stringify({ token: config?.authToken ?? null, valid: check.isValid, error: check.error }));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, env: { ...env, TMPDIR: tmp }, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`real CLI driver failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * PIDs that can never run: above Linux's ceiling (2^22) and macOS's (99999), so
 * no process started by a neighbour mid-test can make them alive.
 */
function deadPids(count: number): number[] {
  const out = Array.from({ length: count }, (_, i) => 90_000_000 + 1000 * (i + 1));
  for (const pid of out) assert.equal(isProcessAlive(pid), false);
  return out;
}

interface Scenario {
  tmp: string;
  dir: string;
  root: string;
  write(pid: number, port: number, token: string, workspacePath: string | undefined, extra?: Record<string, unknown>): string;
  cleanup(): void;
}

function scenario(): Scenario {
  const t = makeTempDir('ide-discovery-');
  const dir = path.join(t.path, 'gemini', 'ide');
  fs.mkdirSync(dir, { recursive: true });
  const root = path.join(t.path, 'root');
  fs.mkdirSync(path.join(root, 'a', 'sub'), { recursive: true });
  fs.mkdirSync(path.join(root, 'b'), { recursive: true });
  return {
    tmp: t.path,
    dir,
    root,
    write(pid, port, token, workspacePath, extra = {}) {
      const file = path.join(dir, `gemini-ide-server-${pid}-${port}.json`);
      const body: Record<string, unknown> = { port, authToken: token, ideInfo: { name: 'x', displayName: 'X' }, ...extra };
      if (workspacePath !== undefined) body['workspacePath'] = workspacePath;
      fs.writeFileSync(file, JSON.stringify(body), { mode: 0o600 });
      return file;
    },
    cleanup: t.cleanup,
  };
}

async function ours(s: Scenario, cwd: string, env: NodeJS.ProcessEnv, idePid: number): Promise<DiscoveryResult> {
  return discoverCompanion({ cwd, env, tmpdir: s.tmp, ideProcess: { pid: idePid, command: '', source: 'env', chain: [] }, wellKnownPorts: false });
}

async function assertSameChoice(s: Scenario, cwd: string, env: NodeJS.ProcessEnv, idePid: number, expectToken: string | null): Promise<DiscoveryResult> {
  const mine = await ours(s, cwd, env, idePid);
  const mineToken = (mine.chosen?.config?.['authToken'] as string | undefined) ?? null;
  const real = realChoice(s.tmp, cwd, env, idePid);
  assert.equal(mineToken, real.token, `our choice ${mineToken} differs from the real CLI's ${real.token}`);
  assert.equal(mine.workspace.ok, real.valid, 'workspace verdict differs from the real CLI');
  if (!real.valid) assert.equal(mine.workspace.error, real.error);
  // The expectation guards against both sides being wrong the same way.
  assert.equal(mineToken, expectToken);
  return mine;
}

const skip = skipUnless(!!cli, 'the pinned Gemini CLI', 'run scripts/install-gemini-cli.sh');
const [dead1, dead2, dead3] = deadPids(3) as [number, number, number];

test('cross-check: the only matching file is chosen', { skip }, async () => {
  const s = scenario();
  try {
    s.write(dead1, 1111, 'only', path.join(s.root, 'a'));
    const r = await assertSameChoice(s, path.join(s.root, 'a', 'sub'), cleanEnv(), dead2, 'only');
    assert.match(r.chosenBecause, /only file/);
  } finally {
    s.cleanup();
  }
});

test('cross-check: the file naming the IDE PID wins over live and higher PIDs', { skip }, async () => {
  const s = scenario();
  try {
    s.write(dead1, 1111, 'ide-pid', path.join(s.root, 'a'));
    s.write(process.pid, 2222, 'alive', path.join(s.root, 'a'));
    s.write(1, 3333, 'init', path.join(s.root, 'a'));
    const r = await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead1, 'ide-pid');
    assert.equal(r.files[0]!.pidIsIde, true);
  } finally {
    s.cleanup();
  }
});

test('cross-check: a live PID beats a stale higher PID', { skip }, async () => {
  const s = scenario();
  try {
    const high = Math.max(dead1, dead2);
    s.write(high, 1111, 'stale-high', path.join(s.root, 'a'));
    s.write(1, 2222, 'alive-low', path.join(s.root, 'a'));
    await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead3, 'alive-low');
  } finally {
    s.cleanup();
  }
});

test('cross-check: among stale files the highest PID wins', { skip }, async () => {
  const s = scenario();
  try {
    const [lo, hi] = [Math.min(dead1, dead2), Math.max(dead1, dead2)];
    s.write(lo, 1111, 'lo', path.join(s.root, 'a'));
    s.write(hi, 2222, 'hi', path.join(s.root, 'a'));
    await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead3, 'hi');
  } finally {
    s.cleanup();
  }
});

test('cross-check: GEMINI_CLI_IDE_SERVER_PORT breaks the tie between matching files', { skip }, async () => {
  const s = scenario();
  try {
    s.write(dead1, 1111, 'first', path.join(s.root, 'a'));
    s.write(dead2, 2222, 'second', path.join(s.root, 'a'));
    const first = dead1 > dead2 ? 'first' : 'second';
    await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead3, first);
    const other = first === 'first' ? 2222 : 1111;
    const r = await assertSameChoice(
      s,
      path.join(s.root, 'a'),
      cleanEnv({ GEMINI_CLI_IDE_SERVER_PORT: String(other) }),
      dead3,
      first === 'first' ? 'second' : 'first',
    );
    assert.match(r.chosenBecause, /GEMINI_CLI_IDE_SERVER_PORT/);
  } finally {
    s.cleanup();
  }
});

test('cross-check: a matching workspace beats a better-ranked mismatched one', { skip }, async () => {
  const s = scenario();
  try {
    s.write(dead1, 1111, 'mismatch', path.join(s.root, 'b'));
    s.write(dead2, 2222, 'match', path.join(s.root, 'a'));
    await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead1, 'match');
  } finally {
    s.cleanup();
  }
});

test('cross-check: with no matching workspace the best mismatched file is chosen and the mismatch reported', { skip }, async () => {
  const s = scenario();
  try {
    s.write(dead1, 1111, 'm1', path.join(s.root, 'b'));
    s.write(dead2, 2222, 'm2', path.join(s.root, 'b'));
    const best = dead1 > dead2 ? 'm1' : 'm2';
    const r = await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead3, best);
    assert.match(r.problem ?? '', /Directory mismatch/);
    assert.deepEqual(r.targets, []);
    const other = best === 'm1' ? 2222 : 1111;
    await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv({ GEMINI_CLI_IDE_SERVER_PORT: String(other) }), dead3, best === 'm1' ? 'm2' : 'm1');
  } finally {
    s.cleanup();
  }
});

test('cross-check: several roots joined by the path delimiter; the cwd may be deep in any root', { skip }, async () => {
  const s = scenario();
  try {
    s.write(dead1, 1111, 'multi', [path.join(s.root, 'b'), path.join(s.root, 'a')].join(path.delimiter));
    const r = await assertSameChoice(s, path.join(s.root, 'a', 'sub'), cleanEnv(), dead2, 'multi');
    assert.deepEqual(r.workspace.roots, [path.join(s.root, 'b'), path.join(s.root, 'a')]);
  } finally {
    s.cleanup();
  }
});

test('cross-check: a prefix that is not a parent does not match (/x/a vs /x/ab)', { skip }, async () => {
  const s = scenario();
  try {
    fs.mkdirSync(path.join(s.root, 'ab'));
    s.write(dead1, 1111, 'prefix', path.join(s.root, 'a'));
    const r = await assertSameChoice(s, path.join(s.root, 'ab'), cleanEnv(), dead2, 'prefix');
    assert.equal(r.workspace.ok, false);
  } finally {
    s.cleanup();
  }
});

test('cross-check: workspace and cwd compared as real paths through symlinks', { skip }, async () => {
  const s = scenario();
  try {
    const link = path.join(s.tmp, 'link-to-a');
    fs.symlinkSync(path.join(s.root, 'a'), link);
    s.write(dead1, 1111, 'via-link', link);
    const r = await assertSameChoice(s, path.join(s.root, 'a', 'sub'), cleanEnv(), dead2, 'via-link');
    assert.equal(r.workspace.ok, true);
  } finally {
    s.cleanup();
  }
});

test(
  'cross-check: a file owned by another user is ignored',
  { skip: skip || (process.getuid?.() !== 0 ? 'needs root to chown a file to nobody' : false) },
  async () => {
    const s = scenario();
    try {
      const foreign = s.write(Math.max(dead1, dead2), 1111, 'foreign', path.join(s.root, 'a'));
      fs.chownSync(foreign, 65534, 65534);
      s.write(Math.min(dead1, dead2), 2222, 'mine', path.join(s.root, 'a'));
      const r = await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead3, 'mine');
      const f = r.files.find((c) => c.path === foreign)!;
      assert.equal(f.ownedByUser, false);
      assert.match(f.unusable ?? '', /owned by uid 65534/);
    } finally {
      s.cleanup();
    }
  },
);

test('cross-check: an unparsable file ranked first is skipped', { skip }, async () => {
  const s = scenario();
  try {
    fs.writeFileSync(path.join(s.dir, `gemini-ide-server-${dead1}-1111.json`), '{not json');
    s.write(dead2, 2222, 'good', path.join(s.root, 'a'));
    const r = await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead1, 'good');
    assert.match(r.files[0]!.unusable ?? '', /not JSON/);
  } finally {
    s.cleanup();
  }
});

test('cross-check: the legacy file named after the IDE PID comes before everything', { skip }, async () => {
  const s = scenario();
  try {
    s.write(dead2, 2222, 'modern', path.join(s.root, 'a'));
    fs.writeFileSync(
      path.join(s.dir, `gemini-ide-server-${dead1}.json`),
      JSON.stringify({ port: 1111, authToken: 'legacy', workspacePath: path.join(s.root, 'b') }),
    );
    const r = await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead1, 'legacy');
    assert.equal(r.chosen?.legacy, true);
  } finally {
    s.cleanup();
  }
});

test('cross-check: an empty workspacePath asks the user to open a folder', { skip }, async () => {
  const s = scenario();
  try {
    s.write(dead1, 1111, 'empty', '');
    const r = await assertSameChoice(s, path.join(s.root, 'a'), cleanEnv(), dead2, 'empty');
    assert.match(r.problem ?? '', /open a workspace folder/);
  } finally {
    s.cleanup();
  }
});

test('cross-check: no files, env vars only', { skip }, async () => {
  const s = scenario();
  try {
    const env = cleanEnv({ GEMINI_CLI_IDE_SERVER_PORT: '4444', GEMINI_CLI_IDE_WORKSPACE_PATH: path.join(s.root, 'a'), GEMINI_CLI_IDE_AUTH_TOKEN: 'env-token' });
    const r = await assertSameChoice(s, path.join(s.root, 'a'), env, dead1, null);
    assert.equal(r.tokenSource, 'env');
    assert.deepEqual(
      r.targets.map((t) => (t.kind === 'http' ? [t.source, t.port] : [t.source])),
      [['env', 4444]],
    );
  } finally {
    s.cleanup();
  }
});

test('the file, then env port, then env stdio, in that order; no well-known ports when a file is chosen', async () => {
  const s = scenario();
  try {
    s.write(dead1, 1111, 'tok', path.join(s.root, 'a'));
    const env = cleanEnv({
      GEMINI_CLI_IDE_SERVER_PORT: '2222',
      GEMINI_CLI_IDE_SERVER_STDIO_COMMAND: 'my-companion',
      GEMINI_CLI_IDE_SERVER_STDIO_ARGS: '["--stdio"]',
    });
    const r = await discoverCompanion({ cwd: path.join(s.root, 'a'), env, tmpdir: s.tmp, ideProcess: { pid: dead1, command: '', source: 'env', chain: [] } });
    assert.deepEqual(
      r.targets.map((t) => (t.kind === 'http' ? `${t.source}:${t.port}:${t.authToken}` : `${t.source}:${t.command} ${t.args.join(' ')}`)),
      ['file:1111:tok', 'env:2222:tok', 'env:my-companion --stdio'],
    );
  } finally {
    s.cleanup();
  }
});

test('without a file, the env token also tries the well-known ports last, each needing identification', async () => {
  const s = scenario();
  try {
    const env = cleanEnv({ GEMINI_CLI_IDE_SERVER_PORT: '2222', GEMINI_CLI_IDE_AUTH_TOKEN: 'envtok', GEMINI_CLI_IDE_WORKSPACE_PATH: s.root });
    const r = await discoverCompanion({ cwd: s.root, env, tmpdir: s.tmp, ideProcess: { pid: dead1, command: '', source: 'env', chain: [] } });
    assert.deepEqual(
      r.targets.map((t) => (t.kind === 'http' ? `${t.source}:${t.port}:${t.requireIdentification}` : t.source)),
      ['env:2222:false', 'well-known-port:58767:true', 'well-known-port:3000:true', 'well-known-port:8080:true'],
    );
  } finally {
    s.cleanup();
  }
});

test('well-known ports are never tried without a token', async () => {
  const s = scenario();
  try {
    const r = await discoverCompanion({ cwd: s.root, env: cleanEnv(), tmpdir: s.tmp, ideProcess: { pid: dead1, command: '', source: 'env', chain: [] } });
    assert.deepEqual(r.targets, []);
    assert.ok(r.problem);
  } finally {
    s.cleanup();
  }
});

test('container host mapping follows the real CLI', async () => {
  const s = scenario();
  try {
    s.write(dead1, 1111, 't', s.root);
    const inDocker = (p: string) => p === '/.dockerenv';
    const base = {
      cwd: s.root,
      tmpdir: s.tmp,
      ideProcess: { pid: dead1, command: '', source: 'env' as const, chain: [] },
      exists: inDocker,
      wellKnownPorts: false,
    };
    const env = cleanEnv();
    delete env['REMOTE_CONTAINERS'];
    delete env['SSH_CONNECTION'];
    delete env['VSCODE_REMOTE_CONTAINERS_SESSION'];
    const plain = await discoverCompanion({ ...base, env });
    assert.equal(plain.targets[0]?.kind === 'http' && plain.targets[0].host, 'host.docker.internal');
    const ssh = await discoverCompanion({ ...base, env: { ...env, SSH_CONNECTION: '1 2 3 4' } });
    assert.equal(ssh.targets[0]?.kind === 'http' && ssh.targets[0].host, '127.0.0.1');
    const dev = await discoverCompanion({ ...base, env: { ...env, VSCODE_REMOTE_CONTAINERS_SESSION: 'x' } });
    assert.equal(dev.targets[0]?.kind === 'http' && dev.targets[0].host, '127.0.0.1');
    const host = await discoverCompanion({ ...base, exists: () => false, env });
    assert.equal(host.targets[0]?.kind === 'http' && host.targets[0].host, '127.0.0.1');
  } finally {
    s.cleanup();
  }
});

test('checkWorkspace names every root when the cwd is outside all of them', () => {
  const r = checkWorkspace(['/nonexistent-a', '/nonexistent-b'].join(path.delimiter), '/');
  assert.equal(r.ok, false);
  assert.match(r.error!, /\/nonexistent-a, \/nonexistent-b/);
});

// Regression: a FIFO named like a discovery file blocked discovery (and `list`) forever
// in a synchronous read, and a huge file was read whole.
test('a FIFO or an oversized file named like a discovery file is skipped at once, with the reason', async (t) => {
  if (process.platform === 'win32') return t.skip('no FIFOs on Windows');
  const s = scenario();
  try {
    const fifo = path.join(s.dir, `gemini-ide-server-${dead1}-1111.json`);
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status !== 0) return t.skip('mkfifo is not available');
    const big = path.join(s.dir, `gemini-ide-server-${dead2}-2222.json`);
    fs.writeFileSync(big, JSON.stringify({ port: 2222, authToken: 'x', workspacePath: s.root, pad: 'x'.repeat(MAX_DISCOVERY_FILE_BYTES) }), { mode: 0o600 });
    const good = s.write(dead3, 3333, 'good', s.root);
    const r = await ours(s, s.root, cleanEnv(), dead1);
    assert.match(r.files.find((f) => f.path === fifo)?.unusable ?? '', /not a regular file/);
    assert.match(r.files.find((f) => f.path === big)?.unusable ?? '', /more than a discovery file holds/);
    assert.equal(r.chosen?.path, good);
    const listed = await listCompanions({ tmpdir: s.tmp, probePorts: false });
    assert.equal(listed.find((l) => l.file === fifo)?.problem, 'cannot read: not a regular file');
  } finally {
    s.cleanup();
  }
});

// Regression: in a container our own commands dialled host.docker.internal, as the CLI does,
// and never reached a companion running in that same container.
test('dialLocalCompanion: in a container, a live companion PID is dialled on loopback; a dead one as the CLI would', async () => {
  const s = scenario();
  try {
    const inDocker = (p: string) => p === '/.dockerenv';
    const env = cleanEnv();
    for (const v of ['REMOTE_CONTAINERS', 'SSH_CONNECTION', 'VSCODE_REMOTE_CONTAINERS_SESSION']) delete env[v];
    const base = {
      cwd: s.root,
      tmpdir: s.tmp,
      env,
      exists: inDocker,
      wellKnownPorts: false,
      ideProcess: { pid: dead1, command: '', source: 'env' as const, chain: [] },
    };
    const live = s.write(process.pid, 1111, 't', s.root);
    const hosts = async (dialLocalCompanion: boolean) => {
      const r = await discoverCompanion({ ...base, dialLocalCompanion });
      return r.targets.map((t) => (t.kind === 'http' ? t.host : t.kind));
    };
    assert.deepEqual(await hosts(false), ['host.docker.internal']);
    // Loopback first; the CLI's host still follows, for a container that shares the host's PIDs.
    assert.deepEqual(await hosts(true), ['127.0.0.1', 'host.docker.internal']);
    fs.rmSync(live);
    s.write(dead2, 2222, 't', s.root);
    assert.deepEqual(await hosts(true), ['host.docker.internal']);
  } finally {
    s.cleanup();
  }
});

test('containerHint names the variable to export, only where the CLI would dial host.docker.internal', () => {
  const inDocker = (p: string) => p === '/.dockerenv';
  const hint = containerHint({}, inDocker);
  assert.match(hint ?? '', /host\.docker\.internal/);
  assert.match(hint ?? '', /export REMOTE_CONTAINERS=1/);
  assert.equal(containerHint({ REMOTE_CONTAINERS: '1' }, inDocker), undefined);
  assert.equal(containerHint({ SSH_CONNECTION: '1 2 3 4' }, inDocker), undefined);
  assert.equal(
    containerHint({}, () => false),
    undefined,
  );
});
