/**
 * Where Qwen Code looks for a companion, apart from the code that writes it
 * (qwen.ts): `list` and `doctor` read these without loading the writer.
 */
import * as os from 'node:os';
import * as path from 'node:path';

export const QWEN_ENV = {
  SERVER_PORT: 'QWEN_CODE_IDE_SERVER_PORT',
  WORKSPACE_PATH: 'QWEN_CODE_IDE_WORKSPACE_PATH',
} as const;

/** Qwen Code's folder of lock files, as its Storage.getGlobalIdeDir() finds it: $QWEN_HOME/ide, else ~/.qwen/ide. */
export function qwenIdeDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env['QWEN_HOME'];
  if (home) return path.join(path.resolve(home), 'ide');
  return path.join(os.homedir() || os.tmpdir(), '.qwen', 'ide');
}

/** The lock file's name for a companion on `port`. */
export function qwenLockFileName(port: number): string {
  return `${port}.lock`;
}
