// The fuzz suite's verdict on an error (testkit's unclearError): quoting what was given is clear, however long.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unclearError } from '@ide-companion/testkit';

test('an error quoting a long argument whole is clear, though a shorter argument of the same characters was given too (CI seed 833146109)', () => {
  const long = 'z'.repeat(1_000_000);
  const args = { old_file_path: 'z'.repeat(70_000), new_file_path: long, tab_name: 'x' };
  assert.equal(unclearError(`/w/${long}: outside the workspace folders`, args), undefined);
  // What it is for still holds: an error that dumps more than was given is not clear.
  assert.match(unclearError(`${'internal '.repeat(300)}`, args) ?? '', /^an error of \d+ characters$/);
});
