/**
 * An agent's lock file, `<dir>/<PORT>.lock` (Qwen Code's and Claude Code's
 * discovery): written atomically, 0600, removed on stop, and swept at start
 * when the IDE it names is dead (a companion killed with -9 leaves its file).
 *
 * Its folders are the user's before they are ours: the agent's config folder
 * (`~/.qwen`, `~/.claude`, or the one its variable names) is used when it is a
 * folder the user owns, through a link too (dotfile managers link it), and
 * never chmod-ed. It is made (0700) only for an agent the user chose by name
 * (`agents`, IDE_COMPANION_AGENTS) or pointed its variable at (QWEN_HOME,
 * CLAUDE_CONFIG_DIR): a user of neither gets no `~/.qwen`. The
 * `ide` folder in it is made 0700, or used as it is when the user owns it.
 * The folders made are noted (`agentFoldersRecord`), so that `uninstall`
 * removes them, and only them, once they are empty.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DiscoveryFileError, sweepDeadPidEntries, writeFileAtomicPrivate } from '../discoveryFile.js';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import { readRegularFileSync } from '@ide-companion/shared/regularFile';

import { portLockFileName } from '@ide-companion/shared/agentPaths';

/** A lock file or our record of folders is a few hundred bytes: anything larger is not ours to parse. */
const MAX_LOCK_FILE_BYTES = 1024 * 1024;

const LOCK_NAME = /^(\d+)\.lock$/;

export class PortLockFile<T> {
  readonly path: string;

  /** `createConfigDir`: the user chose this agent (by name or its variable), so its config folder is made when missing. */
  constructor(
    readonly dir: string,
    readonly port: number,
    readonly createConfigDir = true,
    /** The file's name for the port: `<PORT>.lock` (Qwen's, Claude's, Copilot's), `<PORT>.json` (Amp's). */
    fileName: (port: number) => string = portLockFileName,
  ) {
    this.path = path.join(dir, fileName(port));
  }

  /** Writes the file; false when the agent has no config folder here and was not chosen by name (nothing made). */
  write(content: T): boolean {
    if (!userFolder(path.dirname(this.dir), this.createConfigDir)) return false;
    userFolder(this.dir, true);
    writeFileAtomicPrivate(this.path, JSON.stringify(content));
    return true;
  }

  removeSync(): void {
    try {
      fs.unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}

const currentUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

/**
 * A folder of the user's, links followed: true when it is one (never
 * chmod-ed), or was missing and `create` made it 0700; false when missing and
 * not to be made. Throws for a non-folder or another user's folder.
 */
function userFolder(dir: string, create: boolean): boolean {
  let st = fs.statSync(dir, { throwIfNoEntry: false });
  if (!st) {
    if (!create) return false;
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
      noteMadeFolder(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new DiscoveryFileError(`cannot create ${dir}: ${(err as Error).message}`);
    }
    st = fs.statSync(dir, { throwIfNoEntry: false });
    if (!st) throw new DiscoveryFileError(`${dir} is a link to nothing`);
  }
  if (!st.isDirectory()) throw new DiscoveryFileError(`${dir} exists and is not a folder`);
  const uid = currentUid();
  if (uid !== undefined && st.uid !== uid) {
    throw new DiscoveryFileError(`${dir} belongs to another user (uid ${st.uid}, we are ${uid}); refusing to use it.`);
  }
  return true;
}

/**
 * Removes our own lock files in `dir` whose IDE is gone (the PID under
 * `pidKey` dead). Other users' files and files that do not parse are left.
 * Returns the names removed.
 */
export function sweepStaleLockFiles(
  dir: string,
  pidKey: string,
  isAlive: (pid: number) => boolean = isProcessAlive,
  namePattern: RegExp = LOCK_NAME,
): string[] {
  return sweepDeadPidEntries(dir, (name, file) => (namePattern.test(name) ? pidIn(file, pidKey) : undefined), isAlive);
}

function pidIn(file: string, key: string): number | undefined {
  try {
    // A FIFO named like a lock file must not hold the companion's start.
    const r = readRegularFileSync(file, MAX_LOCK_FILE_BYTES);
    if (!('text' in r)) return undefined;
    const pid = (JSON.parse(r.text) as Record<string, unknown>)[key];
    return typeof pid === 'number' ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Where the agents' folders we made are noted: `$XDG_STATE_HOME/ide-companion/agent-folders.json` (default ~/.local/state). */
export function agentFoldersRecord(env: NodeJS.ProcessEnv = process.env): string {
  const state = env['XDG_STATE_HOME'] || path.join(env['HOME'] || os.homedir(), '.local', 'state');
  return path.join(state, 'ide-companion', 'agent-folders.json');
}

function readRecord(file: string): string[] {
  try {
    const r = readRegularFileSync(file, MAX_LOCK_FILE_BYTES);
    const list: unknown = 'text' in r ? JSON.parse(r.text) : [];
    return Array.isArray(list) ? list.filter((d): d is string => typeof d === 'string' && path.isAbsolute(d)) : [];
  } catch {
    return [];
  }
}

/**
 * Notes a folder we made in the user's home (the agents' defaults; one their
 * variables put elsewhere is the user's to remove). A record that cannot be
 * written costs only its removal at uninstall.
 */
function noteMadeFolder(dir: string): void {
  const home = process.env['HOME'] || os.homedir();
  if (!home || !dir.startsWith(home + path.sep)) return;
  const file = agentFoldersRecord();
  try {
    const list = readRecord(file);
    if (list.includes(dir)) return;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileAtomicPrivate(file, JSON.stringify([...list, dir]));
  } catch {
    // Not noted: uninstall leaves this folder.
  }
}

/**
 * `uninstall`'s part: removes the agents' folders we made that are empty
 * (the `ide` folder before its parent; a folder holding a running
 * companion's lock file, or anything of the agent's, stays noted), and the
 * record once nothing is left in it. Returns the folders removed.
 */
export function removeMadeAgentFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const file = agentFoldersRecord(env);
  const list = readRecord(file);
  const removed: string[] = [];
  const gone: string[] = [];
  for (const dir of [...list].reverse()) {
    try {
      fs.rmdirSync(dir);
      removed.push(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') gone.push(dir);
    }
  }
  const left = list.filter((d) => !removed.includes(d) && !gone.includes(d));
  try {
    if (left.length > 0) writeFileAtomicPrivate(file, JSON.stringify(left));
    else {
      fs.rmSync(file, { force: true });
      fs.rmdirSync(path.dirname(file));
    }
  } catch {
    // The record's folder holds something else, or is gone already.
  }
  return removed;
}
