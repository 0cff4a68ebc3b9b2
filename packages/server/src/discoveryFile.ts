/**
 * The discovery file, written so that no other user can read it, swap it, or
 * make us write through a link:
 * - the directories `tmp/gemini` and `tmp/gemini/ide` are ours, real
 *   directories (not links) and 0700, or we refuse with a clear error;
 * - the file is created under a temporary name with O_CREAT|O_EXCL|O_NOFOLLOW
 *   and mode 0600 (private from its first byte), then renamed into place, so a
 *   reader sees the old file or the new one, never half of one; rename
 *   replaces a link planted at the final name instead of following it.
 *   No fsync: the file describes a live process, so after a crash it is stale
 *   whatever the disk kept (and swept at the next start); readers never see
 *   half a file either way. It took ~4 ms of every start (docs/benchmarks.md).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DISCOVERY_DIR_SEGMENTS, discoveryFileName, parseDiscoveryFileName, type DiscoveryFile } from '@ide-companion/protocol';
import { isProcessAlive } from '@ide-companion/shared/processAlive';

export { isProcessAlive };

export class DiscoveryFileError extends Error {
  override name = 'DiscoveryFileError';
}

const currentUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/** Creates (0700) or verifies one directory level; refuses links and other users' directories. */
export function ensurePrivateDirectory(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new DiscoveryFileError(`cannot create ${dir}: ${(err as Error).message}`);
    }
  }
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink()) {
    throw new DiscoveryFileError(`${dir} is a symbolic link; refusing to use it. Remove it and start again.`);
  }
  if (!st.isDirectory()) throw new DiscoveryFileError(`${dir} exists and is not a directory`);
  const uid = currentUid();
  if (uid !== undefined && st.uid !== uid) {
    throw new DiscoveryFileError(
      `${dir} belongs to another user (uid ${st.uid}, we are ${uid}); refusing to use it. Remove it (as its owner or root) so it can be created privately.`,
    );
  }
  if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

/** `tmpdir/gemini/ide`, created privately. */
export function ensureDiscoveryDir(tmpdir: string): string {
  let dir = tmpdir;
  for (const segment of DISCOVERY_DIR_SEGMENTS) {
    dir = path.join(dir, segment);
    ensurePrivateDirectory(dir);
  }
  return dir;
}

/**
 * Removes the entries of `dir` that name a dead PID (`pidOf` reads it from the
 * name, or from the entry at that path; undefined leaves it) and are ours:
 * other users' are never touched. Returns the names removed.
 */
export function sweepDeadPidEntries(
  dir: string,
  pidOf: (name: string, entry: string) => number | undefined,
  isAlive: (pid: number) => boolean = isProcessAlive,
): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  const uid = currentUid();
  for (const name of names) {
    const entry = path.join(dir, name);
    try {
      if (uid !== undefined && fs.lstatSync(entry).uid !== uid) continue;
      const pid = pidOf(name, entry);
      if (pid === undefined || isAlive(pid)) continue;
      fs.rmSync(entry, { recursive: true });
      removed.push(name);
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}

/** Removes our own discovery files whose IDE process is gone. Returns the names removed. */
export function sweepStaleDiscoveryFiles(dir: string, isAlive: (pid: number) => boolean = isProcessAlive): string[] {
  return sweepDeadPidEntries(dir, (name) => parseDiscoveryFileName(name)?.pid, isAlive);
}

/** Writes `content` to `file` atomically with mode 0600, never following a link. */
export function writeFileAtomicPrivate(file: string, content: string): void {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);
  const fd = fs.openSync(tmp, flags, 0o600);
  let written = false;
  try {
    fs.writeFileSync(fd, content);
    written = true;
  } finally {
    fs.closeSync(fd);
    if (!written) fs.rmSync(tmp, { force: true });
  }
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new DiscoveryFileError(`cannot move the discovery file into place at ${file}: ${(err as Error).message}`);
  }
}

/** One companion's discovery file: its path, its writes, its removal. */
export class DiscoveryFileHandle {
  readonly path: string;

  constructor(
    readonly dir: string,
    readonly pid: number,
    readonly port: number,
  ) {
    this.path = path.join(dir, discoveryFileName(pid, port));
  }

  write(content: DiscoveryFile): void {
    writeFileAtomicPrivate(this.path, JSON.stringify(content));
  }

  /** Removes the file if it is still ours to remove; synchronous so exit handlers can call it. */
  removeSync(): void {
    try {
      fs.unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}
