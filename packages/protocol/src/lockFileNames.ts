/**
 * The agents' lock files as `doctor` and `list` find them, apart from their schemas (agentLocks.ts): read without
 * loading zod. agentLocks.ts takes these fields from here.
 */

/** An agent that finds an editor through a lock file of its own. */
export type LockFileAgent = 'qwen' | 'claude' | 'copilot' | 'amp' | 'droid';

/** How an agent's lock file is named and which field names the IDE's process. */
export interface LockFileNaming {
  /** The lock file's name for a companion on `port` (or, with `ownPort`, for the face's own port). */
  readonly fileName: (port: number) => string;
  /** The field holding the IDE's PID: a file whose process is gone is stale. */
  readonly pidField: 'pid' | 'ppid';
  /**
   * The file is named by a port of the face's own, not the companion's
   * (Factory Droid's: the CLI dials the port in the name): the companion's
   * file is the one whose pid field names its IDE.
   */
  readonly ownPort?: true;
}

/** An agent's lock file name for a companion on `port` (Qwen's, Claude's and Copilot's alike). */
export function portLockFileName(port: number): string {
  return `${port}.lock`;
}

/** Amp's lock file name for a companion on `port` (amp.nvim's `<PORT>.json`). */
export function ampLockFileName(port: number): string {
  return `${port}.json`;
}

export const LOCK_FILE_NAMING: Readonly<Record<LockFileAgent, LockFileNaming>> = {
  qwen: { fileName: portLockFileName, pidField: 'ppid' },
  claude: { fileName: portLockFileName, pidField: 'pid' },
  copilot: { fileName: portLockFileName, pidField: 'pid' },
  amp: { fileName: ampLockFileName, pidField: 'pid' },
  droid: { fileName: portLockFileName, pidField: 'pid', ownPort: true },
};
