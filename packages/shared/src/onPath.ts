/**
 * A command on PATH, looked up here, not by a shell: the installers, `doctor`,
 * `agent --list` and the hosts' ACP launcher all ask through this one function.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** An absolute POSIX path without empty, `.` or `..` segments or a trailing slash: one path.resolve returns as it is. */
const RESOLVED_POSIX_PATH = /^(?:\/(?!\.{1,2}(?:\/|$))[^/]+)+$/;

/**
 * path.resolve(dir, name), joined without node:path where that is the same
 * string (PATH's folders nearly always): `doctor` looks six editors up in
 * every PATH folder, and that many resolves made V8 optimize node:path's
 * normalizeString on another thread at every start (~2 ms of doctor's).
 */
function resolveInDir(dir: string, name: string): string {
  const joined = `${dir}/${name}`;
  return path.sep === '/' && RESOLVED_POSIX_PATH.test(joined) ? joined : path.resolve(dir, name);
}

/** Absolute path of `command` on the PATH of `env`, or undefined. Looked up here, not by a shell: `doctor` asks for six editors. */
export function onPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const names = process.platform === 'win32' ? (env['PATHEXT'] ?? '.EXE;.CMD;.BAT').split(';').map((ext) => command + ext.toLowerCase()) : [command];
  // Bounded: a PATH of thousands of entries is someone else's mistake, not a loop of ours.
  for (const dir of (env['PATH'] ?? '').split(path.delimiter).slice(0, 256)) {
    if (!dir) continue;
    for (const name of names) {
      const candidate = resolveInDir(dir, name);
      try {
        // Most candidates do not exist: no exception for those (throwing ENOENT cost more than the stat).
        if (fs.statSync(candidate, { throwIfNoEntry: false })?.isFile()) {
          fs.accessSync(candidate, fs.constants.X_OK);
          return candidate;
        }
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
