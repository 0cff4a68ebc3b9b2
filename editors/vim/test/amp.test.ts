/**
 * Amp's editFile in `buffer` mode (g:ide_companion_amp_edit_file, issue 31)
 * against a real Vim: the text goes through Vim's buffer as one change the
 * user undoes with u, written byte for byte; a file no buffer shows is
 * just written; a buffer with unsaved changes
 * refuses. Amp's side is testkit's ampClient (the real `amp` cannot start
 * offline: docs/agents.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectAmpClient, makeTempDir, skipUnless, waitFor } from '@ide-companion/testkit';
import { hasVim, startVim, TIMEOUT } from './harness.js';

const skip = skipUnless(hasVim, 'vim', 'apt-get install -y vim');

test(
  "Amp's buffer-mode editFile in Vim: one undoable change, written exactly; a file not loaded just written; unsaved changes refuse",
  { skip, timeout: 120_000 },
  async (t) => {
    const data = makeTempDir('ide-companion-vim-amp-');
    t.after(() => data.cleanup());
    const s = await startVim({
      files: { 'a.txt': 'alpha\nbeta\n', 'b.txt': 'keep\n' },
      open: ['a.txt'],
      vimrc: ["let g:ide_companion_agents = ['gemini', 'amp']", "let g:ide_companion_amp_edit_file = 'buffer'"],
      env: { AMP_DATA_HOME: data.path },
    });
    t.after(() => s.close());
    const { content } = await s.discovery();
    const lockFile = path.join(data.path, 'amp', 'ide', `${content.port}.json`);
    const lock = await waitFor(() => fs.existsSync(lockFile) && JSON.parse(fs.readFileSync(lockFile, 'utf8')), "Amp's lock file", TIMEOUT);
    const amp = await connectAmpClient(lock);
    t.after(() => amp.close());
    const file = path.join(s.workspace, 'a.txt');

    const answer = (await amp.request('editFile', { path: file, fullContent: 'alpha\nBETA ✓\ngamma' })).editFile;
    assert.equal(answer.success, true, answer.message);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the bytes exactly');
    assert.deepEqual(await s.expr('getline(1, "$")'), ['alpha', 'BETA ✓', 'gamma']);
    assert.equal(await s.expr('tabpagenr("$")'), 1, 'no review tab');
    await s.ex('undo');
    assert.deepEqual(await s.expr('getline(1, "$")'), ['alpha', 'beta'], 'one change, undone with u');

    const other = path.join(s.workspace, 'b.txt');
    assert.equal((await amp.request('editFile', { path: other, fullContent: 'changed\n' })).editFile.success, true);
    assert.equal(fs.readFileSync(other, 'utf8'), 'changed\n');
    assert.equal(await s.expr(`bufloaded(${JSON.stringify(other)})`), 0, 'no buffer shows it: just written');
    assert.equal(await s.expr('winnr("$")'), 1, 'no window opened for it');

    const refused = (await amp.request('editFile', { path: file, fullContent: 'no\n' })).editFile;
    assert.equal(refused.success, false);
    assert.match(refused.message, /unsaved changes in Vim/);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the file is left');
    // Past 'undoreload' (10,000 lines) too, the write is undone with u.
    const big = path.join(s.workspace, 'big.txt');
    fs.writeFileSync(big, 'line\n'.repeat(12_000));
    await s.ex(`split ${big}`);
    assert.equal((await amp.request('editFile', { path: big, fullContent: 'short\n' })).editFile.success, true);
    assert.deepEqual(await s.expr('getline(1, "$")'), ['short']);
    await s.ex('undo');
    assert.equal(await s.expr('line("$")'), 12_000, 'a big file undone too');
    await s.ex('close!');
    await s.ex('edit! | setlocal readonly');
    assert.match((await amp.request('editFile', { path: file, fullContent: 'no\n' })).editFile.message, /a\.txt is read-only in Vim/);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the file is left');
  },
);
