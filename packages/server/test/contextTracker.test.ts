/** The context tracker's rules, on real files. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { makeTempDir } from '@ide-companion/testkit';
import { ManualScheduler } from './manualScheduler.js';
import { ContextTracker, EXISTENCE_RECHECK_MS, truncateSelectedText } from '../src/index.js';

let dir: string;
let cleanup: () => void;
const files: string[] = [];
before(() => {
  ({ path: dir, cleanup } = makeTempDir());
  for (let i = 0; i < 14; i++) {
    const f = path.join(dir, `f${i}.txt`);
    fs.writeFileSync(f, String(i));
    files.push(f);
  }
});
after(() => cleanup());

const open = (t: ContextTracker) => t.snapshot().workspaceState!.openFiles!;

test('files are ordered by focus time, newest first, and only the newest is active', () => {
  const t = new ContextTracker();
  t.focus(files[0]!);
  t.focus(files[1]!, { cursor: { line: 3, character: 4 }, selectedText: 'sel' });
  t.focus(files[2]!);
  t.focus(files[1]!, { cursor: { line: 5, character: 6 } });
  const list = open(t);
  assert.deepEqual(
    list.map((f) => f.path),
    [files[1], files[2], files[0]],
  );
  // Focus moved away and back: the old selection is gone, the new cursor stands.
  assert.deepEqual(list[0], { path: files[1], timestamp: list[0]!.timestamp, isActive: true, cursor: { line: 5, character: 6 } });
  for (const f of list.slice(1)) assert.deepEqual(Object.keys(f).sort(), ['path', 'timestamp']);
  assert.ok(list[0]!.timestamp > list[1]!.timestamp && list[1]!.timestamp > list[2]!.timestamp);
  t.dispose();
});

// Regression: an open and a focus in the same millisecond (Vim's start-up sync) tied,
// and the focused file was sorted second and not active.
test('a focus in the same millisecond as an open still ranks first and is active', () => {
  const t = new ContextTracker({ now: () => 1_000 });
  try {
    t.open(files[0]!);
    t.focus(files[1]!);
    const list = open(t);
    assert.equal(list[0]!.path, files[1]);
    assert.equal(list[0]!.isActive, true);
    assert.ok(list[0]!.timestamp > list[1]!.timestamp);
  } finally {
    t.dispose();
  }
});

test('timestamps are real wall-clock milliseconds', () => {
  const t = new ContextTracker();
  const before = Date.now();
  t.focus(files[0]!);
  const ts = open(t)[0]!.timestamp;
  assert.ok(ts >= before && ts <= Date.now() + 1);
  t.dispose();
});

test('at most 10 files are sent; closing one brings the next back', () => {
  const t = new ContextTracker();
  for (const f of files) t.focus(f);
  assert.equal(open(t).length, 10);
  assert.equal(open(t)[0]!.path, files[13]);
  t.close(files[13]!);
  assert.equal(open(t).length, 10);
  assert.equal(open(t)[0]!.path, files[12]);
  assert.equal(open(t)[0]!.isActive, undefined, 'a closed active file leaves no active file');
  assert.ok(open(t).some((f) => f.path === files[3]));
  t.dispose();
});

test('files that do not exist on disk are left out (unsaved buffers, deleted files)', () => {
  let clock = 1_000_000;
  const t = new ContextTracker({ now: () => clock });
  const ghost = path.join(dir, 'not-saved-yet.txt');
  t.focus(files[0]!);
  t.focus(ghost, { cursor: { line: 1, character: 1 } });
  assert.deepEqual(
    open(t).map((f) => f.path),
    [files[0]],
  );
  fs.writeFileSync(ghost, '');
  t.saved(ghost);
  assert.deepEqual(
    open(t).map((f) => f.path),
    [ghost, files[0]],
  );
  assert.equal(open(t)[0]!.isActive, true);
  fs.rmSync(ghost);
  // Deleted behind the editor's back (no event): found out within EXISTENCE_RECHECK_MS.
  clock += EXISTENCE_RECHECK_MS;
  assert.deepEqual(
    open(t).map((f) => f.path),
    [files[0]],
  );
  // An event naming the file checks it again at once.
  fs.writeFileSync(ghost, '');
  t.focus(ghost);
  assert.equal(open(t)[0]!.path, ghost);
  fs.rmSync(ghost);
  t.setCursor(ghost, { line: 2, character: 1 });
  assert.equal(open(t)[0]!.path, ghost, 'a cursor move trusts the last check for EXISTENCE_RECHECK_MS');
  clock += EXISTENCE_RECHECK_MS - 1;
  assert.equal(open(t)[0]!.path, ghost);
  clock += 1;
  assert.deepEqual(
    open(t).map((f) => f.path),
    [files[0]],
  );
  t.focus(dir);
  assert.ok(!open(t).some((f) => f.path === dir), 'a directory is not a file');
  t.dispose();
});

test('selectedText is cut at 16 KiB with the CLI marker, never inside a surrogate pair', () => {
  const long = 'a'.repeat(16384 - 16) + '🚀'.repeat(100);
  const cut = truncateSelectedText(long);
  assert.ok(cut.length <= 16384);
  assert.ok(cut.endsWith('... [TRUNCATED]'));
  assert.doesNotMatch(cut, /[\ud800-\udbff](?![\udc00-\udfff])/);
  assert.equal(truncateSelectedText('short'), 'short');
  const t = new ContextTracker();
  t.focus(files[0]!, { selectedText: 'x'.repeat(20000) });
  assert.equal(open(t)[0]!.selectedText!.length, 16384);
  t.dispose();
});

test('cursor and selection apply to the active file; a cursor in another file focuses it', () => {
  const t = new ContextTracker();
  t.focus(files[0]!);
  t.setCursor(files[0]!, { line: 2, character: 1 }, 'abc');
  assert.deepEqual(open(t)[0]!.cursor, { line: 2, character: 1 });
  assert.equal(open(t)[0]!.selectedText, 'abc');
  t.setSelection(files[0]!, undefined);
  assert.equal(open(t)[0]!.selectedText, undefined);
  t.setCursor(files[1]!, { line: 9, character: 9 });
  assert.equal(open(t)[0]!.path, files[1]);
  assert.deepEqual(open(t)[0]!.cursor, { line: 9, character: 9 });
  assert.throws(() => t.setCursor(files[1]!, { line: 0, character: 1 }), /line/);
  // What CursorSchema refuses, the tracker's own guard refuses: nothing kept of it.
  for (const bad of [
    { line: 1.5, character: 1 },
    { line: 2, character: 0 },
    { line: 2 ** 53, character: 1 },
    { line: '3', character: 1 },
  ]) {
    assert.throws(() => t.setCursor(files[1]!, bad as never), /1-based line and character/);
    assert.throws(() => t.focus(files[0]!, { cursor: bad as never }), /1-based line and character/);
  }
  assert.deepEqual(open(t)[0]!.cursor, { line: 9, character: 9 });
  t.dispose();
});

test('a file opened in the background ranks below the active one', () => {
  const t = new ContextTracker();
  t.focus(files[0]!);
  t.open(files[1]!);
  assert.deepEqual(
    open(t).map((f) => f.path),
    [files[0], files[1]],
  );
  assert.equal(open(t)[0]!.isActive, true);
  t.dispose();
});

test('rename keeps the focus time and activity; delete removes', () => {
  const t = new ContextTracker();
  t.focus(files[0]!);
  t.focus(files[1]!, { cursor: { line: 1, character: 2 } });
  const renamed = path.join(dir, 'renamed.txt');
  fs.copyFileSync(files[1]!, renamed);
  t.rename(files[1]!, renamed);
  assert.equal(open(t)[0]!.path, renamed);
  assert.deepEqual(open(t)[0]!.cursor, { line: 1, character: 2 });
  t.delete(renamed);
  assert.deepEqual(
    open(t).map((f) => f.path),
    [files[0]],
  );
  fs.rmSync(renamed);
  t.dispose();
});

test('trust is reported only once known', () => {
  const t = new ContextTracker();
  assert.equal('isTrusted' in t.snapshot().workspaceState!, false);
  t.setTrusted(false);
  assert.equal(t.snapshot().workspaceState!.isTrusted, false);
  t.dispose();
});

test('relative paths are refused', () => {
  const t = new ContextTracker();
  assert.throws(() => t.focus('relative.txt'), /absolute/);
  assert.throws(() => t.setRoots(['rel']), /absolute/);
  t.dispose();
});

test('a synchronous burst yields one change with the final state', () => {
  const clock = new ManualScheduler();
  const t = new ContextTracker({ scheduler: clock });
  const seen: string[] = [];
  t.onDidChange((c) => seen.push(c.workspaceState!.openFiles![0]!.path));
  for (let i = 0; i < 100; i++) t.focus(files[i % 14]!);
  clock.turn();
  clock.advance(200);
  assert.deepEqual(seen, [files[99 % 14]]);
  t.dispose();
});

test('events 1 ms apart: the first goes out at once, the rest as one change with the final state at the window end', () => {
  const clock = new ManualScheduler();
  const t = new ContextTracker({ scheduler: clock });
  const seen: Array<{ line: number }> = [];
  t.onDidChange((c) => seen.push(c.workspaceState!.openFiles![0]!.cursor!));
  t.focus(files[0]!, { cursor: { line: 1, character: 1 } });
  for (let i = 2; i <= 10; i++) {
    clock.advance(1);
    t.setCursor(files[0]!, { line: i, character: 1 });
  }
  assert.deepEqual(
    seen.map((c) => c.line),
    [1],
  );
  clock.advance(50);
  assert.deepEqual(
    seen.map((c) => c.line),
    [1, 10],
  );
  t.dispose();
});

test('an identical state is not sent twice', () => {
  const clock = new ManualScheduler();
  const t = new ContextTracker({ scheduler: clock });
  let n = 0;
  t.onDidChange(() => n++);
  t.focus(files[0]!, { cursor: { line: 1, character: 1 } });
  clock.advance(80);
  t.setCursor(files[0]!, { line: 1, character: 1 });
  clock.advance(80);
  assert.equal(n, 1);
  t.dispose();
});

test('roots: absolute, deduplicated, listeners told only on change', () => {
  const t = new ContextTracker();
  let calls = 0;
  t.onDidChangeRoots(() => calls++);
  t.setRoots([dir, dir + '/']);
  t.setRoots([dir]);
  assert.deepEqual(t.getRoots(), [dir]);
  assert.equal(calls, 1);
  t.dispose();
});
