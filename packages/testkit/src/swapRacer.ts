/**
 * A second local user racing swaps in a workspace it can write in: what an
 * attacker sharing the machine does to make our processes read or write a
 * file outside the workspace through a link (issue 35). The test runs as
 * root (CI does); the racer is a node child running as `nobody`, which owns
 * the workspace (0777, no sticky bit), while the outside files are root's,
 * mode 0600: whatever the companion reads or writes there, the racer could
 * not have.
 *
 * Swaps are atomic renames, bounded in count and time: a file swapped for a
 * link to the outside file and back (`kind: 'file'`), or a folder moved
 * aside and a link to an outside folder put in its place, then moved back
 * (`kind: 'folder'`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inCI } from './external.js';
import { makeTempDir } from './tempDir.js';

export interface SecondUser {
  uid: number;
  gid: number;
  name: string;
}

/** `nobody`'s uid and gid, when this process may act as it (root); otherwise why not. */
export function secondUser(): SecondUser | string {
  if (process.getuid?.() !== 0) return 'the test is not run as root, so it cannot act as a second local user';
  const id = (flag: string) => spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' });
  const uid = Number(id('-u').stdout.trim());
  const gid = Number(id('-g').stdout.trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid <= 0 || gid <= 0 || id('-u').status !== 0) return 'there is no user nobody on this machine';
  return { uid, gid, name: 'nobody' };
}

/**
 * For node:test's `skip`: false when a second user is there, a reason to skip locally, and a failure (thrown) when
 * CI=true, where the tests run as root.
 */
export function skipUnlessSecondUser(): string | false {
  const user = secondUser();
  if (typeof user !== 'string') return false;
  if (inCI) throw new Error(`${user}: a second local user is required when CI=true`);
  return `${user}: skipped`;
}

/** A workspace owned by the second user and an outside folder of root's with a secret in it. */
export interface SharedWorkspace {
  /** The temporary folder holding both (0711: the second user may pass, not list). */
  top: string;
  /** The workspace root: the second user's, mode 0777, no sticky bit. */
  ws: string;
  /** Root's folder outside the workspace (0700) holding `secret` (0600). */
  outside: string;
  /** Root's file outside, mode 0600: what must never be read or written through the workspace. */
  secret: string;
  secretText: string;
  cleanup(): void;
}

/** Makes the workspace and the outside folder; `files`: paths below the workspace (folders made) and their text, owned by the second user. */
export function makeSharedWorkspace(user: SecondUser, files: Record<string, string>): SharedWorkspace {
  const dir = makeTempDir('ide-companion-swap-');
  chmodSync(dir.path, 0o711);
  const ws = join(dir.path, 'ws');
  const outside = join(dir.path, 'outside');
  mkdirSync(outside, { mode: 0o700 });
  const secret = join(outside, 'r.txt');
  const secretText = `root's secret ${Math.random().toString(36).slice(2)}\n`;
  writeFileSync(secret, secretText, { mode: 0o600 });
  mkdirSync(ws);
  for (const [rel, text] of Object.entries(files)) {
    const file = join(ws, rel);
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const folder = join(ws, ...parts.slice(0, i));
      mkdirSync(folder, { recursive: true });
      chownSync(folder, user.uid, user.gid);
      chmodSync(folder, 0o777);
    }
    writeFileSync(file, text);
    chownSync(file, user.uid, user.gid);
    chmodSync(file, 0o666);
  }
  chownSync(ws, user.uid, user.gid);
  chmodSync(ws, 0o777);
  return { top: dir.path, ws, outside, secret, secretText, cleanup: dir.cleanup };
}

export interface SwapRacerOptions {
  user: SecondUser;
  /** The entry swapped: a file (`kind: 'file'`) or a folder (`kind: 'folder'`), by absolute path. */
  entry: string;
  kind: 'file' | 'folder';
  /** Where the link points: the outside file (or folder). */
  target: string;
  /** The text a swapped file gets back (`kind: 'file'`). */
  text?: string;
  /** Bounds: the racer stops after this many swaps or this long, whichever first. */
  maxSwaps?: number;
  maxMs?: number;
  /**
   * How long the link stays up each time, in microseconds: an attacker keeps it up long enough to span a use after a
   * check (a write and a rename), and puts it up again at once. 0 (the default): as fast as it can.
   */
  linkUs?: number;
  /** How long the real entry stays back each time, at most (at random), in microseconds; 0 by default. */
  realUs?: number;
}

export interface SwapRacer {
  /** Stops the racer (the entry left as it was, not a link) and says how many swaps it made. */
  stop(): Promise<{ swaps: number; error?: string }>;
}

/** The racer, run as the second user: swaps until told to stop (stdin closed) or its bounds are reached. */
const RACER = String.raw`
const fs = require('node:fs');
const { entry, kind, target, text, maxSwaps, maxMs, linkUs, realUs } = JSON.parse(process.argv[1]);
function dwell(us) {
  if (!us) return;
  const until = process.hrtime.bigint() + BigInt(Math.floor(us * 1000));
  while (process.hrtime.bigint() < until);
}
const end = Date.now() + maxMs;
let swaps = 0, stopped = false, error;
process.stdin.on('data', () => {});
process.stdin.on('end', () => { stopped = true; });
const rm = (p) => fs.rmSync(p, { force: true });
function swapFile() {
  fs.symlinkSync(target, entry + '.l');
  fs.renameSync(entry + '.l', entry);
  dwell(linkUs);
  fs.writeFileSync(entry + '.f', text);
  fs.renameSync(entry + '.f', entry);
  dwell(Math.random() * realUs);
}
function swapFolder() {
  fs.renameSync(entry, entry + '.real');
  fs.symlinkSync(target, entry + '.l');
  fs.renameSync(entry + '.l', entry);
  dwell(linkUs);
  fs.unlinkSync(entry);
  fs.renameSync(entry + '.real', entry);
  dwell(Math.random() * realUs);
}
rm(entry + '.l'); rm(entry + '.f');
process.stdout.write('ready\n');
function loop() {
  try {
    // A burst between turns of the event loop: stdin's end is heard between bursts.
    for (let i = 0; i < 50 && swaps < maxSwaps && Date.now() < end; i++) {
      kind === 'file' ? swapFile() : swapFolder();
      swaps++;
    }
  } catch (err) {
    error = String(err && err.message || err);
  }
  if (stopped || error || swaps >= maxSwaps || Date.now() >= end) {
    process.stdout.write(JSON.stringify({ swaps, error }) + '\n');
    process.exit(0);
  }
  setImmediate(loop);
}
loop();
`;

/** Starts the racer as `options.user`; resolves once it swaps. */
export async function startSwapRacer(options: SwapRacerOptions): Promise<SwapRacer> {
  const args = {
    entry: options.entry,
    kind: options.kind,
    target: options.target,
    text: options.text ?? '',
    maxSwaps: options.maxSwaps ?? 1_000_000,
    maxMs: options.maxMs ?? 30_000,
    linkUs: options.linkUs ?? 0,
    realUs: options.realUs ?? 0,
  };
  const child: ChildProcess = spawn(process.execPath, ['-e', RACER, JSON.stringify(args)], {
    uid: options.user.uid,
    gid: options.user.gid,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the swap racer did not start within 10 s: ${err}`)), 10_000);
    const check = () => {
      if (out.includes('ready\n')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      if (!out.includes('ready\n')) reject(new Error(`the swap racer exited before it started: ${err}`));
    });
  });
  return {
    async stop() {
      child.stdin!.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      const last = out.trim().split('\n').pop() ?? '';
      try {
        return JSON.parse(last) as { swaps: number; error?: string };
      } catch {
        return { swaps: 0, error: `no count from the racer (${err.trim() || 'no output'})` };
      }
    },
  };
}
