/** The host bundle the plugin starts is built (by npm install, npm run bundle) from the current sources. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { staleBundleReason } from '@ide-companion/bundler';
import { NEOVIM_HOST_BUNDLE } from '../src/build/bundleHost.js';

test('npm install (npm run bundle) built the host bundle from the current sources', { timeout: 120_000 }, async () => {
  const stale = await staleBundleReason(NEOVIM_HOST_BUNDLE, 'npx tsc -b && npm run bundle');
  assert.equal(stale, undefined);
});
