/**
 * Path comparison as the real CLI does it (utils/paths.js): real paths, with
 * missing tails resolved through their nearest existing parent, and a subpath
 * test that is case-insensitive on macOS and Windows.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const MISSING = new Set(['ENOENT', 'EISDIR', 'ENAMETOOLONG', 'ENOTDIR']);

/** Like the CLI's resolveToRealPath; `base` stands in for process.cwd() when resolving relative paths. */
export function resolveToRealPath(input: string, base: string = process.cwd()): string {
  let p = input;
  try {
    if (p.startsWith('file://')) p = fileURLToPath(p);
    p = decodeURIComponent(p);
  } catch {
    // Malformed URI: keep the text as it was after the previous step.
  }
  return robustRealpath(path.resolve(base, p), new Set());
}

function robustRealpath(p: string, visited: Set<string>): string {
  const key = process.platform === 'win32' ? p.toLowerCase() : p;
  if (visited.has(key)) throw new Error(`symlink loop at ${p}`);
  visited.add(key);
  try {
    return fs.realpathSync.native(p);
  } catch (err) {
    if (!MISSING.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
    try {
      const stat = fs.lstatSync(p);
      if (stat.isSymbolicLink()) return robustRealpath(path.resolve(path.dirname(p), fs.readlinkSync(p)), visited);
    } catch (lstatErr) {
      if (!MISSING.has((lstatErr as NodeJS.ErrnoException).code ?? '')) throw lstatErr;
    }
    const parent = path.dirname(p);
    if (parent === p) return p;
    return path.join(robustRealpath(parent, visited), path.basename(p));
  }
}

/** True when `child` is `parent` or inside it. */
export function isSubpath(parent: string, child: string, platform: NodeJS.Platform = process.platform): boolean {
  const mod = platform === 'win32' ? path.win32 : path.posix;
  let p = mod.resolve(parent);
  let c = mod.resolve(child);
  if (platform === 'darwin') {
    p = p.toLowerCase();
    c = c.toLowerCase();
  }
  const relative = mod.relative(p, c);
  return !relative.startsWith(`..${mod.sep}`) && relative !== '..' && !mod.isAbsolute(relative);
}
