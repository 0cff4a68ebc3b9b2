/**
 * Amp's editFile in `buffer` mode (ide-companion-amp-edit-file, issue 31)
 * against a real Emacs: the text goes through the buffer visiting the file
 * as one change the user undoes, saved byte for byte (no final newline
 * added); a file no buffer visits is just written; a buffer with
 * unsaved changes refuses. Amp's side is testkit's ampClient (the real `amp`
 * cannot start offline: docs/agents.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectAmpClient, makeTempDir, waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { elispString, startEmacs, TIMEOUT } from './harness.js';

const skip = skipEmacsInTmux;

test(
  "Amp's buffer-mode editFile in Emacs: one undoable change, saved exactly; a file not visited too; unsaved changes refuse",
  { skip, timeout: 120_000 },
  async (t) => {
    const data = makeTempDir('ide-companion-emacs-amp-');
    t.after(() => data.cleanup());
    const s = await startEmacs({
      files: { 'a.txt': 'alpha\nbeta\n', 'b.txt': 'keep\n' },
      open: ['a.txt'],
      init: '(setq ide-companion-agents \'("gemini" "amp") ide-companion-amp-edit-file "buffer")',
      env: { AMP_DATA_HOME: data.path },
    });
    t.after(() => s.close());
    const { content } = await s.discovery();
    const lockFile = path.join(data.path, 'amp', 'ide', `${content.port}.json`);
    const lock = await waitFor(() => fs.existsSync(lockFile) && JSON.parse(fs.readFileSync(lockFile, 'utf8')), "Amp's lock file", TIMEOUT);
    const amp = await connectAmpClient(lock);
    t.after(() => amp.close());
    const file = path.join(s.workspace, 'a.txt');
    const bufferText = () =>
      s.evalJson<string>(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (buffer-substring-no-properties (point-min) (point-max)))`);

    const answer = (await amp.request('editFile', { path: file, fullContent: 'alpha\nBETA ✓\ngamma' })).editFile;
    assert.equal(answer.success, true, answer.message);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the bytes exactly, no final newline added');
    assert.equal(await bufferText(), 'alpha\nBETA ✓\ngamma');
    await s.eval(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (undo-only))`);
    assert.equal(await bufferText(), 'alpha\nbeta\n', 'one change, undone');

    const other = path.join(s.workspace, 'b.txt');
    assert.equal((await amp.request('editFile', { path: other, fullContent: 'changed\r\nline\r\n' })).editFile.success, true);
    assert.deepEqual(fs.readFileSync(other), Buffer.from('changed\r\nline\r\n'), 'CRLF kept');

    const refused = (await amp.request('editFile', { path: file, fullContent: 'no\n' })).editFile;
    assert.equal(refused.success, false);
    assert.match(refused.message, /unsaved changes in Emacs/);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the file is left');

    // Emacs tells the host of a buffer whose file changed on disk since it read it, and of a read-only one: both refused.
    await s.eval(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (revert-buffer t t t))`);
    fs.writeFileSync(file, 'theirs\n');
    fs.utimesSync(file, new Date(), new Date(Date.now() + 60_000));
    const stale = (await amp.request('editFile', { path: file, fullContent: 'no\n' })).editFile;
    assert.match(stale.message, /a\.txt changed on disk since Emacs read it/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'theirs\n', 'the file is left');
    await s.eval(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (revert-buffer t t t) (read-only-mode 1))`);
    const readOnly = (await amp.request('editFile', { path: file, fullContent: 'no\n' })).editFile;
    assert.match(readOnly.message, /a\.txt is read-only in Emacs/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'theirs\n', 'the file is left');
  },
);
