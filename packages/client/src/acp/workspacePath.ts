/**
 * The one check an agent's path passes before we read or write it: absolute,
 * no control characters, and inside a workspace root once symlinks are
 * resolved (of the file if it exists, else of its nearest existing folder),
 * so a link inside the workspace cannot lead a write out of it.
 */
import { realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { TERMINAL_CONTROL } from '@ide-companion/protocol';
import { isInside } from '@ide-companion/shared/realPaths';

export class PathRefused extends Error {
  override name = 'PathRefused';
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest. */
function realish(p: string): string {
  const rest: string[] = [];
  let current = p;
  for (let i = 0; i < 4096; i++) {
    try {
      return path.join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return p;
      rest.push(path.basename(current));
      current = parent;
    }
  }
  return p;
}

/**
 * `p` resolved, when it is inside one of `roots`; throws PathRefused with the
 * reason otherwise. `forWrite`: it must not be a folder or other non-file.
 */
export function checkWorkspacePath(p: unknown, roots: readonly string[], forWrite = false): string {
  const resolved = resolveInside(p, roots);
  let stat;
  try {
    stat = statSync(resolved);
  } catch {
    if (forWrite) return resolved;
    throw new PathRefused(`${p as string} does not exist`);
  }
  if (!stat.isFile()) throw new PathRefused(`${p as string} is not a regular file`);
  return resolved;
}

/** `p` resolved, when it is an existing folder inside one of `roots` (a command's cwd); throws PathRefused otherwise. */
export function checkWorkspaceDir(p: unknown, roots: readonly string[]): string {
  const resolved = resolveInside(p, roots);
  let isDir = false;
  try {
    isDir = statSync(resolved).isDirectory();
  } catch {
    throw new PathRefused(`${p as string} does not exist`);
  }
  if (!isDir) throw new PathRefused(`${p as string} is not a folder`);
  return resolved;
}

function resolveInside(p: unknown, roots: readonly string[]): string {
  if (typeof p !== 'string' || p === '') throw new PathRefused('the path is missing');
  TERMINAL_CONTROL.lastIndex = 0;
  if (TERMINAL_CONTROL.test(p) || p.includes('\n') || p.includes('\t')) throw new PathRefused('the path holds control characters');
  if (!path.isAbsolute(p)) throw new PathRefused(`the path must be absolute (ACP): ${p}`);
  const resolved = realish(path.resolve(p));
  const inside = roots.some((root) => isInside(realish(path.resolve(root)), resolved, true));
  if (!inside) throw new PathRefused(`${p} is outside the workspace (${roots.join(', ')})`);
  return resolved;
}
