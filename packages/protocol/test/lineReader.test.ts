/** Issue 27: the one line reader of every stdio process, capped per line. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineReader } from '../src/lineReader.js';

function reader(maxBytes: number) {
  const got: string[] = [];
  const r = new LineReader({ maxBytes, onLine: (l) => got.push(l.toString()), onOversize: (max) => got.push(`OVERSIZE ${max}`) });
  return { r, got };
}

test('lines across chunks, CRLF, empty lines and a last line without newline', () => {
  const { r, got } = reader(100);
  for (const chunk of ['ab', 'c\r\nd', '\n\nlast']) r.push(Buffer.from(chunk));
  r.end();
  assert.deepEqual(got, ['abc', 'd', '', 'last']);
});

test('a line over the cap is reported once, the moment it passes it, dropped to its newline; the next is read', () => {
  const { r, got } = reader(4);
  r.push(Buffer.from('1234'));
  r.push(Buffer.from('5'));
  assert.deepEqual(got, ['OVERSIZE 4']);
  r.push(Buffer.from('678'));
  r.push(Buffer.from('9\nok\n123456\nfine'));
  r.end();
  assert.deepEqual(got, ['OVERSIZE 4', 'ok', 'OVERSIZE 4', 'fine']);
  const exact = reader(4);
  exact.r.push(Buffer.from('1234\n'));
  assert.deepEqual(exact.got, ['1234']);
});
