#!/usr/bin/env node
// `npm run release`: builds dist-release/ide-companion-VERSION.tgz and the native artifacts beside it
// (packages/cli/src/build/release.ts says what each holds). Runs the TypeScript build and the bundles first.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { relative } from 'node:path';

execFileSync('npx', ['tsc', '-b'], { stdio: 'inherit' });
execFileSync(process.execPath, [new URL('bundle.mjs', import.meta.url).pathname], { stdio: 'inherit' });
const { buildRelease, REPO_ROOT } = await import('../packages/cli/dist/src/build/release.js');
const release = await buildRelease(undefined, (line) => console.error(`release: ${line}`));
for (const file of release.artifacts) {
  console.log(`${relative(REPO_ROOT, file)}  ${(statSync(file).size / 1024).toFixed(0)} KiB`);
}
