/**
 * An agent's lock file, `<dir>/<PORT>.lock` (Qwen Code's and Claude Code's
 * discovery): written atomically, 0600 in a 0700 folder, removed on stop, and
 * swept at start when the IDE it names is dead (a companion killed with -9
 * leaves its file).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDirectory, sweepDeadPidEntries, writeFileAtomicPrivate } from '../discoveryFile.js';
import { isProcessAlive } from '@ide-companion/shared/processAlive';

import { portLockFileName } from '@ide-companion/shared/agentPaths';

const LOCK_NAME = /^(\d+)\.lock$/;

export class PortLockFile<T> {
  readonly path: string;

  constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    this.path = path.join(dir, portLockFileName(port));
  }

  write(content: T): void {
    ensurePrivateDirectory(path.dirname(this.dir));
    ensurePrivateDirectory(this.dir);
    writeFileAtomicPrivate(this.path, JSON.stringify(content));
  }

  removeSync(): void {
    try {
      fs.unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Removes our own lock files in `dir` whose IDE is gone (the PID under
 * `pidKey` dead). Other users' files and files that do not parse are left.
 * Returns the names removed.
 */
export function sweepStaleLockFiles(dir: string, pidKey: string, isAlive: (pid: number) => boolean = isProcessAlive): string[] {
  return sweepDeadPidEntries(dir, (name, file) => (LOCK_NAME.test(name) ? pidIn(file, pidKey) : undefined), isAlive);
}

function pidIn(file: string, key: string): number | undefined {
  try {
    const pid = (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>)[key];
    return typeof pid === 'number' ? pid : undefined;
  } catch {
    return undefined;
  }
}
