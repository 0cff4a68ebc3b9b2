import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextStore, normalizeContext } from '../src/index.js';

test('only the newest file keeps isActive, cursor and selection; an inactive newest file clears all', () => {
  const input = {
    workspaceState: {
      openFiles: [
        { path: '/old', timestamp: 1, isActive: true, cursor: { line: 1, character: 1 }, selectedText: 'x' },
        { path: '/new', timestamp: 2, isActive: false },
      ],
    },
  };
  const out = normalizeContext(input);
  assert.deepEqual(
    out.workspaceState!.openFiles!.map((f) => [f.path, f.isActive, f.cursor, f.selectedText]),
    [
      ['/new', false, undefined, undefined],
      ['/old', false, undefined, undefined],
    ],
  );
  assert.equal(input.workspaceState.openFiles[0]!.isActive, true, 'the input is not mutated');
});

test('a selection of exactly 16 KiB is kept whole; one more character is cut with the marker', () => {
  const at = normalizeContext({ workspaceState: { openFiles: [{ path: '/a', timestamp: 1, isActive: true, selectedText: 'y'.repeat(16384) }] } });
  assert.equal(at.workspaceState!.openFiles![0]!.selectedText!.length, 16384);
  const over = normalizeContext({ workspaceState: { openFiles: [{ path: '/a', timestamp: 1, isActive: true, selectedText: 'y'.repeat(16385) }] } });
  assert.equal(over.workspaceState!.openFiles![0]!.selectedText, 'y'.repeat(16384) + '... [TRUNCATED]');
});

test('subscribers hear set and clear, and a throwing subscriber does not stop the others', () => {
  const store = new ContextStore();
  const seen: unknown[] = [];
  store.subscribe(() => {
    throw new Error('buggy subscriber');
  });
  const unsubscribe = store.subscribe((c) => seen.push(c));
  store.set({ workspaceState: { isTrusted: true } });
  store.clear();
  unsubscribe();
  store.set({});
  assert.deepEqual(seen, [{ workspaceState: { isTrusted: true } }, undefined]);
});
