#!/usr/bin/env node
// Bundles the extension (src/extension.ts and everything it imports but `vscode`)
// into one CommonJS file, dist/extension.cjs: VS Code 1.100 loads extensions with
// require(), and the .cjs name keeps it CommonJS inside this "type": "module" package.
import { build } from 'esbuild';
import { BUNDLE_ALIASES } from '@ide-companion/bundler';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function bundle() {
  await build({
    entryPoints: [join(root, 'src', 'extension.ts')],
    outfile: join(root, 'dist', 'extension.cjs'),
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    alias: BUNDLE_ALIASES,
    minify: true,
    sourcemap: false,
    legalComments: 'eof',
    logLevel: 'warning',
    charset: 'utf8',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
