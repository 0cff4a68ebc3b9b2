/** The private folder where proposals an end cannot keep in a buffer are kept (serve, VS Code's extension host). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, waitFor } from '@ide-companion/testkit';
import { draftsLeftBehind, keepProposal, keptDirectory, ProposalDraft, watchDraftsHandedOver } from '../src/keptProposals.js';

const tmp = makeTempDir();
process.env['TMPDIR'] = tmp.path;
process.on('exit', () => tmp.cleanup());

/** The PID of a process that has exited (what a killed companion's drafts name). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

const text = 'the user’s edits ✓\r\nno final newline';

test('the folder is private (0700) and a kept file is written 0600, byte for byte, never over another', () => {
  const dir = keptDirectory();
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  const a = keepProposal('/w/a.txt', text);
  const b = keepProposal('/w/a.txt', 'second');
  assert.notEqual(a, b);
  assert.equal(fs.readFileSync(a, 'utf8'), text);
  assert.equal(fs.statSync(a).mode & 0o777, 0o600);
  assert.match(path.basename(a), /proposal-a\.txt$/);
  assert.equal(keepProposal('/w/$(rm -rf x) -e.txt', 'x').includes('$('), false, 'a name no shell reads');
});

test("a draft lives until the user decides; this process's drafts are never reported", () => {
  const draft = new ProposalDraft('9f0c2a3b-1111-2222-3333-444455556666', '/w/b.txt');
  assert.equal(draft.save('first'), true);
  assert.equal(draft.save(text), true, 'saved again over itself');
  const names = () => fs.readdirSync(keptDirectory()).filter((n) => n.includes('draft-'));
  assert.deepEqual(names(), [`draft-${process.pid}-9f0c2a3b-proposal-b.txt`], 'one draft, no partial left');
  assert.equal(fs.readFileSync(path.join(keptDirectory(), names()[0]!), 'utf8'), text);
  assert.deepEqual(draftsLeftBehind(), [], 'its process lives');
  draft.drop();
  assert.deepEqual(names(), []);
});

test("a dead process's drafts are reported once, as kept files, byte for byte; its half-written ones go; a live one's stay", () => {
  const dir = keptDirectory();
  const dead = deadPid();
  fs.writeFileSync(path.join(dir, `draft-${dead}-aaaaaaaa-proposal-c.txt`), text, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, `draft-${dead}-bbbbbbbb-proposal-c.txt`), 'another proposal of c.txt', { mode: 0o600 });
  fs.writeFileSync(path.join(dir, `.draft-${dead}-cccccccc-proposal-c.txt.partial`), 'half', { mode: 0o600 });
  const live = new ProposalDraft('dddddddd-0000-0000-0000-000000000000', '/w/d.txt');
  live.save('still open');

  const found = draftsLeftBehind();
  assert.equal(found.length, 2);
  assert.deepEqual(found.map((f) => fs.readFileSync(f, 'utf8')).sort(), ['another proposal of c.txt', text].sort());
  for (const f of found) assert.doesNotMatch(path.basename(f), /^draft-/);
  assert.equal(fs.existsSync(path.join(dir, `.draft-${dead}-cccccccc-proposal-c.txt.partial`)), false, 'a half-written draft is no one’s work');
  assert.deepEqual(draftsLeftBehind(), [], 'reported once');
  assert.ok(fs.existsSync(path.join(dir, `draft-${process.pid}-dddddddd-proposal-d.txt`)), 'the live draft stays');
  live.drop();
});

test("a handed-over draft is the next companion's at once, this process still running: with the last text, byte for byte", () => {
  const dir = keptDirectory();
  const draft = new ProposalDraft('eeeeeeee-0000-0000-0000-000000000000', '/w/e.txt');
  draft.save('typed so far');
  assert.equal(draft.handOver(text), true);
  draft.drop();
  assert.deepEqual(
    fs.readdirSync(dir).filter((n) => n.includes('-eeeeeeee-')),
    ['draft-left-eeeeeeee-proposal-e.txt'],
    'no longer named by this PID, and drop() leaves it',
  );
  const found = draftsLeftBehind();
  assert.equal(found.length, 1);
  assert.equal(fs.readFileSync(found[0]!, 'utf8'), text);
  assert.deepEqual(draftsLeftBehind(), [], 'claimed once');
});

test('a draft that cannot take the last text hands over the one saved before; a draft never saved hands over nothing', () => {
  const dir = keptDirectory();
  const before = new ProposalDraft('ffffffff-0000-0000-0000-000000000000', '/w/f.txt');
  assert.equal(before.save('saved before'), true);
  const never = new ProposalDraft('abababab-0000-0000-0000-000000000000', '/w/g.txt');
  // The saves fail: a folder stands where each one's partial file goes (a mode would not stop root).
  const partials = ['ffffffff-proposal-f.txt', 'abababab-proposal-g.txt'].map((n) => path.join(dir, `.draft-${process.pid}-${n}.partial`));
  for (const p of partials) fs.mkdirSync(p);
  try {
    assert.equal(before.handOver('the last text'), false, 'the last text is not in it');
    assert.equal(never.handOver('never saved'), false);
  } finally {
    for (const p of partials) fs.rmdirSync(p);
  }
  assert.deepEqual(
    draftsLeftBehind().map((f) => fs.readFileSync(f, 'utf8')),
    ['saved before'],
  );
});

test('a running companion hears of a handover (inotify), and not of drafts being saved', async () => {
  let heard = 0;
  const watcher = watchDraftsHandedOver(() => heard++);
  assert.ok(watcher, 'the folder can be watched');
  try {
    const draft = new ProposalDraft('12121212-0000-0000-0000-000000000000', '/w/h.txt');
    draft.save('one');
    draft.save('two');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(heard, 0, 'saves are no handover');
    draft.handOver('three');
    await waitFor(() => heard > 0, 'the handover heard', 5_000);
    assert.deepEqual(
      draftsLeftBehind().map((f) => fs.readFileSync(f, 'utf8')),
      ['three'],
    );
  } finally {
    watcher.close();
  }
});
