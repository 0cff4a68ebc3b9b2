/**
 * Tools that change what the user sees or has on disk (openFile, saveDocument)
 * act only inside the workspace roots: the token grants the workspace, not the
 * machine. Symlinks are resolved first, so a link inside a root cannot reach out.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

function real(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/** The file's real path when it exists inside one of `roots`; otherwise an Error saying why not. */
export function fileInsideRoots(filePath: string, roots: readonly string[]): string | Error {
  if (!path.isAbsolute(filePath)) return new Error(`path must be absolute, got ${JSON.stringify(filePath)}`);
  const resolved = real(filePath);
  if (!resolved) return new Error(`${filePath} does not exist`);
  const inside = roots.some((root) => {
    const r = real(root) ?? root;
    const rel = path.relative(r, resolved);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
  return inside ? resolved : new Error(`${filePath} is outside the workspace folders (${roots.join(', ') || 'none'})`);
}
