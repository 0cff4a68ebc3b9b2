/**
 * Workspace trust from the folders an editor trusts (Emacs 30's
 * `trusted-content`): the editor hands its setting over as it is, and the
 * workspace is trusted when it is `all` or when every root is covered.
 */
import * as path from 'node:path';

/** `all`, or absolute entries: one ending in `/` covers the folder and everything under it, another only itself. */
export type TrustedFolders = 'all' | readonly string[];

/** Whether `folders` covers every one of `roots` (absolute folders). */
export function trustFromFolders(folders: TrustedFolders, roots: readonly string[]): boolean {
  if (folders === 'all') return true;
  return roots.every((root) => {
    const dir = root.endsWith(path.sep) ? root : root + path.sep;
    return folders.some((entry) => (entry.endsWith('/') ? dir.startsWith(entry) : entry === root || entry + path.sep === dir));
  });
}
