/**
 * Qwen Code's face (issue 19): Qwen Code speaks Gemini CLI's protocol (MCP
 * Streamable HTTP, the same tools and notifications) but finds a companion
 * through a lock file of its own, `<QWEN_HOME or ~/.qwen>/ide/<PORT>.lock`
 * ({port, workspacePath, ppid, authToken, ideName, ideInfo}; docs/agents.md), and the
 * terminal variables QWEN_CODE_IDE_SERVER_PORT and
 * QWEN_CODE_IDE_WORKSPACE_PATH. So the face is that file and those
 * variables, on the same server, token and context as Gemini's: nothing of
 * diffs or context is its own.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensurePrivateDirectory, sweepDeadPidEntries, writeFileAtomicPrivate } from '../discoveryFile.js';
import { isProcessAlive } from '../processAlive.js';
import { qwenLockFileName } from './qwenPaths.js';

export { QWEN_ENV, qwenIdeDir, qwenLockFileName } from './qwenPaths.js';

/** What Qwen Code reads from the lock file. */
export interface QwenLockFile {
  port: number;
  /** The workspace roots joined with the platform's path delimiter, as Qwen Code's own companion writes them. */
  workspacePath: string;
  /** The IDE's PID: Qwen Code deletes lock files whose ppid is dead. */
  ppid: number;
  authToken: string;
  ideName: string;
  /**
   * Not in Qwen Code's companion spec, but read by its CLI (0.24.4) to know
   * the IDE: without it Qwen Code needs TERM_PROGRAM=vscode and refuses every
   * other terminal ("IDE integration is not supported in your current
   * environment"), as Gemini CLI does without its discovery file's ideInfo.
   */
  ideInfo: { name: string; displayName: string };
}

const LOCK_NAME = /^(\d+)\.lock$/;

/** The lock file of one companion: written atomically (0600, in a 0700 folder), removed on stop. */
export class QwenLockFileHandle {
  readonly path: string;

  constructor(
    readonly dir: string,
    readonly port: number,
  ) {
    this.path = path.join(dir, qwenLockFileName(port));
  }

  write(content: QwenLockFile): void {
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
 * Removes our own lock files whose IDE is gone (their ppid dead), as Qwen
 * Code does when it reads them: a companion killed with -9 leaves its file.
 * Other users' files and files that do not parse are left. Returns the names.
 */
export function sweepStaleQwenLockFiles(dir: string, isAlive: (pid: number) => boolean = isProcessAlive): string[] {
  return sweepDeadPidEntries(dir, (name, file) => (LOCK_NAME.test(name) ? ppidOf(file) : undefined), isAlive);
}

/** The `ppid` a lock file names, or undefined when it does not parse or names none. */
function ppidOf(file: string): number | undefined {
  try {
    const ppid = (JSON.parse(fs.readFileSync(file, 'utf8')) as { ppid?: unknown }).ppid;
    return typeof ppid === 'number' ? ppid : undefined;
  } catch {
    return undefined;
  }
}
