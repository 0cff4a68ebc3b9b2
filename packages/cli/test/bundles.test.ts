/**
 * Git holds sources only: every file `npm run bundle` writes is ignored and untracked, and the hosts
 * share one SDK chunk (packages/server/chunks/sdk.mjs) instead of a copy each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BRIDGE_HOST_BUNDLE } from '@ide-companion/jsonlines/build/bundleHost';
import { NEOVIM_HOST_BUNDLE } from '@ide-companion/neovim/build/bundleHost';
import { sdkChunkPath } from '@ide-companion/server/shippedFiles';
import { SERVE_BUNDLE } from '../src/build/bundleServe.js';
import { MCP_SERVER_BUNDLE } from '../src/mcp/build/bundle.js';
import { RELAY_BUNDLE } from '../src/connect/build/bundle.js';
import { REPO_ROOT } from '../src/build/release.js';

const BUNDLES = [NEOVIM_HOST_BUNDLE, BRIDGE_HOST_BUNDLE, SERVE_BUNDLE, MCP_SERVER_BUNDLE, RELAY_BUNDLE];
const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });

/** Every file the bundles are made of, as `npm run bundle` left them (relative to the repository). */
function builtFiles(): string[] {
  const files = [sdkChunkPath()];
  for (const b of BUNDLES) {
    files.push(b.outfile);
    if (b.chunks) {
      const dir = path.join(path.dirname(b.outfile), b.chunks);
      for (const name of fs.readdirSync(dir)) files.push(path.join(dir, name));
    }
  }
  return files.map((f) => path.relative(REPO_ROOT, f));
}

test('no built bundle is tracked by git, and git ignores each of them', () => {
  const built = builtFiles();
  assert.ok(built.length > BUNDLES.length, `built: ${built.join(', ')}`);
  const tracked = git('ls-files', '--', ...built)
    .split('\n')
    .filter(Boolean);
  assert.deepEqual(tracked, [], 'generated files tracked by git');
  const ignored = git('check-ignore', '--no-index', '--', ...built)
    .split('\n')
    .filter(Boolean);
  assert.deepEqual(ignored.sort(), [...built].sort());
  assert.deepEqual(git('ls-files', '--', '*.tmp.mjs').trim(), '', 'scratch files tracked by git');
});

test('the hosts share one SDK chunk: none has its own, each loads the shared one', () => {
  for (const b of [NEOVIM_HOST_BUNDLE, BRIDGE_HOST_BUNDLE, SERVE_BUNDLE]) {
    assert.equal(b.sdk, sdkChunkPath());
    assert.ok(!fs.existsSync(path.join(path.dirname(b.outfile), b.chunks!, 'sdk.mjs')), `${b.outfile} has an SDK chunk of its own`);
    const shared = path.relative(path.dirname(b.outfile), sdkChunkPath()).split(path.sep).join('/');
    assert.ok(fs.readFileSync(b.outfile, 'utf8').includes(JSON.stringify(`./${shared}`)), `${b.outfile} does not load ${shared}`);
  }
  assert.match(fs.readFileSync(sdkChunkPath(), 'utf8'), /McpServer/);
});
