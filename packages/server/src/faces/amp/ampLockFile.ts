/** The lock file Amp's CLI reads (`<data home>/amp/ide/<PORT>.json`), and the sweep of our stale ones. */
import type { AmpLockFile } from '@ide-companion/protocol';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import { sweepStaleLockFiles } from '../lockFile.js';

/**
 * The CLI reaches IDEs whose name holds one of these through their own state
 * files, never a WebSocket: it skips (and deletes) a WebSocket lock file so named.
 */
const AMP_FILE_QUERY_IDE = /vscode|vs code|cursor|windsurf/i;

/** The name the CLI shows; one it would skip becomes the companion's own. */
export function ampIdeName(ideName: string): string {
  return AMP_FILE_QUERY_IDE.test(ideName) ? 'IDE Companion' : ideName;
}

/** The lock file Amp reads. */
export function ampLockFile(input: { port: number; token: string; idePid: number; roots: readonly string[]; ideName: string }): AmpLockFile {
  return { port: input.port, authToken: input.token, pid: input.idePid, workspaceFolders: [...input.roots], ideName: ampIdeName(input.ideName) };
}

const AMP_LOCK_NAME = /^(\d+)\.json$/;

/** Removes our own Amp lock files whose IDE is gone (their pid dead). */
export function sweepStaleAmpLockFiles(dir: string, isAlive: (pid: number) => boolean = isProcessAlive): string[] {
  return sweepStaleLockFiles(dir, 'pid', isAlive, AMP_LOCK_NAME);
}
