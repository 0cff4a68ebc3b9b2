/** The serve bundle the bin runs is built from the current sources. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { staleBundleReason } from '@ide-companion/bundler';
import { SERVE_BUNDLE } from '../src/build/bundleServe.js';

test('npm install (npm run bundle) built the serve bundle from the current sources', { timeout: 120_000 }, async () => {
  const stale = await staleBundleReason(SERVE_BUNDLE, 'npx tsc -b && npm run bundle');
  assert.equal(stale, undefined);
});
