import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, makeTempDir, skipUnless, waitFor, which } from '@ide-companion/testkit';
import { findIdeProcess, readProcessInfo } from '../src/index.js';
import { cleanEnv } from './helpers.js';

const linux = process.platform === 'linux';

function children(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function command(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Spawns `sh -c 'sh -c "sleep 60; :"; :'` (the `; :` keeps each shell from exec'ing its last command). */
async function shellChain(): Promise<{ outer: ChildProcess; innerShell: number; leaf: number }> {
  const outer = spawn('sh', ['-c', 'sh -c "sleep 60; :"; :'], { stdio: 'ignore' });
  const innerShell = await waitFor(() => children(outer.pid!)[0], 'the inner shell');
  const leaf = await waitFor(() => children(innerShell)[0], 'the sleep process');
  // The inner shell forks a copy of itself that only then execs sleep: until it has, the leaf is a shell too.
  await waitFor(() => command(leaf).startsWith('sleep'), 'the leaf to exec sleep');
  return { outer, innerShell, leaf };
}

function killChain(pids: number[]): void {
  for (const pid of pids.reverse()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

test(
  "the walk from a process under two shells lands on the outer shell's parent, as the CLI's rule says",
  { skip: linux ? false : 'reads /proc' },
  async () => {
    const chain = await shellChain();
    try {
      const found = await findIdeProcess({ env: cleanEnv(), startPid: chain.leaf });
      // leaf (sleep) -> inner sh: the first shell. Its parent is the outer sh, whose parent (this test) is > 1: the IDE.
      assert.equal(found.pid, process.pid);
      assert.equal(found.source, 'walk');
      assert.deepEqual(
        found.chain.slice(0, 2).map((p) => p.pid),
        [chain.leaf, chain.innerShell],
      );
      assert.equal(found.chain[1]!.name, 'sh');
      assert.match(found.command, /node/);
    } finally {
      killChain([chain.outer.pid!, chain.innerShell, chain.leaf]);
    }
  },
);

test('readProcessInfo on Linux agrees with ps for parent and command', { skip: linux && which('ps') ? false : 'needs /proc and ps' }, async () => {
  const chain = await shellChain();
  try {
    for (const pid of [chain.leaf, chain.innerShell, chain.outer.pid!, process.pid]) {
      const mine = await readProcessInfo(pid);
      const ps = spawnSync('ps', ['-o', 'ppid=,command=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();
      const ppid = Number(ps.split(/\s+/)[0]);
      assert.equal(mine.parentPid, ppid, `parent of ${pid}`);
      assert.equal(mine.command, ps.slice(ps.split(/\s+/)[0]!.length).trim(), `command of ${pid}`);
    }
  } finally {
    killChain([chain.outer.pid!, chain.innerShell, chain.leaf]);
  }
});

test('a vanished process reads as parent 0 and ends the walk without throwing', async () => {
  const child = spawn('sh', ['-c', 'exit 0']);
  await new Promise((r) => child.once('exit', r));
  const info = await readProcessInfo(child.pid!);
  assert.equal(info.parentPid, 0);
  const found = await findIdeProcess({ env: cleanEnv(), startPid: child.pid! });
  assert.equal(found.pid, child.pid);
  assert.equal(found.source, 'fallback');
});

test('GEMINI_CLI_IDE_PID skips the walk', async () => {
  const found = await findIdeProcess({ env: cleanEnv({ GEMINI_CLI_IDE_PID: String(process.pid) }) });
  assert.deepEqual([found.pid, found.source], [process.pid, 'env']);
  assert.match(found.command, /node/);
  const ignored = await findIdeProcess({ env: cleanEnv({ GEMINI_CLI_IDE_PID: 'not-a-pid' }), startPid: process.pid });
  assert.notEqual(ignored.source, 'env');
});

const cli = findGeminiCli();
test(
  "cross-check: from inside a shell chain, our walk and the real CLI's find the same IDE process",
  { skip: skipUnless(!!cli && !!which('ps'), 'the pinned Gemini CLI and ps') },
  async () => {
    const ours = path.resolve(import.meta.dirname, '../src/index.js');
    const real = path.join(cli!.coreDir, 'dist', 'src', 'ide', 'process-utils.js');
    const script = `
    for (const l of ['log','info','debug','warn','error']) console[l] = () => {};
    const real = await (await import(${JSON.stringify(real)})).getIdeProcessInfo();
    const ours = await (await import(${JSON.stringify(ours)})).findIdeProcess();
    process.stdout.write(JSON.stringify({ real, ours: { pid: ours.pid, command: ours.command } }));
  `;
    // node under sh under sh under this test: the CLI's rule picks this test process.
    const tmp = makeTempDir('ide-walk-');
    let r: SpawnSyncReturns<string>;
    try {
      const file = path.join(tmp.path, 'walk.mjs');
      fs.writeFileSync(file, script);
      r = spawnSync('sh', ['-c', `sh -c "node ${file}; :"; :`], { env: cleanEnv(), encoding: 'utf8', timeout: 60_000 });
    } finally {
      tmp.cleanup();
    }
    assert.equal(r.status, 0, r.stderr);
    const { real: realInfo, ours: ourInfo } = JSON.parse(r.stdout);
    assert.equal(ourInfo.pid, realInfo.pid);
    assert.equal(ourInfo.command, realInfo.command);
    assert.equal(ourInfo.pid, process.pid, "the outer shell's parent is this test process");
  },
);

test(
  'the ps-based walk (macOS and other Unixes) finds the same IDE process as the /proc walk',
  { skip: linux && which('ps') ? false : 'compares against /proc' },
  async () => {
    const chain = await shellChain();
    try {
      const viaProc = await findIdeProcess({ env: cleanEnv(), startPid: chain.leaf, platform: 'linux' });
      const viaPs = await findIdeProcess({ env: cleanEnv(), startPid: chain.leaf, platform: 'darwin' });
      assert.equal(viaPs.pid, viaProc.pid);
      assert.equal(viaPs.command, viaProc.command);
      assert.deepEqual(
        viaPs.chain.map((p) => [p.pid, p.parentPid, p.name]),
        viaProc.chain.map((p) => [p.pid, p.parentPid, p.name]),
      );
    } finally {
      killChain([chain.outer.pid!, chain.innerShell, chain.leaf]);
    }
  },
);
