/**
 * The relay bundle (bin/ide-companion-connect.mjs) is what a container mounts
 * read-only and an SSH remote receives: built from the current sources, one
 * file importing nothing but Node's built-ins, runnable from anywhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { staleBundleReason } from '@ide-companion/bundler';
import { makeTempDir } from '@ide-companion/testkit';
import { RELAY_BUNDLE } from '../src/connect/build/bundle.js';

test('npm install (npm run bundle) built bin/ide-companion-connect.mjs from the current sources', { timeout: 120_000 }, async () => {
  const stale = await staleBundleReason(RELAY_BUNDLE, 'npx tsc -b && npm run bundle');
  assert.equal(stale, undefined);
});

test('it imports nothing but node: built-ins, and runs alone from a folder with no node_modules above it', () => {
  const source = fs.readFileSync(RELAY_BUNDLE.outfile, 'utf8');
  const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
  assert.ok(specifiers.length > 0);
  assert.deepEqual(
    specifiers.filter((s) => !s.startsWith('node:')),
    [],
  );
  const tmp = makeTempDir('ide-companion-relay-copy-');
  try {
    const copy = path.join(tmp.path, 'connect.mjs');
    fs.copyFileSync(RELAY_BUNDLE.outfile, copy);
    const run = spawnSync(process.execPath, [copy, '--help'], { encoding: 'utf8', cwd: tmp.path });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^Usage: ide-companion connect/);
    console.log(`relay bundle: ${fs.statSync(RELAY_BUNDLE.outfile).size} bytes`);
  } finally {
    tmp.cleanup();
  }
});
