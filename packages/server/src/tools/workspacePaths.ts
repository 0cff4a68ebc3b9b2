/**
 * The `path` argument of every tool that takes one, resolved here once, before
 * the tool's handler runs; the handler hands the editor only what this returns.
 *
 * - `act`: tools that change what the user sees or has on disk (openFile,
 *   saveDocument) act only inside the workspace roots: the token grants the
 *   workspace, not the machine. The file must exist; its symlinks are resolved
 *   and the resolved path is checked AND handed to the editor, so a link
 *   swapped after the check cannot send the editor elsewhere (the check acts on
 *   what it checked). The root keeps the name the editor gave it (the user's
 *   `/tmp` link stays `/tmp`); only what lies below the root is resolved.
 * - `read`: tools that only read the editor's state (checkDocumentDirty,
 *   getDiagnostics) take any absolute path, normalized (`.`, `..`, `//`) but not
 *   resolved: editors know a file by the name it was opened with.
 *
 * What remains: a directory below the root replaced by a symlink after the
 * check and before the editor opens the path would still redirect it (only an
 * open by descriptor, which no editor offers, closes that); see docs/reliability.md.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export type PathUse = 'act' | 'read';

function real(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

function isBelow(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The path the editor is to be handed for `filePath`, or an Error saying why
 * the tool may not use it (its message completes "... refused PATH: ").
 */
export function toolPath(filePath: string, roots: readonly string[], use: PathUse): string | Error {
  if (!path.isAbsolute(filePath)) return use === 'read' ? filePath : new Error('it is not an absolute path');
  if (use === 'read') return path.normalize(filePath);
  const resolved = real(filePath);
  if (!resolved) return new Error('it does not exist');
  // The deepest root holding it: nested roots name the file from the nearest.
  let best: { root: string; rel: string } | undefined;
  for (const root of roots) {
    const r = real(root) ?? root;
    if (!isBelow(r, resolved)) continue;
    const rel = path.relative(r, resolved);
    if (!best || rel.length < best.rel.length) best = { root, rel };
  }
  if (!best) return new Error(`it is outside the workspace folders (${roots.join(', ') || 'none'})`);
  return best.rel === '' ? best.root : path.join(best.root, best.rel);
}

/** `args` with its `path` replaced by what `toolPath` gives, or the refusal as an Error naming the tool. */
export function withToolPath<A>(toolName: string, args: A, roots: readonly string[], use: PathUse): A | Error {
  const given = (args as { path?: unknown } | undefined)?.path;
  if (typeof given !== 'string') return args;
  const resolved = toolPath(given, roots, use);
  if (resolved instanceof Error) return new Error(`${toolName} refused ${given}: ${resolved.message}.`);
  return { ...args, path: resolved };
}
