#!/usr/bin/env node
// `npm run package -w editors/vscode`: bundles the extension and packages it as
// ide-companion-vscode.vsix with @vscode/vsce (3.x: it runs on Node 20).
// Dependencies are bundled, so the .vsix holds no node_modules.
import { createVSIX } from '@vscode/vsce';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { bundle } from './bundle.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
await bundle();
await createVSIX({
  cwd: root,
  packagePath: join(root, 'ide-companion-vscode.vsix'),
  dependencies: false,
  skipLicense: true,
  allowStarActivation: false,
});
