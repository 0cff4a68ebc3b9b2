/**
 * Which folders may be workspace roots. A root is what a token grants: the
 * file system's root (`/`, `//`, `/./`, or a link to it) or the user's home as
 * a whole would hand an agent every file of the user (openFile /etc/passwd, a
 * discovery file saying `/`), so they are refused; a root that does not exist
 * (or is no folder) is dropped. Each refusal says why, for the log and the
 * editor.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { realOrUndefined } from '@ide-companion/shared/realPaths';

export interface RootRefusal {
  root: string;
  /** Completes "workspace folder ROOT refused: ...". */
  reason: string;
}

const real = realOrUndefined;

/** Why `root` (absolute) may not be a workspace root, or undefined when it may. */
export function rootRefusal(root: string, home: string | undefined = os.homedir()): string | undefined {
  const resolved = path.resolve(root);
  const target = real(resolved);
  if (path.parse(resolved).root === resolved || (target !== undefined && path.parse(target).root === target)) {
    return "it is the file system's root, which would give agents every file on the machine";
  }
  const realHome = home ? (real(home) ?? path.resolve(home)) : undefined;
  if (realHome !== undefined && (resolved === path.resolve(home!) || target === realHome)) {
    return 'it is your home folder as a whole, which would give agents every file of yours: open a project folder instead';
  }
  if (target === undefined) return 'it does not exist';
  if (!fs.statSync(target).isDirectory()) return 'it is not a folder';
  return undefined;
}

/** The roots that may be used (resolved names, in order, without duplicates) and those refused with why. */
export function saneRoots(roots: readonly string[], home?: string): { roots: string[]; refused: RootRefusal[] } {
  const kept: string[] = [];
  const refused: RootRefusal[] = [];
  for (const root of roots) {
    const resolved = path.resolve(root);
    const reason = rootRefusal(resolved, home);
    if (reason) refused.push({ root, reason });
    else if (!kept.includes(resolved)) kept.push(resolved);
  }
  return { roots: kept, refused };
}

/** One sentence for the log and the editor. */
export function describeRootRefusals(refused: readonly RootRefusal[]): string {
  return refused.map((r) => `workspace folder ${JSON.stringify(r.root)} refused: ${r.reason}.`).join(' ');
}
