/** A path's real form and the "is it below" test, as every path check of ours reads them. */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `p` with every link resolved, or undefined when it does not exist (or cannot be resolved). */
export function realOrUndefined(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/** Whether `child` lies below `parent` (both absolute, as given: nothing is resolved); `orSame`: `parent` itself counts. */
export function isInside(parent: string, child: string, orSame: boolean): boolean {
  const rel = path.relative(parent, child);
  if (rel === '') return orSame;
  return !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** The real path of `p`, or `p` resolved when it does not exist. */
export function realPathOr(p: string): string {
  return realOrUndefined(p) ?? path.resolve(p);
}
