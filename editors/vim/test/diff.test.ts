/** Diffs shown in a real Vim: accepted with :w (edits kept, bytes exact), rejected by closing, closed by the CLI, several at once, the user's buffer reloaded. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { acceptedCopies, waitFor } from '@ide-companion/testkit';
import { bufferLines, gotoBuffer, skipVim, startWithClient, TIMEOUT, type RecordingClient, type VimSession, waitForDiff } from './harness.js';

function openDiff(client: { callTool: (req: any) => Promise<any> }, filePath: string, newContent: string) {
  return client.callTool({ name: 'openDiff', arguments: { filePath, newContent } });
}

/** Types an Ex command in the diff's proposal window, as a user would. */
async function inProposal(s: VimSession, proposal: number, command: string): Promise<void> {
  await gotoBuffer(s, proposal);
  s.keys('Escape');
  s.type(`:${command}`);
  s.keys('Enter');
}

async function noDiffs(s: VimSession): Promise<void> {
  await waitFor(async () => (await s.expr<unknown[]>('ide_companion#diff#list()')).length === 0, 'no diff open', TIMEOUT);
}

function outcomes(c: RecordingClient, method: string, filePath: string) {
  return c.notifications.filter((n) => n.method === method && n.params.filePath === filePath);
}

describe('Vim diffs', { skip: skipVim, timeout: 240_000 }, () => {
  // An unedited proposal accepted comes back byte for byte (line endings, final newline, empty): the conformance suite (conformance.test.ts).

  test("the user's edits in the proposal are what :w accepts, rebuilt in Vim in the proposal's line endings and final newline", async () => {
    const { s, c } = await startWithClient({ files: { 'crlf.txt': 'one\r\ntwo\r\n' } });
    try {
      const cases: Array<[string, string, string]> = [
        // [proposal, keys typed in the proposal (Normal mode), accepted text]
        ['one\r\nTWO\r\nthree', 'ggiONE ✓ ', 'ONE ✓ one\r\nTWO\r\nthree'],
        ['a\nb\n', 'Goc', 'a\nb\nc\n'],
        ['no final newline', 'A!', 'no final newline!'],
        ['x\n', 'ddu', 'x\n'],
        ['gone\n', 'dd', ''],
      ];
      const filePath = path.join(s.workspace, 'crlf.txt');
      for (const [i, [proposal, keys, expected]] of cases.entries()) {
        await openDiff(c.client, filePath, proposal);
        const d = await waitForDiff(s, filePath);
        if (i === 0) assert.deepEqual(await bufferLines(s, d.original), ['one', 'two'], 'the left side is the file on disk');
        await gotoBuffer(s, d.proposal);
        s.type(keys);
        s.keys('Escape');
        await waitFor(async () => (await s.expr<number>(`getbufvar(${d.proposal}, '&modified')`)) === 1 || keys === 'ddu', 'the edit', TIMEOUT);
        await inProposal(s, d.proposal, 'write');
        await waitFor(() => outcomes(c, 'ide/diffAccepted', filePath).length === i + 1, `accept ${i}`, TIMEOUT);
        assert.equal(outcomes(c, 'ide/diffAccepted', filePath)[i]!.params.content, expected, `case ${i}`);
        await noDiffs(s);
      }
      // The file is untouched: writing it is the CLI's job.
      assert.equal(fs.readFileSync(filePath, 'utf8'), 'one\r\ntwo\r\n');
      assert.equal(await s.expr('tabpagenr("$")'), 1, 'no diff tab left behind');
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
        await gotoBuffer(s, d.proposal);
        s.type('ccedited');
        s.keys('Escape');
        await inProposal(s, d.proposal, command);
        await waitFor(() => outcomes(c, 'ide/diffRejected', filePath).length === i + 1, `rejection by ${command}`, TIMEOUT);
        await noDiffs(s);
      }
      assert.equal(c.notifications.filter((n) => n.method === 'ide/diffAccepted').length, 0);
      assert.equal(await s.expr('tabpagenr("$")'), 1, 'no diff tab left behind');
      assert.equal(fs.readFileSync(filePath, 'utf8'), 'keep\n');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('closeDiff from the CLI closes the tab with no outcome; diffs of two sessions do not collide', async () => {
    const { s, c, discovery } = await startWithClient({ files: { 'x.txt': 'x\n', 'y.txt': 'y\n' } });
    const { connectFromDiscovery } = await import('./harness.js');
    const other = await connectFromDiscovery(discovery);
    try {
      const x = path.join(s.workspace, 'x.txt');
      const y = path.join(s.workspace, 'y.txt');
      await openDiff(c.client, x, 'x from one\n');
      await openDiff(other.client, y, 'y from two\n');
      const dx = await waitForDiff(s, x);
      const dy = await waitForDiff(s, y);
      assert.notEqual(dx.id, dy.id);
      const closed = await c.client.callTool({ name: 'closeDiff', arguments: { filePath: x } });
      assert.notEqual(closed.isError, true, JSON.stringify(closed));
      await waitFor(async () => (await s.expr<Array<{ path: string }>>('ide_companion#diff#list()')).every((d) => d.path !== x), 'x closed', TIMEOUT);
      assert.equal(await s.expr(`bufexists(${dx.proposal})`), 0);
      // The other session's diff is still there and still works.
      await inProposal(s, dy.proposal, 'write');
      const accepted = await other.waitForNotification('ide/diffAccepted', (p) => p.filePath === y);
      assert.equal(accepted.content, 'y from two\n');
      assert.equal(outcomes(c, 'ide/diffAccepted', x).length + outcomes(c, 'ide/diffRejected', x).length, 0, 'closeDiff sends no outcome');
    } finally {
      await other.close();
      await c.close();
      await s.close();
    }
  });

  test("after the CLI writes the accepted file the user's buffer reloads without a prompt; a buffer with unsaved changes is kept and the user told", async () => {
    // 'hidden': clean.txt stays loaded, in no window, when dirty.txt takes its place.
    const { s, c } = await startWithClient({ files: { 'clean.txt': 'old\n', 'dirty.txt': 'old\n' }, open: ['clean.txt', 'dirty.txt'], vimrc: ['set hidden'] });
    try {
      const clean = path.join(s.workspace, 'clean.txt');
      const dirty = path.join(s.workspace, 'dirty.txt');
      // dirty.txt has an unsaved edit.
      s.keys('Escape');
      s.type(':buffer dirty.txt');
      s.keys('Enter');
      s.type('ccmine');
      s.keys('Escape');
      await waitFor(async () => (await s.expr<number>("getbufvar(bufnr('dirty.txt'), '&modified')")) === 1, 'the unsaved edit', TIMEOUT);
      for (const file of [clean, dirty]) {
        await openDiff(c.client, file, 'new\n');
        const d = await waitForDiff(s, file);
        await inProposal(s, d.proposal, 'write');
        await c.waitForNotification('ide/diffAccepted', (p) => p.filePath === file);
        // What Gemini CLI does after an accept.
        fs.writeFileSync(file, 'new\n');
      }
      assert.equal(await s.expr("bufloaded('clean.txt') && empty(win_findbuf(bufnr('clean.txt')))"), 1, 'clean.txt is a hidden buffer');
      await waitFor(async () => (await s.expr<string[]>("getbufline(bufnr('clean.txt'), 1, '$')"))[0] === 'new', 'clean.txt reloaded', TIMEOUT);
      assert.equal(await s.expr("getbufvar(bufnr('clean.txt'), '&modified')"), 0);
      assert.equal(await s.expr('mode()'), 'n', 'no prompt is waiting');
      await waitFor(
        async () => /dirty\.txt was written by Gemini CLI but was not reloaded: it has unsaved changes/.test(await s.messages()),
        'the warning',
        TIMEOUT,
      );
      assert.deepEqual(await s.expr("getbufline(bufnr('dirty.txt'), 1, '$')"), ['mine'], 'the unsaved text is kept');
      assert.equal(await s.expr("getbufvar(bufnr('dirty.txt'), '&modified')"), 1);
      // Both files hold their accepted text: nothing is left to bring back if the host dies.
      await waitFor(() => acceptedCopies(s.tmp).length === 0, "the host's copies gone", TIMEOUT);
    } finally {
      await c.close();
      await s.close();
    }
  });

  // Issue 28: the accept shown again used to open where the user was, taking the window of the diff they had just been given.
  test('an accept whose CLI went before writing it comes back beside the user: the window of the diff just opened stays theirs, and the echo area says so', async () => {
    const { s, c, discovery } = await startWithClient({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' } });
    const { connectFromDiscovery } = await import('./harness.js');
    const other = await connectFromDiscovery(discovery);
    try {
      const a = path.join(s.workspace, 'a.txt');
      const b = path.join(s.workspace, 'b.txt');
      await openDiff(other.client, a, 'a from the model\n');
      const da = await waitForDiff(s, a);
      await inProposal(s, da.proposal, 'write');
      await other.waitForNotification('ide/diffAccepted', (p) => p.filePath === a);
      await noDiffs(s);
      // Another session's proposal opens, and the user is in it; the first CLI then goes without writing a.txt.
      await openDiff(c.client, b, 'b from the model\n');
      const db = await waitForDiff(s, b);
      await waitFor(async () => (await s.expr<number>('bufnr("")')) === db.proposal, 'the cursor in the new proposal', TIMEOUT);
      const win = await s.expr<number>('win_getid()');
      await other.close();
      const kept = await waitFor(
        async () =>
          (
            await s.expr<number[]>(
              `filter(range(1, bufnr('$')), {_, b -> bufexists(b) && getbufvar(b, '&buftype') ==# 'nofile' && bufname(b) =~# '^ide-companion://\\d\\+/proposed/a\\.txt$'})`,
            )
          )[0],
        'the accepted text shown again',
        TIMEOUT,
      );
      assert.deepEqual(await bufferLines(s, kept), ['a from the model'], 'the text accepted');
      assert.equal(await s.expr('win_getid()'), win, "the user's window is still the new proposal's");
      assert.equal(await s.expr('bufnr("")'), db.proposal);
      assert.equal(await s.expr('mode()'), 'n');
      await waitFor(
        async () =>
          /proposed a\.txt went away; the proposal is kept in its buffer \(:w FILE saves it\), shown beside your windows without taking yours/.test(
            await s.messages(),
          ),
        'the message',
        TIMEOUT,
      );
      // The diff the user is in still works.
      await inProposal(s, db.proposal, 'write');
      assert.equal((await c.waitForNotification('ide/diffAccepted', (p) => p.filePath === b)).content, 'b from the model\n');
    } finally {
      await other.close();
      await c.close();
      await s.close();
    }
  });

  test('a diff opened while the user types in Insert mode or in a terminal leaves that mode, and the new-file side is empty', async () => {
    const { s, c } = await startWithClient();
    try {
      s.type('itext being typed');
      const filePath = path.join(s.workspace, 'new.txt');
      await openDiff(c.client, filePath, 'brand new\n');
      const d = await waitForDiff(s, filePath);
      assert.deepEqual(await bufferLines(s, d.original), ['']);
      assert.deepEqual(await bufferLines(s, d.proposal), ['brand new']);
      await waitFor(async () => (await s.expr<string>('mode()')) === 'n', 'Normal mode', TIMEOUT);
      await inProposal(s, d.proposal, 'GeminiAccept');
      const accepted = await c.waitForNotification('ide/diffAccepted', (p) => p.filePath === filePath);
      assert.equal(accepted.content, 'brand new\n');
    } finally {
      await c.close();
      await s.close();
    }
  });
});
