/**
 * The one check made right before a Unix socket of ours is dialled (the
 * relay: at start, for each GET stream and each reconnect; `doctor`'s Codex
 * probe) or bound (the workspace and companion sockets, Codex's router), as
 * an ssh-agent socket is trusted: by what the file system says (issue 35).
 *
 * - The socket's folder: a folder (not a link, by lstat) of this user's, not
 *   writable by group or others.
 * - The socket: a socket (not a link) of this user's.
 * - Every folder above it, on the way the kernel walks (each prefix's real
 *   path and its parents, so a link on the way counts where it points, and
 *   the folder holding the link counts too): this user's or root's, and not
 *   writable by group or others unless sticky. Otherwise another user could
 *   rename our folder away and put theirs in its place between two dials
 *   (XDG_RUNTIME_DIR or TMPDIR on a shared folder without the sticky bit). A
 *   sticky one (/tmp) lets nobody but an entry's owner (and the folder's
 *   owner, this user or root) move that entry. A link on the way must be this
 *   user's or root's too (in a sticky folder its owner may replace it).
 *
 * A folder that does not exist yet is "absent", never dialled: in a sticky
 * folder another user could make it between this check and the dial. With
 * every folder on the way safe, nobody else can change what the path names
 * between the check and the dial, so checking the path and then dialling it
 * by name is enough. Node has no SO_PEERCRED (which Codex CLI uses besides):
 * this is where that trust comes from. No uids (Windows): nothing to check.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export type SocketCheck = { ok: true } | { ok: false; absent: true; reason: string } | { ok: false; absent: false; reason: string };

const ROOT_UID = 0;
const GROUP_OR_OTHERS_WRITE = 0o022;
const STICKY = 0o1000;

const currentUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, '0');
const isMissing = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

/**
 * The real path of `p`, or where it would be made: a link whose target is missing counts where it points (what
 * a mkdir through it makes lands there), a missing path as its nearest existing folder.
 */
function nearestReal(p: string, depth = 0): string {
  try {
    return fs.realpathSync.native(p);
  } catch (err) {
    if (!isMissing(err) || depth > 40) throw err;
  }
  const st = fs.lstatSync(p, { throwIfNoEntry: false });
  if (st?.isSymbolicLink()) return nearestReal(path.resolve(path.dirname(p), fs.readlinkSync(p)), depth + 1);
  return path.dirname(p) === p ? p : nearestReal(path.dirname(p), depth + 1);
}

/** Why another user could put something else at `dir` (a folder, checked as the socket's): undefined when nobody can. */
function wayProblem(dir: string, me: number): string | undefined {
  const resolved = path.resolve(dir);
  const parts = resolved.split(path.sep).filter(Boolean);
  const folders = new Set<string>();
  let prefix: string = path.sep;
  for (let i = 0; i < parts.length; i++) {
    prefix = path.join(prefix, parts[i]!);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(prefix);
    } catch (err) {
      if (isMissing(err)) break; // Said by the caller (absent).
      return `${prefix}: ${(err as Error).message}`;
    }
    if (st.isSymbolicLink() && st.uid !== me && st.uid !== ROOT_UID) {
      return `${prefix} is a link of another user (uid ${st.uid}), who may point it elsewhere`;
    }
    // The folders the kernel walks to reach this prefix: its real path's, each with its parents.
    let real: string;
    try {
      real = nearestReal(i === parts.length - 1 ? path.dirname(prefix) : prefix);
    } catch (err) {
      return `${prefix}: ${(err as Error).message}`;
    }
    for (let d = real; ; d = path.dirname(d)) {
      folders.add(d);
      if (d === path.dirname(d)) break;
    }
  }
  let own: string | undefined;
  try {
    own = fs.realpathSync.native(resolved);
  } catch {
    own = undefined;
  }
  for (const folder of [...folders].sort((a, b) => a.length - b.length)) {
    if (folder === own) continue;
    let st: fs.Stats;
    try {
      st = fs.statSync(folder);
    } catch (err) {
      return `${folder}: ${(err as Error).message}`;
    }
    if (st.uid !== me && st.uid !== ROOT_UID) {
      return `${folder} belongs to another user (uid ${st.uid}), who could put another folder in place of ${resolved}`;
    }
    if ((st.mode & GROUP_OR_OTHERS_WRITE) !== 0 && (st.mode & STICKY) === 0) {
      return `${folder} is writable by other users without the sticky bit (mode ${octal(st.mode)}): another could put a folder of theirs in place of ${resolved}`;
    }
  }
  return undefined;
}

/** Why another user could put another folder in place of `dir` (the folders on its way only, not `dir` itself). */
export function folderWayProblem(dir: string): string | undefined {
  const me = currentUid();
  return me === undefined ? undefined : wayProblem(dir, me);
}

export interface SocketFolderOptions {
  /**
   * The folder above must not be writable by group or others either, sticky or not: Codex's home (CODEX_HOME,
   * ~/.codex), whose `ipc` folder holds its socket, holds its config and credentials too.
   */
  privateParent?: boolean;
}

/** `dir` as the folder of a socket of ours: undefined when it is safe; `absent` when it does not exist (its way checked). */
export function socketFolderProblem(dir: string, options: SocketFolderOptions = {}): { absent: boolean; reason: string } | undefined {
  const me = currentUid();
  if (me === undefined) return undefined;
  const way = wayProblem(dir, me);
  if (way) return { absent: false, reason: way };
  if (options.privateParent) {
    const parent = path.dirname(path.resolve(dir));
    const st = fs.statSync(parent, { throwIfNoEntry: false });
    if (st && (st.mode & GROUP_OR_OTHERS_WRITE) !== 0) {
      return { absent: false, reason: `${parent} is writable by others (mode ${octal(st.mode)})` };
    }
  }
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    if (isMissing(err)) return { absent: true, reason: `${dir} does not exist` };
    return { absent: false, reason: `${dir}: ${(err as Error).message}` };
  }
  if (st.isSymbolicLink()) return { absent: false, reason: `${dir} is a symbolic link, not a folder of ours` };
  if (!st.isDirectory()) return { absent: false, reason: `${dir} is not a folder` };
  if (st.uid !== me) return { absent: false, reason: `${dir} belongs to another user (uid ${st.uid}, we are ${me})` };
  if ((st.mode & GROUP_OR_OTHERS_WRITE) !== 0) {
    return { absent: false, reason: `${dir} is writable by others (mode ${octal(st.mode)}): another user could put a socket there` };
  }
  return undefined;
}

/** The check before a dial to `socketPath` (see the top of this file). */
export function checkSocketToDial(socketPath: string, options: SocketFolderOptions = {}): SocketCheck {
  const folder = socketFolderProblem(path.dirname(socketPath), options);
  if (folder) return { ok: false, ...folder };
  const me = currentUid();
  if (me === undefined) return { ok: true };
  let st: fs.Stats;
  try {
    st = fs.lstatSync(socketPath);
  } catch (err) {
    if (isMissing(err)) return { ok: false, absent: true, reason: `${socketPath} does not exist` };
    return { ok: false, absent: false, reason: `${socketPath}: ${(err as Error).message}` };
  }
  if (st.isSymbolicLink()) return { ok: false, absent: false, reason: `${socketPath} is a symbolic link, not a socket of ours` };
  if (!st.isSocket()) return { ok: false, absent: false, reason: `${socketPath} is not a socket` };
  if (st.uid !== me) return { ok: false, absent: false, reason: `${socketPath} belongs to another user (uid ${st.uid}, we are ${me})` };
  return { ok: true };
}

/** Said before a refused dial's reason: the relay's transports take an error with it for a companion that is not there. */
export const REFUSED_DIAL = 'refusing to dial';

/** The error a refused dial fails with: ENOENT's words when absent (as the dial itself would say), else the reason. */
export function dialRefusal(socketPath: string, check: Exclude<SocketCheck, { ok: true }>): Error {
  if (check.absent) return Object.assign(new Error(`connect ENOENT ${socketPath}`), { code: 'ENOENT' });
  return Object.assign(new Error(`${REFUSED_DIAL} ${socketPath}: ${check.reason}`), { code: 'EACCES' });
}
