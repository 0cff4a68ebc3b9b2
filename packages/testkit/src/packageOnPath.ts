/**
 * An installed `ide-companion` package as an editor plugin from git (whose
 * build step did not run) finds it: `bin/ide-companion` on PATH linked into
 * `lib/node_modules/ide-companion`, which holds the editor's host.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Lays the package out under `dir` with its host at `hostPath` (relative to the package); the host's path and the folder to put on PATH. */
export function ideCompanionOnPath(dir: string, hostPath: string): { host: string; binDir: string } {
  const pkg = path.join(dir, 'lib', 'node_modules', 'ide-companion');
  const bin = path.join(pkg, 'packages', 'cli', 'bin', 'ide-companion.js');
  const host = path.join(pkg, hostPath);
  for (const file of [bin, host]) fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(bin, '#!/usr/bin/env node\n', { mode: 0o755 });
  fs.writeFileSync(host, '// the package host\n');
  const binDir = path.join(dir, 'bin');
  fs.mkdirSync(binDir);
  fs.symlinkSync(path.relative(binDir, bin), path.join(binDir, 'ide-companion'));
  return { host, binDir };
}
