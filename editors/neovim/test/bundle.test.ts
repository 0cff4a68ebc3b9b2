/** The host bundle shipped with the plugin is built from the current sources. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { staleBundleReason } from '@ide-companion/testkit';
import { NEOVIM_HOST_BUNDLE } from '../src/build/bundleHost.js';

test('the committed host bundle equals a fresh build of the sources', { timeout: 120_000 }, async () => {
  const stale = await staleBundleReason(NEOVIM_HOST_BUNDLE, 'npx tsc -b && npm run bundle -w editors/neovim');
  assert.equal(stale, undefined);
});
