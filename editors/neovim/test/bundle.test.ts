/** The host bundle shipped with the plugin is built from the current sources. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildHostBundle } from '../src/build/bundleHost.js';
import { HOST_BUNDLE_PATH } from '../src/pluginFiles.js';

test('the committed host bundle equals a fresh build of the sources', { timeout: 120_000 }, async () => {
  const fresh = await buildHostBundle();
  const committed = readFileSync(HOST_BUNDLE_PATH, 'utf8');
  // assert.equal on 800 KB would print both; say what to do instead.
  assert.ok(
    committed === fresh,
    `${HOST_BUNDLE_PATH} is out of date (${committed.length} vs ${fresh.length} chars): run \`npx tsc -b && npm run bundle -w editors/neovim\``,
  );
});
