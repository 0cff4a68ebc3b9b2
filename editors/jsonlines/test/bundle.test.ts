/** The bridge host shipped for Vim and Emacs is built from the current sources. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { staleBundleReason } from '@ide-companion/bundler';
import { BRIDGE_HOST_BUNDLE } from '../src/build/bundleHost.js';

test('npm install (npm run bundle) built bridge host bundle (host file and chunks) from the current sources', { timeout: 120_000 }, async () => {
  const stale = await staleBundleReason(BRIDGE_HOST_BUNDLE, 'npx tsc -b && npm run bundle');
  assert.equal(stale, undefined);
});
