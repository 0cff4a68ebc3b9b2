/**
 * After an accept the agent writes the file; the companion watches for that
 * write, once for every end, and asks the editor to `reload` the user's
 * buffers of it, with the words to show for a buffer it must not reload
 * (the ends used to poll or watch each their own: issue 28).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { sleep, waitFor } from '@ide-companion/testkit';
import { connectClient, startCompanion } from './helpers.js';
import { keptDirectory } from '../src/keptProposals.js';

/** The texts this process keeps for `file` in files, for a companion that would be killed (keptProposals.ts AcceptedCopy). */
function acceptedCopies(file: string): string[] {
  const mine = new RegExp(`^accepted-${process.pid}-[0-9a-f]{8}\\.json$`);
  return fs
    .readdirSync(keptDirectory())
    .filter((name) => mine.test(name))
    .map((name) => JSON.parse(fs.readFileSync(path.join(keptDirectory(), name), 'utf8')) as { filePath: string; content: string })
    .filter((copy) => copy.filePath === file)
    .map((copy) => copy.content);
}

test('the agent writes the accepted text: the editor is asked once to reload, with the words for unsaved changes; the kept copy goes', async (t) => {
  const h = await startCompanion();
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'on disk\n');
  const cli = await connectClient(h.companion);
  t.after(() => cli.close());
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'from the model\n' } });
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  h.companion.diffs.accept(shown.id, 'accepted ✓\n');
  await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
  assert.deepEqual(h.view.reloads, [], 'nothing written yet');
  assert.deepEqual(acceptedCopies(file), ['accepted ✓\n'], 'kept in a file until written');
  fs.writeFileSync(file, 'accepted ✓\n');
  await waitFor(() => h.view.reloads[0], 'the reload asked');
  assert.deepEqual(h.view.reloads, [
    {
      path: file,
      unsavedWarning: 'a.txt was written by Gemini CLI but was not reloaded: it has unsaved changes (reloading from disk would drop them)',
    },
  ]);
  // The watch ended with the accepted text on disk: the user's own later saves ask nothing.
  fs.writeFileSync(file, 'the user saved\n');
  await sleep(200);
  assert.equal(h.view.reloads.length, 1);
  assert.deepEqual(acceptedCopies(file), [], 'the copy went once the file held the text');
});

test('a write seen half done (truncated, then filled) is reloaded again once whole; only the whole one ends the kept copy', async (t) => {
  const h = await startCompanion();
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'half.txt');
  fs.writeFileSync(file, 'on disk\n');
  const cli = await connectClient(h.companion);
  t.after(() => cli.close());
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'the whole text\n' } });
  h.companion.diffs.accept((await waitFor(() => h.view.shown[0], 'the diff shown')).id);
  await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
  fs.writeFileSync(file, '');
  await waitFor(() => h.view.reloads[0], 'the truncated file reloaded');
  assert.deepEqual(acceptedCopies(file), ['the whole text\n'], 'a half write does not end the copy');
  fs.writeFileSync(file, 'the whole text\n');
  await waitFor(() => h.view.reloads[1], 'the whole text reloaded');
  await waitFor(() => acceptedCopies(file).length === 0, 'the copy gone once the file holds the text');
});

test("closeDiff carries the companion's words for each reason, with the end's keys: every end shows the same sentence", async (t) => {
  const h = await startCompanion({ ideInfo: { name: 'emacs', displayName: 'Emacs' } });
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'w.txt');
  const cli = await connectClient(h.companion);
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'one\n' } });
  await waitFor(() => h.view.shown[0], 'the first diff');
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'two\n' } });
  await waitFor(() => h.view.closed[0], 'the first replaced');
  assert.equal(h.view.closed[0]!.message, 'a newer proposal for w.txt replaced the diff');
  await cli.client.callTool({ name: 'closeDiff', arguments: { filePath: file } });
  assert.equal(h.view.closed[1]!.reason, 'closedByCli');
  assert.equal(h.view.closed[1]!.message, 'Gemini CLI closed the diff for w.txt');
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'three\n' } });
  await cli.close();
  const gone = await waitFor(() => h.view.closed.find((c) => c.reason === 'sessionClosed'), 'the session gone', 10_000);
  assert.equal(gone.message, 'the Gemini CLI session that proposed w.txt went away; the proposal is kept in its buffer (C-x C-w saves it)');
});

test('showDiff carries the words the end says as it shows the proposal, with its keys', async (t) => {
  const h = await startCompanion({ ideInfo: { name: 'vim', displayName: 'Vim' } });
  t.after(() => h.cleanup());
  const cli = await connectClient(h.companion);
  t.after(() => cli.close());
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: path.join(h.workspace, 's.txt'), newContent: 'x\n' } });
  await waitFor(() => h.view.shown[0], 'the diff shown');
  assert.deepEqual(h.view.shownWords[0], {
    proposed: 'Gemini CLI proposes changes to s.txt: :w accepts, :q! or :GeminiReject rejects',
    unsaved: 's.txt has unsaved changes: the diff is against the file on disk; your changes stay in the buffer',
  });
});

test('a second accept right after the first file was written (its watch not yet settled) still reloads the first', async (t) => {
  const h = await startCompanion();
  t.after(() => h.cleanup());
  const [one, two] = [path.join(h.workspace, 'one.txt'), path.join(h.workspace, 'two.txt')];
  fs.writeFileSync(one, 'old\n');
  fs.writeFileSync(two, 'old\n');
  const cli = await connectClient(h.companion);
  t.after(() => cli.close());
  for (const file of [one, two]) {
    await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'new\n' } });
    const shown = await waitFor(() => h.view.shown.find((d) => d.filePath === file), 'the diff shown');
    h.companion.diffs.accept(shown.id);
    fs.writeFileSync(file, 'new\n'); // at once, as the CLI does: the next accept comes before the watch settles
  }
  await waitFor(() => h.view.reloads.find((r) => r.path === one), 'one.txt reloaded');
  await waitFor(() => h.view.reloads.find((r) => r.path === two), 'two.txt reloaded');
  assert.ok(h.view.reloads.find((r) => r.path === one));
  await waitFor(() => acceptedCopies(one).length + acceptedCopies(two).length === 0, 'both copies gone');
});

// fileHolds read the file with readFileSync after a stat: a FIFO put where an empty text was accepted (its size 0
// matches) blocked the companion's whole event loop in open() until some writer came. It reads a regular file only
// now, opened without blocking, as readOriginal does.
test('a FIFO put where an empty text was accepted never blocks the companion', { skip: process.platform === 'win32' }, async (t) => {
  const h = await startCompanion();
  t.after(() => h.cleanup());
  const file = path.join(h.workspace, 'empty.txt');
  fs.writeFileSync(file, 'on disk\n');
  const cli = await connectClient(h.companion);
  t.after(() => cli.close());
  await cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: '' } });
  h.companion.diffs.accept((await waitFor(() => h.view.shown[0], 'the diff shown')).id);
  await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
  fs.rmSync(file);
  execFileSync('mkfifo', [file]);
  // Whoever opens the FIFO to write, 3 s from now, ends a read blocked on it (so the old code ends too).
  const writer = spawn('sh', ['-c', `sleep 3; : > "$1"`, 'sh', file], { stdio: 'ignore' });
  t.after(() => writer.kill());
  let last = Date.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = Date.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 20);
  await sleep(1_500);
  clearInterval(tick);
  assert.ok(longest < 1_000, `the event loop stalled ${longest} ms`);
});
