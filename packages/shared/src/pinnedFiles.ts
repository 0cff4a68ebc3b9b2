/**
 * A user's file read and written by descriptor, not by name: what our own
 * processes (the companion, the hosts, the relay) read or write of a user's
 * file goes through here (docs/reliability.md, "By descriptor").
 *
 * A name is checked, then used: between the two, another user who can write in
 * a folder on the way can swap the file or a folder for a link and send the
 * read or the write elsewhere (an outside secret returned, a file the attacker
 * cannot write overwritten by us). So:
 *
 * - The file's real path is found once (links that exist then are followed
 *   once, and must end inside the roots when roots are given); from then on no
 *   link is followed. The folder chain from the root holding it (or `/`) down
 *   to the file's folder is opened one folder at a time, each
 *   `O_DIRECTORY|O_NOFOLLOW` relative to its parent's descriptor; the file is
 *   opened `O_NOFOLLOW|O_NONBLOCK` in its pinned folder and checked by `fstat`
 *   on its descriptor (a regular file, size capped). Node has no `openat`; on
 *   Linux, opening `/proc/self/fd/<dirfd>/<name>` is exactly `openat(dirfd,
 *   name)`: the kernel resolves the magic link to the open folder itself (not
 *   to its path, so a folder renamed or replaced since is still the one
 *   opened) and looks `name` up in it, `O_NOFOLLOW` applying to `name`
 *   (checked: packages/server/test/pinnedFiles.test.ts, "/proc/self/fd is
 *   openat").
 * - Where `/proc/self/fd` is absent (macOS), the file's folder is opened by
 *   its real path, re-verified as the checked folder (its real path) right
 *   before, and its `fstat` device and inode compared with what the name
 *   leads to right after; the file itself is opened `O_NOFOLLOW` and its
 *   identity compared the same way. A swap made and undone between those
 *   checks remains possible there.
 * - A write is a temporary file created `O_EXCL|O_NOFOLLOW` inside the pinned
 *   folder, written, fsynced, given the old file's mode, and renamed over the
 *   name inside the same folder: a link put at the name is replaced, never
 *   followed. A file that is a link, not regular, or no longer what the
 *   caller expected refuses the write, and nothing is written.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { allocateReleasable } from './releasableBuffer.js';
import { isInside, realOrUndefined } from './realPaths.js';

/** Why a file cannot be read or written by descriptor: a link, a swap, outside the roots. The message names the file. */
export class PinnedFileError extends Error {
  override name = 'PinnedFileError';
}

/** The file is a directory, a FIFO, a device, a socket, or over the size cap. */
export class NotARegularFileError extends PinnedFileError {
  override name = 'NotARegularFileError';
}

/** The file's real path is outside the roots it was to be inside. */
export class OutsideRootsError extends PinnedFileError {
  override name = 'OutsideRootsError';
}

/** What a file that is not a regular one is, as a sentence's object ("a FIFO"). */
export function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** What the file is read or written for, in the refusals' words. */
export type PinnedUse = 'diff' | 'read' | 'write';
/** The longest name one folder entry may have (Linux's and macOS's NAME_MAX, in bytes). */
const NAME_MAX = 255;

const DONE: Record<PinnedUse, string> = { diff: 'diffed', read: 'read', write: 'written' };
const FOR: Record<PinnedUse, string> = { diff: 'diffs', read: 'reads', write: 'writes' };

export interface PinOptions {
  /**
   * Folders the file must be inside, by its real path (links followed once); the chain is pinned from the deepest
   * one holding it. Absent: any file, the chain pinned from `/`.
   */
  roots?: readonly string[] | undefined;
  /** For the refusals' words; 'diff' by default. */
  use?: PinnedUse;
  /**
   * `file` is a real path the caller found earlier (its links resolved then): none is followed now either, so a
   * link put on the way since is refused rather than followed. Without it, links are followed once, on each call.
   */
  resolved?: boolean;
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

let procFd: boolean | undefined;
/** Whether `/proc/self/fd/<fd>/<name>` opens relative to an open folder (Linux with /proc mounted). */
function hasProcFd(): boolean {
  if (procFd === undefined) {
    try {
      procFd = process.platform === 'linux' && fs.statSync('/proc/self/fd').isDirectory();
    } catch {
      procFd = false;
    }
  }
  return procFd;
}

/** For tests: use the fallback (no /proc/self/fd) even where /proc is there, or go back to detecting it (undefined). */
export function useProcFdForTesting(value: boolean | undefined): void {
  procFd = value;
}

/** Where a file is: its real folder, the root the chain is pinned from, and the folders below that root. */
interface Located {
  /** The file's real path (its folder's real path and its name). */
  real: string;
  anchor: string;
  folders: string[];
  name: string;
}

/** Strictly below: a root is a folder, never the file itself. */
const isBelow = (parent: string, child: string) => isInside(parent, child, false);

/** A root as paths below it are compared: its real path (the user's `/tmp` link is its target), else as named. */
const realRoot = (root: string): string => realOrUndefined(root) ?? path.normalize(root);

/**
 * The deepest of `roots` holding `real` (a real path, links resolved), each root compared by its real path: the root
 * as given and that real path, or undefined. `orSame`: a root is its own holder (a tool's path may name one).
 */
export function rootEntryHolding(real: string, roots: readonly string[], orSame = false): { root: string; real: string } | undefined {
  return deepestHolding(
    real,
    roots.map((root) => ({ root, real: realRoot(root) })),
    orSame,
  );
}

function deepestHolding<R extends { real: string }>(real: string, roots: readonly R[], orSame = false): R | undefined {
  let best: R | undefined;
  for (const r of roots) {
    if (isInside(r.real, real, orSame) && (best === undefined || r.real.length > best.real.length)) best = r;
  }
  return best;
}

/** The real path of the deepest of `roots` holding `real` (see rootEntryHolding), or undefined. */
export function rootHolding(real: string, roots: readonly string[]): string | undefined {
  return rootEntryHolding(real, roots)?.real;
}

/**
 * Whether `file` is inside one of `roots` by name alone (normalized, nothing resolved; a root compared as named and
 * by its real path): for a path that is not on this machine (the CLI's, across a relay).
 */
export function insideRootsByName(file: string, roots: readonly string[]): boolean {
  const p = path.normalize(file);
  return roots.some((root) => isBelow(path.normalize(root), p) || isBelow(realRoot(root), p));
}

/**
 * The real path of `file` (absolute): its links followed once, now; a file that does not exist is its folder's
 * real path and its name. Undefined when its folder does not exist.
 */
export function realPathOf(file: string): string | undefined {
  const normalized = path.normalize(file);
  const whole = realOrUndefined(normalized);
  if (whole !== undefined) return whole;
  const folder = realOrUndefined(path.dirname(normalized));
  return folder === undefined ? undefined : path.join(folder, path.basename(normalized));
}

/** Finds `file` (see realPathOf) and, when roots are given, checks it is inside one. Undefined: its folder is missing. */
function locate(file: string, options: PinOptions): Located | undefined {
  if (!path.isAbsolute(file)) throw new PinnedFileError(`${file} is not an absolute path`);
  // No file system holds a longer name; opened through /proc, the error would echo that path, not the one given.
  if (file.split(path.sep).some((name) => Buffer.byteLength(name) > NAME_MAX)) throw new PinnedFileError(`${file} holds a name over ${NAME_MAX} bytes`);
  const real = options.resolved ? path.normalize(file) : realPathOf(file);
  if (real === undefined) {
    // A missing folder inside the roots is a new file's; outside them it is refused all the same.
    if (options.roots && !rootHolding(path.normalize(file), options.roots)) throw outside(file, options.roots);
    return undefined;
  }
  let anchor = path.parse(real).root;
  if (options.roots) {
    // Each root's real path found once per call (a watcher checks on every write it sees).
    const realRoots = options.roots.map((root) => ({ real: realRoot(root) }));
    // A workspace folder itself is no file: say so, not that it lies outside (it holds nothing, being the root).
    if (realRoots.some((r) => r.real === real))
      throw new NotARegularFileError(`${file} is a directory; only regular files can be ${DONE[options.use ?? 'diff']}`);
    const root = deepestHolding(real, realRoots);
    if (root === undefined) throw outside(file, options.roots, real);
    anchor = root.real;
  }
  const folders = path.relative(anchor, path.dirname(real)).split(path.sep).filter(Boolean);
  return { real, anchor, folders, name: path.basename(real) };
}

function outside(file: string, roots: readonly string[], real?: string): OutsideRootsError {
  // Where a link leads is not echoed: the name given is enough to act on, and an error stays its length.
  const leads = real !== undefined && real !== path.normalize(file) ? ' (through a link)' : '';
  return new OutsideRootsError(`${file} is outside the workspace folders (${roots.join(', ') || 'none'})${leads}`);
}

/** A folder held open: names inside it are opened relative to it, whatever its path has become since. */
interface PinnedFolder {
  fd: number;
  /** Its real path when it was checked. */
  path: string;
  /** The path that opens `name` inside this very folder. */
  at(name: string): string;
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** The error for a name that was a link or no folder when opened without following (a swap after the check). */
function swapped(p: string, what: string): PinnedFileError {
  return new PinnedFileError(`${p} is ${what} now, not what was checked (it was replaced while in use); refused`);
}

/** What is at `name` in `folder` without following it, for a refusal's words. */
function describeAt(folder: PinnedFolder, name: string): string {
  try {
    return kindOf(fs.lstatSync(folder.at(name)));
  } catch {
    return 'gone';
  }
}

/**
 * Opens the chain from `where.anchor` down to the file's folder, each folder without following a link. Undefined
 * when a folder on the way does not exist (then neither does the file).
 */
function pinFolder(where: Located): PinnedFolder | undefined {
  const viaProc = hasProcFd();
  const dirPath = path.join(where.anchor, ...where.folders);
  if (!viaProc) return pinFolderByPath(dirPath);
  let fd: number;
  try {
    // The anchor is the root the user gave (or `/`), opened by its real path.
    fd = fs.openSync(where.anchor, O_RDONLY | O_DIRECTORY);
  } catch (err) {
    if (code(err) === 'ENOENT') return undefined;
    throw err;
  }
  let at = where.anchor;
  try {
    for (const name of where.folders) {
      const parent: PinnedFolder = { fd, path: at, at: (n) => `/proc/self/fd/${fd}/${n}` };
      at = path.join(at, name);
      let next: number;
      try {
        next = fs.openSync(parent.at(name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      } catch (err) {
        if (code(err) === 'ENOENT') return closeAnd(fd, undefined);
        // A link (ELOOP, or ENOTDIR with O_DIRECTORY) or a file where a folder was checked.
        if (code(err) === 'ELOOP' || code(err) === 'ENOTDIR') throw swapped(at, describeAt(parent, name));
        throw err;
      }
      fs.closeSync(fd);
      fd = next;
    }
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  const pinned = fd;
  return { fd: pinned, path: at, at: (n) => `/proc/self/fd/${pinned}/${n}` };
}

function closeAnd<T>(fd: number, value: T): T {
  fs.closeSync(fd);
  return value;
}

/** Without /proc/self/fd: the folder opened by its real path, re-verified right before, compared by identity right after. */
function pinFolderByPath(dirPath: string): PinnedFolder | undefined {
  const verify = () => {
    const now = realOrUndefined(dirPath);
    if (now !== dirPath) throw swapped(dirPath, now === undefined ? 'gone' : `a way to ${now}`);
  };
  if (realOrUndefined(dirPath) === undefined) return undefined;
  verify();
  const fd = fs.openSync(dirPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    verify();
    if (!sameFile(fs.fstatSync(fd), fs.statSync(dirPath))) throw swapped(dirPath, 'another folder');
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  return { fd, path: dirPath, at: (n) => path.join(dirPath, n) };
}

function sameFile(a: fs.Stats, b: fs.Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** After an open by path (no /proc/self/fd): the folder is still the pinned one and `name` still the opened file. */
function verifyByPath(folder: PinnedFolder, name: string, fd: number): void {
  if (hasProcFd()) return;
  const now = realOrUndefined(folder.path);
  if (now !== folder.path || !sameFile(fs.fstatSync(folder.fd), fs.statSync(folder.path))) throw swapped(folder.path, 'another folder');
  const file = path.join(folder.path, name);
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    throw swapped(file, 'gone');
  }
  if (!sameFile(stat, fs.fstatSync(fd))) throw swapped(file, 'another file');
}

/** A user's file open for reading, checked on its descriptor. */
interface OpenedFile {
  fd: number;
  stat: fs.Stats;
  folder: PinnedFolder;
  name: string;
  /** The real path it was found at. */
  real: string;
  close(): void;
}

/**
 * Opens `file` read-only by descriptor (see the file's comment) and checks it is a regular file of at most
 * `maxBytes`. Undefined when it does not exist. Throws PinnedFileError (NotARegularFileError, OutsideRootsError).
 */
function openPinned(file: string, maxBytes: number, options: PinOptions): OpenedFile | undefined {
  const use = options.use ?? 'diff';
  const where = locate(file, options);
  if (!where) return undefined;
  const folder = pinFolder(where);
  if (!folder) return undefined;
  let fd: number;
  try {
    fd = fs.openSync(folder.at(where.name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    fs.closeSync(folder.fd);
    if (code(err) === 'ENOENT') return undefined;
    if (code(err) === 'ELOOP') throw swapped(where.real, 'a symbolic link');
    if (code(err) === 'EISDIR') throw new NotARegularFileError(`${file} is a directory; only regular files can be ${DONE[use]}`);
    throw err;
  }
  const close = () => {
    fs.closeSync(fd);
    fs.closeSync(folder.fd);
  };
  try {
    verifyByPath(folder, where.name, fd);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new NotARegularFileError(`${file} is ${kindOf(stat)}; only regular files can be ${DONE[use]}`);
    if (stat.size > maxBytes) throw tooLarge(file, maxBytes, use);
    return { fd, stat, folder, name: where.name, real: where.real, close };
  } catch (err) {
    close();
    throw err;
  }
}

const tooLarge = (file: string, maxBytes: number, use: PinnedUse) => new NotARegularFileError(`${file} is over the ${maxBytes}-byte limit for ${FOR[use]}`);

const readAsync = promisify(fs.read);

/**
 * The text of the user's file `file`, read by descriptor (see the file's comment), asynchronously and bounded by
 * `maxBytes`; undefined when it does not exist (a new file). Throws PinnedFileError with a message naming the file.
 */
export async function readPinned(file: string, maxBytes: number, options: PinOptions = {}): Promise<string | undefined> {
  const opened = openPinned(file, maxBytes, options);
  if (!opened) return undefined;
  try {
    // Sized by stat, grown if the file grows meanwhile, never past the limit; its memory given back once decoded
    // (a 32 MiB file's bytes would otherwise stay beside the diff until a full GC).
    let { buffer, release } = allocateReleasable(Math.min(opened.stat.size, maxBytes) + 1);
    try {
      let length = 0;
      for (;;) {
        if (length === buffer.length) {
          if (length > maxBytes) throw tooLarge(file, maxBytes, options.use ?? 'diff');
          const grown = allocateReleasable(Math.min(buffer.length * 2, maxBytes + 1));
          buffer.copy(grown.buffer, 0, 0, length);
          release();
          ({ buffer, release } = grown);
        }
        const { bytesRead } = await readAsync(opened.fd, buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      return buffer.toString('utf8', 0, length);
    } finally {
      release();
    }
  } finally {
    opened.close();
  }
}

/** Reads the open file whole, synchronously, if it holds at most `maxBytes` (else undefined). */
function readOpenedSync(opened: OpenedFile, maxBytes: number): Buffer | undefined {
  const buffer = Buffer.allocUnsafe(maxBytes + 1);
  let length = 0;
  for (;;) {
    const n = fs.readSync(opened.fd, buffer, length, buffer.length - length, null);
    if (n === 0) return buffer.subarray(0, length);
    length += n;
    if (length > maxBytes) return undefined;
  }
}

/**
 * Whether the user's file `file` holds exactly `content`, read by descriptor (its size compared first: most checks
 * read nothing). False for anything that cannot be read so (missing, a link, not regular, outside the roots).
 * Synchronous: for watchers deciding at once.
 */
export function pinnedFileHolds(file: string, content: string, options: PinOptions = {}): boolean {
  const bytes = Buffer.byteLength(content);
  let opened: OpenedFile | undefined;
  try {
    opened = openPinned(file, bytes, options);
    if (!opened || opened.stat.size !== bytes) return false;
    return readOpenedSync(opened, bytes)?.toString('utf8') === content;
  } catch {
    return false;
  } finally {
    opened?.close();
  }
}

export interface WriteOptions extends PinOptions {
  /**
   * What the file must hold for the write to go ahead (read by descriptor, right before): a string (exactly that
   * text, so the file must exist), or null (it must not exist). Absent: whatever it holds.
   */
  expect?: string | null;
}

/**
 * Puts `text` in place of the user's file `file` by descriptor (see the file's comment): a temporary file in its
 * pinned folder, written, fsynced, with the old file's mode (and owner, when we are root), renamed over the name
 * in that folder. A new file is made when there is none. Throws PinnedFileError when the file is a link, not
 * regular, outside the roots, swapped, or (with `expect`) holds something else: then nothing was written.
 */
export function writePinned(file: string, text: string, options: WriteOptions = {}): void {
  const use = options.use ?? 'write';
  const where = locate(file, { ...options, use });
  if (!where) throw new PinnedFileError(`${file} cannot be written: its folder does not exist`);
  const folder = pinFolder(where);
  if (!folder) throw new PinnedFileError(`${file} cannot be written: its folder does not exist`);
  try {
    const current = currentOf(file, folder, where, options);
    const temp = `.${where.name}.ide-companion-${randomUUID()}`;
    let fd: number;
    try {
      // 0666 less the umask for a new file, as any editor makes one; an existing file's mode is set below.
      fd = fs.openSync(folder.at(temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, current ? 0o600 : 0o666);
    } catch (err) {
      throw new PinnedFileError(`${file} cannot be written: its temporary file could not be made (${code(err) ?? (err as Error).message})`);
    }
    try {
      try {
        fs.writeSync(fd, text);
        if (current) {
          if (process.getuid?.() === 0) fs.fchownSync(fd, current.uid, current.gid);
          // Set-id bits are not carried over onto new content.
          fs.fchmodSync(fd, current.mode & 0o777);
        }
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      if (!hasProcFd()) verifyFolderByPath(folder);
      // Inside the pinned folder: a link put at the name since is replaced, never followed.
      fs.renameSync(folder.at(temp), folder.at(where.name));
    } catch (err) {
      fs.rmSync(folder.at(temp), { force: true });
      throw err;
    }
    try {
      fs.fsyncSync(folder.fd);
    } catch {
      // A folder that cannot be fsynced (some file systems) still holds the renamed file.
    }
  } finally {
    fs.closeSync(folder.fd);
  }
}

function verifyFolderByPath(folder: PinnedFolder): void {
  if (realOrUndefined(folder.path) !== folder.path || !sameFile(fs.fstatSync(folder.fd), fs.statSync(folder.path))) {
    throw swapped(folder.path, 'another folder');
  }
}

/** The file a write replaces (its stat), undefined for a new one; refuses what `expect` does not allow. */
function currentOf(file: string, folder: PinnedFolder, where: Located, options: WriteOptions): fs.Stats | undefined {
  const { expect } = options;
  let fd: number;
  try {
    fd = fs.openSync(folder.at(where.name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (err) {
    if (code(err) === 'ENOENT') {
      if (typeof expect === 'string') throw new PinnedFileError(`${file} is gone; nothing was written`);
      return undefined;
    }
    if (code(err) === 'ELOOP') throw swapped(where.real, 'a symbolic link');
    if (code(err) === 'EISDIR') throw new NotARegularFileError(`${file} is a directory; only regular files can be written`);
    throw err;
  }
  try {
    verifyByPath(folder, where.name, fd);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new NotARegularFileError(`${file} is ${kindOf(stat)}; only regular files can be written`);
    if (expect === null) throw new PinnedFileError(`${file} exists now; nothing was written`);
    if (typeof expect === 'string') {
      const bytes = Buffer.byteLength(expect);
      const opened = { fd, stat, folder, name: where.name, real: where.real, close: () => undefined };
      const holds = stat.size === bytes && readOpenedSync(opened, bytes)?.toString('utf8') === expect;
      if (!holds) throw new PinnedFileError(`${file} no longer holds what was expected; nothing was written`);
    }
    return stat;
  } finally {
    fs.closeSync(fd);
  }
}
