/**
 * After accept, before the CLI wrote (issue 21): the CLI writes an accepted
 * file itself, so a CLI that dies in between used to take the user's accepted
 * text with it. Its session's end now brings the text back to the editor,
 * kept (shown, then closed as `sessionClosed`, which every end answers by
 * keeping the proposal and saying so), unless the file already holds it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { sleep, waitFor } from '@ide-companion/testkit';
import { connectClient, startCompanion } from './helpers.js';

// Short graces: a session whose stream closed ends 200 ms later.
const options = { sessionGraceMs: 500, streamGraceMs: 200 };

test("a CLI gone after the user's accept and before its write: the accepted text comes back to the editor, kept, the file untouched", async (t) => {
  const h = await startCompanion(options);
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'on disk\n');
  const cli = await connectClient(h.companion);
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'from the model\n' } });
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  const accepted = 'the user’s text\r\nno final newline';
  assert.equal(h.companion.diffs.accept(shown.id, accepted), true);
  await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
  // The CLI dies before it writes.
  await cli.close();
  const kept = await waitFor(() => h.view.shown[1], 'the accepted text shown again', 5_000);
  assert.equal(kept.filePath, file);
  assert.equal(kept.newContent, accepted);
  assert.equal(kept.originalContent, 'on disk\n');
  assert.notEqual(kept.id, shown.id);
  await waitFor(() => h.view.closed.find((c) => c.diff.id === kept.id), 'it is kept as the session ends');
  assert.equal(h.view.closed.find((c) => c.diff.id === kept.id)!.reason, 'sessionClosed');
  assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n', 'nothing writes the file but the user');
  assert.equal(h.companion.diffs.list().length, 0, 'nothing is pending');
});

test('a CLI that wrote the accepted text before it went away: nothing comes back', async (t) => {
  const h = await startCompanion(options);
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'b.txt');
  const cli = await connectClient(h.companion);
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'new file\n' } });
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  h.companion.diffs.accept(shown.id, 'edited\n');
  const told = await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
  fs.writeFileSync(file, told.params.content as string);
  await cli.close();
  await waitFor(() => h.companion.sessionList.length === 0, 'the session ended');
  await sleep(300);
  assert.equal(h.view.shown.length, 1);
  // A rejected proposal is nothing to keep either.
  const second = await connectClient(h.companion);
  await second.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'rejected\n' } });
  h.companion.diffs.reject((await waitFor(() => h.view.shown[1], 'the second diff')).id);
  await second.close();
  await waitFor(() => h.companion.sessionList.length === 0, 'the session ended');
  await sleep(300);
  assert.equal(h.view.shown.length, 2);
});

test('accept in flight: the user accepts while the CLI is already going (its stream closed, its session not yet ended): the text is kept when the session ends', async (t) => {
  const h = await startCompanion(options);
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'c.txt');
  fs.writeFileSync(file, 'on disk\n');
  const cli = await connectClient(h.companion);
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'from the model\n' } });
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  // The CLI dies: its stream closes (no DELETE); its session lives on for the stream grace.
  await cli.close();
  assert.equal(h.companion.diffs.accept(shown.id, 'accepted as the CLI died\n'), true, 'the accept is taken: the diff was still pending');
  const kept = await waitFor(() => h.view.shown[1], 'the accepted text shown again', 5_000);
  assert.equal(kept.newContent, 'accepted as the CLI died\n');
  await waitFor(() => h.view.closed.find((c) => c.diff.id === kept.id && c.reason === 'sessionClosed'), 'kept as the session ends');
  assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n');
});

/*
 * Issue 30: accept, the CLI writes, the user reverts the file (git checkout),
 * the CLI quits: the editor said the CLI had gone away before writing and
 * showed the text again as kept. A file once seen holding the accepted text
 * was written; what happens to it afterwards is the user's.
 */
test('a CLI that wrote the accepted text, then the file reverted by the user before the CLI quits: nothing comes back', async (t) => {
  const h = await startCompanion(options);
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'reverted.txt');
  fs.writeFileSync(file, 'committed\n');
  const cli = await connectClient(h.companion);
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'from the model\n' } });
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  h.companion.diffs.accept(shown.id);
  const told = await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
  fs.writeFileSync(file, told.params.content as string);
  await sleep(300);
  // The user's `git checkout reverted.txt`.
  fs.writeFileSync(file, 'committed\n');
  await cli.close();
  await waitFor(() => h.companion.sessionList.length === 0, 'the session ended');
  await sleep(300);
  assert.equal(h.view.shown.length, 1, 'no kept proposal for a change that was written');
  assert.equal(fs.readFileSync(file, 'utf8'), 'committed\n');
});

test('a client that ends its session in order after an accept (DELETE, as `ide-companion diff` without --write does): it took the text, nothing is kept', async (t) => {
  const h = await startCompanion(options);
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'd.txt');
  fs.writeFileSync(file, 'on disk\n');
  const cli = await connectClient(h.companion);
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'NEW\n' } });
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  h.companion.diffs.accept(shown.id);
  await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the client told');
  await cli.transport.terminateSession();
  await cli.close();
  await waitFor(() => h.companion.sessionList.length === 0, 'the session ended');
  await sleep(300);
  assert.equal(h.view.shown.length, 1, 'the accepted text is not shown again');
  assert.equal(
    h.view.closed.some((c) => c.reason === 'sessionClosed'),
    false,
    'no view closed as kept',
  );
  assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n');
});
