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

export type { QwenLockFile } from '@ide-companion/protocol';

/** Removes our own Qwen lock files whose IDE is gone (their ppid dead), as Qwen Code does when it reads them. */
export function sweepStaleQwenLockFiles(dir: string, isAlive: (pid: number) => boolean = isProcessAlive): string[] {
  return sweepStaleLockFiles(dir, 'ppid', isAlive);
}
