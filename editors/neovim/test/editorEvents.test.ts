/** The Lua -> host notifications: validated one by one, with errors that name the field. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextTracker } from '@ide-companion/server';
import { applyContextEvent, parseEditorEvent } from '../src/host/editorEvents.js';

test('a bad payload is refused with the field and the reason in the message', () => {
  assert.throws(() => parseEditorEvent('cursor', [{ path: 'rel/a.txt', line: 0, character: 1 }]), (err: Error) => {
    assert.match(err.message, /^bad cursor notification: /);
    assert.match(err.message, /path: must be an absolute path/);
    assert.match(err.message, /line: /);
    return true;
  });
  assert.throws(() => parseEditorEvent('diffAccept', [{ id: 'x', buffer: { lines: [] } }]), /buffer\.lines/);
  assert.throws(() => parseEditorEvent('open', ['not a table']), /bad open notification/);
  assert.throws(() => parseEditorEvent('roots', []), /roots/);
});

test('context events reach the tracker; a refused one changes nothing', () => {
  const tracker = new ContextTracker({ fileExists: () => true, windowMs: 0, quietMs: 0 });
  try {
    assert.equal(applyContextEvent(tracker, 'focus', [{ path: '/w/a.ts', line: 3, character: 2, selectedText: 'sel' }]), true);
    const before = JSON.stringify(tracker.snapshot());
    assert.throws(() => applyContextEvent(tracker, 'cursor', [{ path: '/w/a.ts', line: -1, character: 1 }]));
    assert.throws(() => applyContextEvent(tracker, 'roots', [{ roots: ['relative'] }]));
    assert.equal(JSON.stringify(tracker.snapshot()), before);
    assert.deepEqual(tracker.getRoots(), []);
    const active = tracker.snapshot().workspaceState!.openFiles![0]!;
    assert.deepEqual({ path: active.path, cursor: active.cursor, selectedText: active.selectedText }, { path: '/w/a.ts', cursor: { line: 3, character: 2 }, selectedText: 'sel' });
    assert.equal(applyContextEvent(tracker, 'diffReject', [{ id: 'x' }]), false, 'not a context event');
  } finally {
    tracker.dispose();
  }
});
