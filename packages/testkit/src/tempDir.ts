import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh real-path directory, removed by the returned cleanup. The removal
 * retries a few times: a process the test just stopped (an editor's host, a
 * shell) may still be writing its last file there.
 */
export function makeTempDir(prefix = 'ide-companion-test-'): { path: string; cleanup: () => void } {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }) };
}
