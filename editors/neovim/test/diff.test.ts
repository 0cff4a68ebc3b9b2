/** Diffs shown in a real Neovim: accepted with :w (edits kept, bytes exact), rejected by closing, several at once. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeCloseDiffText } from '@ide-companion/protocol';
import { skipUnless, waitFor } from '@ide-companion/testkit';
import { bufferLines, connectFromDiscovery, hasNvim, inProposal, startWithClient, TIMEOUT, waitForDiff } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');

function openDiff(client: { callTool: (req: any) => Promise<any> }, filePath: string, newContent: string) {
  return client.callTool({ name: 'openDiff', arguments: { filePath, newContent } });
}

describe('Neovim diffs', { skip, timeout: 180_000 }, () => {
  // An unedited proposal accepted comes back byte for byte (line endings, final newline, empty): the conformance suite (conformance.test.ts).

  test("the user's edits in the proposal are what :w accepts, in the proposal's line endings", async () => {
    const { s, c, discovery } = await startWithClient({ files: { 'crlf.txt': 'one\r\ntwo\r\n' } });
    try {
      const filePath = path.join(s.workspace, 'crlf.txt');
      await openDiff(c.client, filePath, 'one\r\nTWO\r\nthree');
      const d = await waitForDiff(s, filePath);
      assert.deepEqual(await bufferLines(s, d.original), ['one', 'two'], 'the left side is the file on disk');
      await s.lua("vim.api.nvim_buf_set_lines(..., 0, 1, false, {'ONE', 'inserted ✓'})", d.proposal);
      await inProposal(s, d.proposal, 'write');
      const accepted = await c.waitForNotification('ide/diffAccepted', (p) => p.filePath === filePath);
      assert.equal(accepted.content, 'ONE\r\ninserted ✓\r\nTWO\r\nthree');
      // The tab is gone and the file untouched: writing is the CLI's job.
      await waitFor(async () => (await s.lua<unknown[]>("return require('ide_companion.diff').list()")).length === 0, 'diff closed', TIMEOUT);
      assert.equal(fs.readFileSync(filePath, 'utf8'), 'one\r\ntwo\r\n');
      assert.equal(await s.lua('return vim.api.nvim_buf_is_valid(...)', d.proposal), false);
      // The host logged the diff by path and size: never its text, never the token.
      const log = fs.readFileSync(path.join(s.tmp, 'ide-companion.log'), 'utf8');
      assert.match(log, /diff accepted/);
      assert.ok(!log.includes('inserted ✓') && !log.includes('TWO'), 'no file contents in the log');
      assert.ok(!log.includes(discovery.authToken), 'no token in the log');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('closing the proposal rejects: :q!, :GeminiReject and :tabclose!', async () => {
    const { s, c } = await startWithClient({ files: { 'r.txt': 'keep\n' } });
    try {
      const filePath = path.join(s.workspace, 'r.txt');
      for (const [i, command] of ['quit!', 'GeminiReject', 'tabclose!'].entries()) {
        await openDiff(c.client, filePath, `change ${i}\n`);
        const d = await waitForDiff(s, filePath);
        await s.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, {'edited'})", d.proposal);
        await inProposal(s, d.proposal, command);
        await waitFor(() => c.notifications.filter((n) => n.method === 'ide/diffRejected').length === i + 1, `rejection by ${command}`, TIMEOUT);
        await waitFor(async () => (await s.lua<unknown[]>("return require('ide_companion.diff').list()")).length === 0, 'diff closed', TIMEOUT);
      }
      assert.equal(c.notifications.filter((n) => n.method === 'ide/diffAccepted').length, 0);
      assert.ok(c.notifications.filter((n) => n.method === 'ide/diffRejected').every((n) => n.params.filePath === filePath));
      assert.equal(await s.lua('return #vim.api.nvim_list_tabpages()'), 1, 'no diff tab left behind');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('diffs from two CLI sessions are open at once, and each outcome reaches only its own session', async () => {
    const { s, c, discovery } = await startWithClient({ files: { 'one.txt': '1\n', 'two.txt': '2\n' } });
    const c2 = await connectFromDiscovery(discovery);
    try {
      const one = path.join(s.workspace, 'one.txt');
      const two = path.join(s.workspace, 'two.txt');
      await openDiff(c.client, one, 'one from session 1\n');
      await openDiff(c2.client, two, 'two from session 2\n');
      const d1 = await waitForDiff(s, one);
      const d2 = await waitForDiff(s, two);
      assert.equal(await s.lua('return #vim.api.nvim_list_tabpages()'), 3);
      await inProposal(s, d2.proposal, 'GeminiAccept');
      const accepted = await c2.waitForNotification('ide/diffAccepted');
      assert.deepEqual(accepted, { filePath: two, content: 'two from session 2\n' });
      await inProposal(s, d1.proposal, 'GeminiReject');
      assert.deepEqual(await c.waitForNotification('ide/diffRejected'), { filePath: one });
      const outcomes = (n: { method: string }) => n.method !== 'ide/contextUpdate';
      assert.equal(c.notifications.filter(outcomes).length, 1);
      assert.equal(c2.notifications.filter(outcomes).length, 1);
    } finally {
      await c2.close();
      await c.close();
      await s.close();
    }
  });

  test('an accept its CLI never wrote comes back kept without taking the window of the diff the user is in, and says so', async () => {
    const { s, c, discovery } = await startWithClient({ files: { 'gone.txt': 'gone on disk\n', 'new.txt': 'new on disk\n' } });
    const c2 = await connectFromDiscovery(discovery);
    try {
      const gone = path.join(s.workspace, 'gone.txt');
      const fresh = path.join(s.workspace, 'new.txt');
      await openDiff(c2.client, gone, 'accepted, never written\n');
      const d1 = await waitForDiff(s, gone);
      await inProposal(s, d1.proposal, 'write');
      await c2.waitForNotification('ide/diffAccepted');
      await openDiff(c.client, fresh, 'the new proposal\n');
      const d2 = await waitForDiff(s, fresh);
      const window = await s.lua<number>('return vim.fn.win_getid()');
      assert.equal(await s.lua('return vim.api.nvim_get_current_buf()'), d2.proposal, 'the new diff has the window');
      await c2.close();
      const keptBuf = () =>
        s.lua<number>(
          "for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.api.nvim_buf_get_name(b):match('/gone%.txt$') and vim.bo[b].buftype == 'nofile' and vim.api.nvim_buf_get_lines(b, 0, -1, false)[1] == 'accepted, never written' then return b end end return 0",
        );
      await waitFor(async () => (await keptBuf()) > 0, 'the kept proposal', TIMEOUT);
      assert.equal(await s.lua('return vim.fn.win_getid()'), window, "the window stays the new diff's");
      assert.equal(await s.lua('return vim.api.nvim_get_current_buf()'), d2.proposal);
      assert.equal(await s.lua('return vim.api.nvim_get_mode().mode'), 'n');
      await waitFor(async () => /kept in its buffer.*, shown beside your windows without taking yours/.test(await s.messages()), 'the line saying so', TIMEOUT);
      assert.equal(fs.readFileSync(gone, 'utf8'), 'gone on disk\n');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('closeDiff from the CLI closes the tab and answers the edited proposal as JSON, without an outcome', async () => {
    const { s, c } = await startWithClient({ files: { 'k.txt': 'old\n' } });
    try {
      const filePath = path.join(s.workspace, 'k.txt');
      await openDiff(c.client, filePath, 'new\n');
      const d = await waitForDiff(s, filePath);
      await s.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, {'new, edited'})", d.proposal);
      const result = await c.client.callTool({ name: 'closeDiff', arguments: { filePath, suppressNotification: true } });
      const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
      assert.equal(decodeCloseDiffText(text), 'new, edited\n');
      assert.equal(await s.lua('return vim.api.nvim_buf_is_valid(...)', d.proposal), false);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(c.notifications.filter((n) => n.method !== 'ide/contextUpdate').length, 0);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('after the CLI writes an accepted file, an unmodified buffer shows it without a "changed on disk" prompt', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'before\n' } });
    try {
      const filePath = path.join(s.workspace, 'a.txt');
      await s.nvim.command('edit a.txt');
      const buf = (await s.nvim.call('bufnr', ['%'])) as number;
      await openDiff(c.client, filePath, 'after\n');
      const d = await waitForDiff(s, filePath);
      await inProposal(s, d.proposal, 'write');
      const accepted = await c.waitForNotification('ide/diffAccepted');
      fs.writeFileSync(filePath, accepted.content); // what the CLI does next
      await waitFor(async () => (await bufferLines(s, buf))[0] === 'after', 'the buffer reloaded', TIMEOUT);
      assert.equal(await s.lua('return vim.bo[...].modified', buf), false);
      const mode = (await s.nvim.mode) as { mode: string; blocking: boolean };
      assert.equal(mode.blocking, false, 'no prompt is waiting');
      assert.doesNotMatch(await s.messages(), /W11|changed since editing/);
      // Neovim's own check finds nothing new either.
      await s.nvim.command('checktime');
      assert.equal(((await s.nvim.mode) as { blocking: boolean }).blocking, false);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('a buffer with unsaved changes: the user is told when the diff opens, and the buffer is not overwritten after accept', async () => {
    const { s, c } = await startWithClient({ files: { 'u.txt': 'on disk\n' } });
    try {
      const filePath = path.join(s.workspace, 'u.txt');
      await s.nvim.command('edit u.txt');
      const buf = (await s.nvim.call('bufnr', ['%'])) as number;
      await s.nvim.input('ccmy unsaved work<Esc>');
      await waitFor(async () => (await s.lua('return vim.bo[...].modified', buf)) === true, 'buffer modified', TIMEOUT);
      await openDiff(c.client, filePath, 'from gemini\n');
      const d = await waitForDiff(s, filePath);
      await waitFor(async () => /u\.txt has unsaved changes/.test(await s.messages()), 'the unsaved-changes warning', TIMEOUT);
      await inProposal(s, d.proposal, 'write');
      const accepted = await c.waitForNotification('ide/diffAccepted');
      fs.writeFileSync(filePath, accepted.content);
      await waitFor(async () => /was not reloaded/.test(await s.messages()), 'the not-reloaded warning', TIMEOUT);
      assert.deepEqual(await bufferLines(s, buf), ['my unsaved work']);
      assert.equal(await s.lua('return vim.bo[...].modified', buf), true);
    } finally {
      await c.close();
      await s.close();
    }
  });
});
