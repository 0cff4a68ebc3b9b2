/** openDiff / closeDiff and the outcome notifications, over real HTTP with real MCP clients. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sleep, waitFor } from '@ide-companion/testkit';
import { connectClient, RecordingEditor, startCompanion, type ConnectedClient, type Harness } from './helpers.js';

describe('diffs', () => {
  let h: Harness;
  let view: RecordingEditor;
  before(async () => {
    view = new RecordingEditor();
    // The default graces: a session that drops its stream ends 2 s later; 300 ms without a stream was too tight on a loaded machine.
    h = await startCompanion({ editor: view });
  });
  after(() => h.cleanup());

  const file = (name: string) => path.join(h.workspace, name);
  const outcomes = (c: ConnectedClient) => c.notifications.filter((n) => n.method !== 'ide/contextUpdate');
  async function open(c: ConnectedClient, filePath: string, newContent: string): Promise<any> {
    return c.client.callTool({ name: 'openDiff', arguments: { filePath, newContent } });
  }
  async function shownFor(filePath: string) {
    return waitFor(() => view.shown.findLast((d) => d.filePath === filePath), `diff for ${filePath} shown`);
  }

  test('openDiff answers content: [] at once, for an existing or a new file', async () => {
    const c = await connectClient(h.companion);
    fs.writeFileSync(file('exists.txt'), 'old\n');
    assert.deepEqual(await open(c, file('exists.txt'), 'new\n'), { content: [] });
    assert.deepEqual(await open(c, file('brand-new.txt'), 'fresh\n'), { content: [] });
    assert.equal(fs.existsSync(file('brand-new.txt')), false);
    await c.close();
  });

  test("accept sends ide/diffAccepted with the user's edited text, to the opening session only", async () => {
    const a = await connectClient(h.companion);
    const b = await connectClient(h.companion);
    await open(a, file('accept.txt'), 'proposal\n');
    const diff = await shownFor(file('accept.txt'));
    assert.equal(h.companion.diffs.accept(diff.id, 'proposal\nplus my edit\r\n'), true);
    const n = await waitFor(() => outcomes(a)[0], 'outcome');
    assert.deepEqual(n, { method: 'ide/diffAccepted', params: { filePath: file('accept.txt'), content: 'proposal\nplus my edit\r\n' } });
    await sleep(100);
    assert.deepEqual(outcomes(b), [], 'another session hears nothing');
    assert.equal(h.companion.diffs.accept(diff.id), false, 'a settled diff cannot be settled again');
    await Promise.all([a.close(), b.close()]);
  });

  test('accepting without edits sends the proposal itself', async () => {
    const c = await connectClient(h.companion);
    await open(c, file('plain.txt'), 'as proposed');
    h.companion.diffs.accept((await shownFor(file('plain.txt'))).id);
    assert.equal((await waitFor(() => outcomes(c)[0], 'outcome')).params.content, 'as proposed');
    await c.close();
  });

  test('reject sends ide/diffRejected with the path exactly as the CLI sent it', async () => {
    const c = await connectClient(h.companion);
    const odd = path.join(h.workspace, 'sub', '..', 'odd path ü.txt');
    await open(c, odd, 'x');
    h.companion.diffs.reject((await shownFor(odd)).id);
    assert.deepEqual(await waitFor(() => outcomes(c)[0], 'outcome'), { method: 'ide/diffRejected', params: { filePath: odd } });
    await c.close();
  });

  test('closeDiff closes the view, answers JSON {"content"} with the user\'s edits, and sends no notification', async () => {
    const c = await connectClient(h.companion);
    await open(c, file('close.txt'), 'model text');
    const diff = await shownFor(file('close.txt'));
    view.edits.set(diff.id, 'model text, edited by the user');
    const r: any = await c.client.callTool({ name: 'closeDiff', arguments: { filePath: file('close.txt'), suppressNotification: true } });
    assert.equal(r.isError, undefined);
    assert.equal(r.content.length, 1);
    assert.deepEqual(JSON.parse(r.content[0].text), { content: 'model text, edited by the user' });
    // Found by id: other tests' sessions expire meanwhile (grace 300 ms) and close their own diffs.
    assert.deepEqual(
      view.closed.find((x) => x.diff.id === diff.id),
      { diff, reason: 'closedByCli', message: 'Gemini CLI closed the diff for close.txt' },
    );
    await sleep(100);
    assert.deepEqual(outcomes(c), []);
    assert.equal(h.companion.diffs.accept(diff.id), false, 'a late accept in the editor is a no-op');
    await c.close();
  });

  test('closeDiff without edits answers the proposal; closeDiff of no diff answers isError', async () => {
    const c = await connectClient(h.companion);
    await open(c, file('close2.txt'), 'unchanged');
    const r: any = await c.client.callTool({ name: 'closeDiff', arguments: { filePath: file('close2.txt') } });
    assert.deepEqual(JSON.parse(r.content[0].text), { content: 'unchanged' });
    const none: any = await c.client.callTool({ name: 'closeDiff', arguments: { filePath: file('close2.txt') } });
    assert.equal(none.isError, true);
    assert.match(none.content[0].text, /No diff is open/);
    await c.close();
  });

  test("a session cannot close another session's diff", async () => {
    const a = await connectClient(h.companion);
    const b = await connectClient(h.companion);
    await open(a, file('mine.txt'), 'a');
    const r: any = await b.client.callTool({ name: 'closeDiff', arguments: { filePath: file('mine.txt') } });
    assert.equal(r.isError, true);
    assert.ok(h.companion.diffs.forFile(file('mine.txt')), 'still open');
    h.companion.diffs.reject(h.companion.diffs.forFile(file('mine.txt'))!.id);
    await Promise.all([a.close(), b.close()]);
  });

  test('a second openDiff for the same file replaces the first: its view closes and its session hears a rejection', async () => {
    const a = await connectClient(h.companion);
    const b = await connectClient(h.companion);
    await open(a, file('same.txt'), 'from a');
    const first = await shownFor(file('same.txt'));
    await open(b, file('same.txt'), 'from b');
    const second = view.shown.at(-1)!;
    assert.notEqual(second.id, first.id);
    assert.deepEqual(view.closed.find((c) => c.diff.id === first.id)?.reason, 'replaced');
    assert.deepEqual(await waitFor(() => outcomes(a)[0], 'rejection'), { method: 'ide/diffRejected', params: { filePath: file('same.txt') } });
    h.companion.diffs.accept(second.id);
    assert.equal((await waitFor(() => outcomes(b)[0], 'accept')).params.content, 'from b');
    assert.equal(outcomes(a).length, 1);
    await Promise.all([a.close(), b.close()]);
  });

  test('diffs of different files are pending at once and settle independently', async () => {
    const c = await connectClient(h.companion);
    await Promise.all([open(c, file('one.txt'), '1'), open(c, file('two.txt'), '2')]);
    const one = await shownFor(file('one.txt'));
    const two = await shownFor(file('two.txt'));
    h.companion.diffs.reject(two.id);
    h.companion.diffs.accept(one.id);
    await waitFor(() => outcomes(c).length === 2, 'two outcomes');
    assert.deepEqual(
      outcomes(c)
        .map((n) => [n.method, n.params.filePath])
        .sort(),
      [
        ['ide/diffAccepted', file('one.txt')],
        ['ide/diffRejected', file('two.txt')],
      ],
    );
    await c.close();
  });

  test('when the editor cannot show a diff, openDiff answers isError with its reason', async () => {
    const c = await connectClient(h.companion);
    view.failWith = 'no window available';
    try {
      const r: any = await open(c, file('fail.txt'), 'x');
      assert.equal(r.isError, true);
      assert.match(r.content[0].text, /no window available/);
      assert.equal(h.companion.diffs.forFile(file('fail.txt')), undefined);
    } finally {
      view.failWith = undefined;
    }
    await c.close();
  });

  test('the diffs of a session that goes away (no DELETE, stream dropped) are closed', async () => {
    const c = await connectClient(h.companion);
    await open(c, file('orphan.txt'), 'x');
    const diff = await shownFor(file('orphan.txt'));
    // Like the real CLI exiting: the connection drops, no DELETE is sent.
    await c.transport.close();
    await waitFor(() => view.closed.find((x) => x.diff.id === diff.id), 'diff closed after the session expired', 5000);
    assert.equal(view.closed.find((x) => x.diff.id === diff.id)!.reason, 'sessionClosed');
    assert.equal(h.companion.diffs.forFile(file('orphan.txt')), undefined);
  });
});

test('without an editor the diff tools are not offered (the CLI then never opens diffs)', async () => {
  const h = await startCompanion({ editor: undefined });
  try {
    const c = await connectClient(h.companion);
    assert.deepEqual(
      (await c.client.listTools()).tools.map((t) => t.name),
      ['getActiveFile', 'getWorkspaceFolders'],
    );
    await c.close();
  } finally {
    await h.cleanup();
  }
});

test('stop closes every open diff view', async () => {
  const view = new RecordingEditor();
  const h = await startCompanion({ editor: view });
  const c = await connectClient(h.companion);
  await c.client.callTool({ name: 'openDiff', arguments: { filePath: path.join(h.workspace, 'x'), newContent: 'x' } });
  await h.cleanup();
  assert.equal(view.closed.at(-1)?.reason, 'companionStopped');
});
