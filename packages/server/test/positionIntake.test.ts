/**
 * PositionIntake: selections sent as ranges are read once per change (one read
 * at a time, the newest range winning), their direction worked out from the
 * range, repeats dropped, the text cut by the tracker alone; a selection ended
 * without a move stands until the cursor moves in a file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SELECTED_TEXT_LENGTH, SELECTED_TEXT_TRUNCATION_MARKER } from '@ide-companion/protocol';
import { Companion } from '../src/index.js';
import { PositionIntake, SELECTED_TEXT_READ_CHARS } from '../src/positionIntake.js';

function setUp(texts: string[]) {
  const companion = new Companion({ ideInfo: { name: 't', displayName: 'T' }, context: { fileExists: () => true, windowMs: 0 } });
  const reads: number[] = [];
  const waiting: Array<() => void> = [];
  const intake = new PositionIntake(companion, {
    readIntervalMs: 0,
    readSelectedText: (maxChars) => {
      reads.push(maxChars);
      const text = texts.shift() ?? null;
      return new Promise((resolve) => waiting.push(() => resolve(text)));
    },
  });
  const active = () => companion.context.snapshot().workspaceState!.openFiles![0]!;
  /** Answers the read in flight and lets its result land. */
  const answer = async () => {
    waiting.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { companion, intake, reads, active, answer, dispose: () => (intake.dispose(), companion.context.dispose()) };
}

test('a range is read once per change, the newest range winning; repeats read nothing', async () => {
  const t = setUp(['stale', 'newest']);
  try {
    t.intake.apply({ type: 'focus', path: '/w/a.ts', cursor: { line: 5, character: 1 }, anchor: { line: 1, character: 1 }, selectionKind: 'line' });
    // Two moves while the first read is out, and a repeat of the last: no read until it is answered.
    t.intake.apply({ type: 'cursor', path: '/w/a.ts', cursor: { line: 4, character: 1 }, anchor: { line: 1, character: 1 }, selectionKind: 'line' });
    t.intake.apply({ type: 'cursor', path: '/w/a.ts', cursor: { line: 3, character: 1 }, anchor: { line: 1, character: 1 }, selectionKind: 'line' });
    t.intake.apply({ type: 'cursor', path: '/w/a.ts', cursor: { line: 3, character: 1 }, anchor: { line: 1, character: 1 }, selectionKind: 'line' });
    assert.deepEqual(t.reads, [SELECTED_TEXT_READ_CHARS]);
    await t.answer();
    // The first answer was for a range since left: not shown; the newest is read.
    assert.equal(t.active().selectedText, undefined);
    assert.equal(t.reads.length, 2);
    await t.answer();
    assert.equal(t.active().selectedText, 'newest');
    assert.deepEqual(t.active().cursor, { line: 3, character: 1 });
    t.intake.apply({ type: 'cursor', path: '/w/a.ts', cursor: { line: 3, character: 1 }, anchor: { line: 1, character: 1 }, selectionKind: 'line' });
    assert.equal(t.reads.length, 2, 'a repeat reads nothing');
    // The selection ends and the cursor moves on: no anchor, no text, no read.
    t.intake.apply({ type: 'cursor', path: '/w/a.ts', cursor: { line: 4, character: 1 } });
    assert.equal(t.active().selectedText, undefined);
    assert.equal(t.reads.length, 2);
    assert.equal(t.intake.noSelection, true);
  } finally {
    t.dispose();
  }
});

test('the direction comes from the range; the text read is cut and marked by the tracker only', async () => {
  const long = 'ü'.repeat(MAX_SELECTED_TEXT_LENGTH) + '😀';
  const t = setUp(['two', long]);
  const directions: boolean[] = [];
  try {
    t.intake.apply({ type: 'focus', path: '/w/a.ts', cursor: { line: 2, character: 1 }, anchor: { line: 2, character: 4 } });
    await t.answer();
    assert.equal(t.active().selectedText, 'two');
    directions.push(t.companion.context.selectionBackward);
    t.intake.apply({ type: 'cursor', path: '/w/a.ts', cursor: { line: 2, character: 4 }, anchor: { line: 1, character: 9 } });
    await t.answer();
    directions.push(t.companion.context.selectionBackward);
    assert.deepEqual(directions, [true, false]);
    assert.equal(t.active().selectedText, 'ü'.repeat(MAX_SELECTED_TEXT_LENGTH - SELECTED_TEXT_TRUNCATION_MARKER.length) + SELECTED_TEXT_TRUNCATION_MARKER);
  } finally {
    t.dispose();
  }
});

test('events with the text (VS Code, scripted bridges) pass through as before', () => {
  const t = setUp([]);
  try {
    t.intake.apply({ type: 'focus', path: '/w/a.ts', cursor: { line: 1, character: 1 }, selectedText: 'sel', selectionBackward: true });
    assert.equal(t.active().selectedText, 'sel');
    assert.equal(t.companion.context.selectionBackward, true);
    assert.equal(t.reads.length, 0);
  } finally {
    t.dispose();
  }
});

/**
 * Issue 39: select, then ask in the agent's split. Neovim and Vim send the end
 * of Visual mode (<Esc>, or <C-w>w on the way to the agent's terminal) as a
 * cursor with no anchor, and the selection was gone within a millisecond.
 */
test('a selection ended without a move stands until the cursor moves in a file', async () => {
  const t = setUp(['two lines', 'picked up']);
  const range = { path: '/w/a.ts', cursor: { line: 3, character: 2 }, anchor: { line: 2, character: 1 }, selectionKind: 'char' as const };
  try {
    t.intake.apply({ type: 'focus', ...range });
    await t.answer();
    assert.equal(t.active().selectedText, 'two lines');
    // <Esc>: the cursor where it was, no anchor; then the way into the terminal (nothing), and back (a focus, same place).
    t.intake.apply({ type: 'cursor', path: '/w/a.ts', cursor: { line: 3, character: 2 } });
    assert.equal(t.active().selectedText, 'two lines');
    assert.equal(t.intake.noSelection, false);
    t.intake.apply({ type: 'focus', path: '/w/a.ts', cursor: { line: 3, character: 2 } });
    assert.equal(t.active().selectedText, 'two lines');
    assert.equal(t.reads.length, 1, 'nothing read again');
    // The cursor moves in the file: gone.
    t.intake.apply({ type: 'cursor', path: '/w/a.ts', cursor: { line: 3, character: 3 } });
    assert.equal(t.active().selectedText, undefined);
    assert.equal(t.intake.noSelection, true);
    // A yank leaves the cursor on the other end; a selection not read yet when it ends is read (the end answers the one just ended).
    t.intake.apply({ type: 'cursor', ...range, anchor: { line: 1, character: 1 } });
    t.intake.apply({ type: 'cursor', path: '/w/a.ts', cursor: { line: 1, character: 1 } });
    await t.answer();
    assert.equal(t.active().selectedText, 'picked up');
    assert.deepEqual(t.active().cursor, { line: 1, character: 1 });
    // Another file: gone.
    t.intake.apply({ type: 'focus', path: '/w/b.ts', cursor: { line: 1, character: 1 } });
    t.intake.apply({ type: 'focus', path: '/w/a.ts', cursor: { line: 1, character: 1 } });
    assert.equal(t.active().selectedText, undefined);
    assert.equal(t.intake.noSelection, true);
  } finally {
    t.dispose();
  }
});
