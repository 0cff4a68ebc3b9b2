/**
 * Where the files an end ships (plugins, hosts, the .vsix, the relay) are at
 * run time. From the repository, a module finds them relative to its own
 * compiled file. In the release package (`npm run release`) every command is
 * bundled into one entry and its chunks, so `import.meta.url` no longer says
 * which end a module belongs to; there the files sit at their repository
 * paths under the package's root (the nearest folder up with a package.json),
 * and the bundle defines IDE_COMPANION_RELEASE to say so.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

declare const IDE_COMPANION_RELEASE: boolean | undefined;

/** True in the release package's bundle. */
export const IN_RELEASE_PACKAGE = typeof IDE_COMPANION_RELEASE !== 'undefined' && IDE_COMPANION_RELEASE === true;

/**
 * The folder `repoPath` (e.g. `editors/neovim`): in the repository, `up` from
 * `moduleUrl`'s folder; in the release package, `repoPath` under its root.
 */
export function shippedFolder(moduleUrl: string, up: string, repoPath: string): string {
  if (IN_RELEASE_PACKAGE) return resolve(releaseRoot(), repoPath);
  return resolve(dirname(fileURLToPath(moduleUrl)), up);
}

/**
 * The MCP SDK's server side, bundled once for every host (serve, the Neovim
 * host, the JSON-lines host): each loads its own `chunks/sdk.mjs` when it has
 * one (an installed plugin: the installers copy this file there), else this.
 */
export function sdkChunkPath(): string {
  return resolve(shippedFolder(import.meta.url, '../..', 'packages/server'), 'chunks', 'sdk.mjs');
}

let root: string | undefined;
function releaseRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(resolve(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return (root = dir);
}
