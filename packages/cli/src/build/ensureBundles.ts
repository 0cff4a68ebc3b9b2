/**
 * From a clone, `ide-companion install EDITOR` builds the bundles an installer
 * copies when one is missing (git holds none: scripts/bundle.mjs). The release
 * package ships them built.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { childProcess } from '@ide-companion/command/childProcess';
import { IN_RELEASE_PACKAGE } from '@ide-companion/server/shippedFiles';
import { CLI_ROOT } from './bundleServe.js';

export function ensureBundles(log: (line: string) => void, root: string = join(CLI_ROOT, '..', '..')): void {
  if (IN_RELEASE_PACKAGE) return;
  const script = join(root, 'scripts', 'bundle.mjs');
  if (!existsSync(script)) return;
  const built = childProcess().spawnSync(process.execPath, [script, '--if-missing'], { encoding: 'utf8' });
  for (const line of (built.stderr ?? '').split('\n').filter(Boolean)) log(line);
  if (built.status !== 0) throw new Error(`the bundles could not be built: run \`npm install\` in ${root}`);
}
