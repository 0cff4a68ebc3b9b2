/**
 * The command tier in one place: one UsageError (packages/command) and one mapping of a command's
 * errors to exit codes (packages/cli/src/runCommand.ts) across every package and editor end.
 * (Which package may import which is eslint's no-restricted-imports, per layer: eslint.config.mjs.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../src/build/release.js';

/** Every TypeScript source file of the packages and the editor ends (no tests, no build output). */
function sources(): string[] {
  const files: string[] = [];
  for (const group of ['packages', 'editors']) {
    for (const name of fs.readdirSync(path.join(REPO_ROOT, group))) {
      const src = path.join(REPO_ROOT, group, name, 'src');
      if (!fs.existsSync(src)) continue;
      for (const file of fs.readdirSync(src, { recursive: true }) as string[]) if (file.endsWith('.ts')) files.push(path.join(src, file));
    }
  }
  return files;
}

function declaring(pattern: RegExp): string[] {
  return sources()
    .filter((file) => pattern.test(fs.readFileSync(file, 'utf8')))
    .map((file) => path.relative(REPO_ROOT, file));
}

test('one UsageError and one runCommand, in the command tier', () => {
  assert.deepEqual(declaring(/\bclass UsageError\b/), ['packages/command/src/commandSpec.ts']);
  assert.deepEqual(declaring(/\bfunction runCommand\b/), ['packages/cli/src/runCommand.ts']);
});
