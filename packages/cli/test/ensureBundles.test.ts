/** `ide-companion install` from a clone builds what git does not hold: scripts/bundle.mjs --if-missing, its failure said. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '@ide-companion/testkit';
import { ensureBundles } from '../src/build/ensureBundles.js';

function cloneWith(script: string): { root: string; cleanup: () => void } {
  const dir = makeTempDir();
  fs.mkdirSync(path.join(dir.path, 'scripts'));
  fs.writeFileSync(path.join(dir.path, 'scripts', 'bundle.mjs'), script);
  return { root: dir.path, cleanup: dir.cleanup };
}

test('from a clone it runs the bundle script with --if-missing and passes its lines on', () => {
  const clone = cloneWith(
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('../ran', import.meta.url), JSON.stringify(process.argv.slice(2)));\nconsole.error('bundle: built');\n`,
  );
  try {
    const lines: string[] = [];
    ensureBundles((line) => lines.push(line), clone.root);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(clone.root, 'ran'), 'utf8')), ['--if-missing']);
    assert.deepEqual(lines, ['bundle: built']);
  } finally {
    clone.cleanup();
  }
});

test('a build that fails stops the install, saying to run npm install', () => {
  const clone = cloneWith(`process.exit(1);\n`);
  try {
    assert.throws(() => ensureBundles(() => undefined, clone.root), /run `npm install` in /);
  } finally {
    clone.cleanup();
  }
});
