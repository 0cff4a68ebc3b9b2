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
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import { sweepStaleLockFiles } from './lockFile.js';

export { QWEN_ENV, qwenIdeDir } from '@ide-companion/shared/agentPaths';

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

/** Removes our own Qwen lock files whose IDE is gone (their ppid dead), as Qwen Code does when it reads them. */
export function sweepStaleQwenLockFiles(dir: string, isAlive: (pid: number) => boolean = isProcessAlive): string[] {
  return sweepStaleLockFiles(dir, 'ppid', isAlive);
}
