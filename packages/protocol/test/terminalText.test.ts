/**
 * Issue 27: companion text (a file name, a diagnostic message, an error
 * echoing an agent's path) reached agents and terminals with OSC 52, OSC 8 and
 * CSI in it. One cleaner, used at every edge.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanStrings, cleanText, cleanToolText } from '../src/terminalText.js';

test('C0 (but tab and newline), DEL and C1 control characters are removed; the rest is kept', () => {
  assert.equal(cleanText('a\x1b]52;c;aGk=\x07b\tc\nd\r\x7f\x9b2J\x85é😀'), 'a]52;c;aGk=b\tc\nd2Jé😀');
  const plain = 'nothing to remove: é 😀 \u200b';
  assert.equal(cleanText(plain), plain);
});

test('every string of a value, keys too; an untouched value is the same object', () => {
  const clean = { a: ['x', { b: 1 }], c: null };
  assert.equal(cleanStrings(clean), clean);
  assert.deepEqual(cleanStrings({ 'k\x1b': ['v\x9b', { w: 'x\x07y' }], n: 2 }), { k: ['v', { w: 'xy' }], n: 2 });
});

test('a JSON answer text: escapes written \\u001b, \\r or \\b in it are removed too', () => {
  const text = JSON.stringify({ diagnostics: [{ message: 'bad\x1b[31m\r', path: '/p/a\x9bb' }] });
  assert.match(text, /\\u001b/);
  assert.equal(cleanToolText(text), JSON.stringify({ diagnostics: [{ message: 'bad[31m', path: '/p/ab' }] }));
  const untouched = JSON.stringify({ path: 'C:\\\\tmp', n: 1 });
  assert.equal(cleanToolText(untouched), untouched);
  assert.equal(cleanToolText('not JSON \\u001b \x1b[2J'), 'not JSON \\u001b [2J');
});
