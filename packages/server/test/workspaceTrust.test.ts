/** Trust from the editor's trusted folders (moved from Emacs's ERT suite with its assertions: the rule is the host's now). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trustFromFolders } from '../src/workspaceTrust.js';

test('all, or entries covering every root, is trusted; anything else is not', () => {
  assert.equal(trustFromFolders('all', ['/p/a']), true);
  assert.equal(trustFromFolders(['/p/'], ['/p/a']), true);
  assert.equal(trustFromFolders(['/q/'], ['/p/a']), false);
  // A folder entry covers the root itself too; a file-like entry only that very path.
  assert.equal(trustFromFolders(['/p/a/'], ['/p/a']), true);
  assert.equal(trustFromFolders(['/p/a'], ['/p/a']), true);
  assert.equal(trustFromFolders(['/p'], ['/p/a']), false);
  assert.equal(trustFromFolders(['/p/a/'], ['/p/ab']), false);
  // Every root must be covered.
  assert.equal(trustFromFolders(['/p/'], ['/p/a', '/q/b']), false);
  assert.equal(trustFromFolders(['/p/', '/q/'], ['/p/a', '/q/b']), true);
  assert.equal(trustFromFolders([], ['/p/a']), false);
});
