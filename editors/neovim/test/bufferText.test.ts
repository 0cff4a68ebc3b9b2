/** Text <-> buffer lines: what keeps accepted diffs byte-exact. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bufferFromText, textFromBuffer, type BufferContent } from '../src/host/bufferText.js';

function unedited(content: BufferContent) {
  const empty = content.lines.length === 1 && content.lines[0] === '' && !content.eol;
  return { lines: content.lines, fileformat: content.fileformat, eol: content.eol, fixeol: content.eol, binary: false, empty };
}

test('every text survives the trip into buffer lines and back', () => {
  const texts = ['', '\n', '\n\n', 'a', 'a\n', 'a\nb', 'a\r\nb\r\n', 'a\r\nb', 'a\r\nb\n', '\r', 'a\rb\n', '\r\n', 'ü😀\n', 'x\n\n\n'];
  for (const text of texts) {
    assert.equal(textFromBuffer(unedited(bufferFromText(text))), text, JSON.stringify(text));
  }
});

test('CRLF is the file format only when every line break is CRLF', () => {
  assert.deepEqual(bufferFromText('a\r\nb\r\n'), { lines: ['a', 'b'], fileformat: 'dos', eol: true });
  assert.deepEqual(bufferFromText('a\r\nb\n'), { lines: ['a\r', 'b'], fileformat: 'unix', eol: true });
  assert.deepEqual(bufferFromText('no break'), { lines: ['no break'], fileformat: 'unix', eol: false });
});

test('writing follows Vim: a final break with eol, or fixeol unless binary; nothing for an empty buffer', () => {
  const base = { lines: ['a', 'b'], fileformat: 'unix' as const, eol: false, fixeol: false, binary: false, empty: false };
  assert.equal(textFromBuffer(base), 'a\nb');
  assert.equal(textFromBuffer({ ...base, fixeol: true }), 'a\nb\n');
  assert.equal(textFromBuffer({ ...base, fixeol: true, binary: true }), 'a\nb');
  assert.equal(textFromBuffer({ ...base, eol: true, binary: true }), 'a\nb\n');
  assert.equal(textFromBuffer({ ...base, fileformat: 'dos', eol: true }), 'a\r\nb\r\n');
  assert.equal(textFromBuffer({ ...base, fileformat: 'mac', eol: true }), 'a\rb\r');
  assert.equal(textFromBuffer({ ...base, lines: [''], eol: true, fixeol: true, empty: true }), '');
});
