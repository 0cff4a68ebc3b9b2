/** The MCP server the Gemini CLI extension ships (and the bin runs for `mcp`) is built from the current sources, and runs itself only when started. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { staleBundleReason } from '@ide-companion/bundler';
import { makeTempDir } from '@ide-companion/testkit';
import { MCP_SERVER_BUNDLE } from '../src/mcp/build/bundle.js';

test('npm install (npm run bundle) built gemini-extension/ide-companion-mcp.mjs from the current sources', { timeout: 120_000 }, async () => {
  const stale = await staleBundleReason(MCP_SERVER_BUNDLE, 'npx tsc -b && npm run bundle');
  assert.equal(stale, undefined);
});

// The bundle runs itself only when node is started on it: the bin imports it for `mcp`.
test('started through a linked extension folder it runs; imported it waits to be called', async () => {
  const tmp = makeTempDir();
  try {
    const linked = path.join(tmp.path, 'ide-companion');
    fs.symlinkSync(path.dirname(MCP_SERVER_BUNDLE.outfile), linked);
    const run = spawnSync(process.execPath, [path.join(linked, path.basename(MCP_SERVER_BUNDLE.outfile)), '--help'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^Usage: ide-companion mcp/);
    // An importer given an option the server refuses: had the bundle run itself, it would exit 2 on it.
    const importer = path.join(tmp.path, 'importer.mjs');
    fs.writeFileSync(importer, `const m = await import(${JSON.stringify(MCP_SERVER_BUNDLE.outfile)}); console.log(typeof m.mcp);\n`);
    const imported = spawnSync(process.execPath, [importer, '--bogus'], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(imported.status, 0, imported.stderr);
    assert.equal(imported.stdout, 'function\n');
    assert.equal(imported.stderr, '');
  } finally {
    tmp.cleanup();
  }
});
