/** An editor's discovery file, found by the editor's PID in the folder the CLI reads (`TMPDIR/gemini/ide`). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDiscoveryFile, parseDiscoveryFileName, type DiscoveryFile } from '@ide-companion/protocol';
import { waitFor } from './wait.js';

/** The name of `pid`'s discovery file in `dir`, or undefined while there is none. */
export function discoveryFileOf(dir: string, pid: number | undefined): string | undefined {
  if (!fs.existsSync(dir)) return undefined;
  return fs.readdirSync(dir).find((name) => parseDiscoveryFileName(name)?.pid === pid);
}

/** Waits for `pid`'s discovery file in `dir`; its path and what it says. */
export function waitDiscoveryFile(dir: string, pid: number | undefined, timeoutMs: number): Promise<{ path: string; content: DiscoveryFile }> {
  return waitFor(
    () => {
      const name = discoveryFileOf(dir, pid);
      if (!name) return undefined;
      const file = path.join(dir, name);
      return { path: file, content: parseDiscoveryFile(fs.readFileSync(file, 'utf8')) };
    },
    'the discovery file',
    timeoutMs,
  );
}
