/**
 * Amp (issue 31): what is Neovim's own. Amp's face against Neovim (its lock
 * file, the selection, :GeminiSend as appendToPrompt, editFile reviewed and in
 * buffer mode, readFile and openURI) is the conformance suite's, as for every
 * end (packages/testkit/src/conformance/faceScenarios.ts); here, setup()'s
 * check of its option.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnless } from '@ide-companion/testkit';
import { hasNvim, startNeovim } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');

test("setup's amp_edit_file takes 'review' or 'buffer' and says so for anything else", { skip, timeout: 60_000 }, async (t) => {
  const s = await startNeovim({ start: false });
  t.after(() => s.close());
  const bad = await s.lua<[boolean, string]>("local ok, err = pcall(require('ide_companion.config').resolve, { amp_edit_file = 'diff' }) return { ok, err }");
  assert.equal(bad[0], false);
  assert.match(bad[1], /amp_edit_file must be 'review' or 'buffer', got "diff"/);
  const good = await s.lua<[boolean]>("local ok = pcall(require('ide_companion.config').resolve, { amp_edit_file = 'buffer' }) return { ok }");
  assert.equal(good[0], true);
});
