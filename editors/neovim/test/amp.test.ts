/**
 * Amp (issue 31) against a real Neovim: a client of Amp's wire (testkit's
 * ampClient, the shapes amp.nvim answers; the real `amp` cannot start
 * without ampcode.com, docs/agents.md) finds Neovim's companion through its
 * lock file in XDG_DATA_HOME/amp/ide, hears the selection the user makes,
 * gets `:GeminiSend` as appendToPrompt, and its editFile goes through
 * Neovim's diff view: the user's edits accepted land byte for byte, a
 * rejection leaves the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectAmpClient, skipUnless, waitFor, type AmpClient } from '@ide-companion/testkit';
import { hasNvim, inProposal, startNeovim, TIMEOUT, waitForDiff, type NeovimSession } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');

async function ampBesideNeovim(
  t: import('node:test').TestContext,
  files: Record<string, string>,
  setup = "{ agents = { 'gemini', 'amp' } }",
): Promise<{ s: NeovimSession; amp: AmpClient }> {
  const s = await startNeovim({ setup, files });
  t.after(() => s.close());
  const { content } = await s.discovery();
  const lockFile = path.join(s.tmp, 'data', 'amp', 'ide', `${content.port}.json`);
  const lock = await waitFor(() => fs.existsSync(lockFile) && JSON.parse(fs.readFileSync(lockFile, 'utf8')), "Amp's lock file", TIMEOUT);
  assert.equal((fs.statSync(lockFile).mode & 0o777).toString(8), '600');
  assert.deepEqual(lock.workspaceFolders, [s.workspace]);
  assert.equal(lock.pid, s.pid, "Neovim's pid, which Amp checks");
  const amp = await connectAmpClient(lock);
  t.after(() => amp.close());
  return { s, amp };
}

test("Amp hears Neovim's selection and :GeminiSend; its editFile is reviewed in Neovim's diff view", { skip, timeout: 120_000 }, async (t) => {
  const { s, amp } = await ampBesideNeovim(t, { 'a.txt': 'alpha\nbeta\n', 'b.txt': 'keep\n' });
  const file = path.join(s.workspace, 'a.txt');
  const uri = `file://${file}`;

  await s.nvim.command('edit a.txt');
  await s.nvim.input('2G0ve');
  const selected = await waitFor(
    () => amp.notifications.find((n) => n.name === 'selectionDidChange' && n.params.uri === uri && n.params.selections[0].content === 'beta'),
    'the selection in Neovim reaches Amp',
    TIMEOUT,
  );
  assert.deepEqual(selected.params.selections[0].range, { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 3 });
  await waitFor(() => amp.notifications.some((n) => n.name === 'visibleFilesDidChange' && n.params.uris.includes(uri)), 'visible files', TIMEOUT);
  await s.nvim.input('<Esc>');

  await s.nvim.command('1,2GeminiSend');
  const appended = await waitFor(() => amp.notifications.find((n) => n.name === 'appendToPrompt'), 'appendToPrompt', TIMEOUT);
  assert.deepEqual(appended.params, { message: '@a.txt#L1-2' });

  // editFile, accepted with the user's edits (:w in the proposal): those bytes land, and the answer says so.
  const accepted = amp.request('editFile', { path: file, fullContent: 'alpha\nBETA\n' });
  const d = await waitForDiff(s, file);
  await s.lua("vim.api.nvim_buf_set_lines(..., 0, 1, false, {'ALPHA ✓'})", d.proposal);
  await inProposal(s, d.proposal, 'write');
  const answer = (await accepted).editFile;
  assert.equal(answer.success, true, answer.message);
  assert.equal(answer.appliedChanges, true);
  assert.deepEqual(fs.readFileSync(file), Buffer.from('ALPHA ✓\nBETA\n'), "the user's bytes, exactly");

  // Rejected (:q! in the proposal): the file is unchanged.
  const other = path.join(s.workspace, 'b.txt');
  const rejected = amp.request('editFile', { path: other, fullContent: 'changed\n' });
  const d2 = await waitForDiff(s, other);
  await inProposal(s, d2.proposal, 'quit!');
  assert.equal((await rejected).editFile.success, false);
  assert.equal(fs.readFileSync(other, 'utf8'), 'keep\n');

  // readFile and openURI through the same path checks.
  assert.equal((await amp.request('readFile', { path: file })).readFile.content, 'ALPHA ✓\nBETA\n');
  assert.equal((await amp.request('readFile', { path: '/etc/passwd' })).readFile.success, false);
  assert.equal((await amp.request('openURI', { uri: `file://${other}` })).openURI.success, true);
  await waitFor(async () => (await s.nvim.call('expand', ['%:p'])) === other, 'Neovim shows b.txt', TIMEOUT);
});

test(
  "Amp's editFile in buffer mode (setup's amp_edit_file = 'buffer'): written through Neovim's buffer, bytes exact, undone with u; a buffer with unsaved changes refuses",
  { skip, timeout: 120_000 },
  async (t) => {
    const { s, amp } = await ampBesideNeovim(t, { 'a.txt': 'alpha\nbeta\n', 'b.txt': 'keep\n' }, "{ agents = { 'gemini', 'amp' }, amp_edit_file = 'buffer' }");
    const file = path.join(s.workspace, 'a.txt');
    await s.nvim.command('edit a.txt');

    const answer = (await amp.request('editFile', { path: file, fullContent: 'alpha\nBETA ✓\ngamma' })).editFile;
    assert.equal(answer.success, true, answer.message);
    assert.equal(answer.appliedChanges, true);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the bytes exactly, no final newline added');
    assert.deepEqual(await s.lua('return vim.api.nvim_buf_get_lines(0, 0, -1, false)'), ['alpha', 'BETA ✓', 'gamma']);
    assert.deepEqual(await s.lua('return require("ide_companion.diff").list()'), [], 'no review');
    await s.nvim.command('undo');
    assert.deepEqual(await s.lua('return vim.api.nvim_buf_get_lines(0, 0, -1, false)'), ['alpha', 'beta'], 'one change, undone with u');

    // A file no buffer shows is just written; a buffer with unsaved changes (the undo above) is refused.
    const other = path.join(s.workspace, 'b.txt');
    assert.equal((await amp.request('editFile', { path: other, fullContent: 'changed\n' })).editFile.success, true);
    assert.equal(fs.readFileSync(other, 'utf8'), 'changed\n');
    const refused = (await amp.request('editFile', { path: file, fullContent: 'no\n' })).editFile;
    assert.equal(refused.success, false);
    assert.match(refused.message, /unsaved changes in Neovim/);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the file is left');
    assert.deepEqual(await s.lua('return vim.api.nvim_buf_get_lines(0, 0, -1, false)'), ['alpha', 'beta'], "the user's buffer is left");
    // Past 'undoreload' (10,000 lines) too, the write is undone with u.
    const big = path.join(s.workspace, 'big.txt');
    fs.writeFileSync(big, 'line\n'.repeat(12_000));
    await s.nvim.command(`split ${big}`);
    assert.equal((await amp.request('editFile', { path: big, fullContent: 'short\n' })).editFile.success, true);
    assert.deepEqual(await s.lua('return vim.api.nvim_buf_get_lines(0, 0, -1, false)'), ['short']);
    await s.nvim.command('undo');
    assert.equal(await s.lua('return vim.api.nvim_buf_line_count(0)'), 12_000, 'a big file undone too');
    await s.nvim.command('close!');
    await s.nvim.command('edit! | setlocal readonly');
    assert.match((await amp.request('editFile', { path: file, fullContent: 'no\n' })).editFile.message, /a\.txt is read-only in Neovim/);
    assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the file is left');
    const bad = await s.lua<[boolean, string]>("local ok, err = pcall(require('ide_companion.config').resolve, { amp_edit_file = 'diff' }) return { ok, err }");
    assert.equal(bad[0], false);
    assert.match(bad[1], /amp_edit_file must be 'review' or 'buffer', got "diff"/);
  },
);
