/**
 * Issue 27, sizes: the Neovim host's reader cuts Neovim's msgpack-RPC messages
 * and drops one over the cap before the `neovim` package's decoder sees it
 * (one message past the engine's string limit stopped that decoder for good).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { decodeMulti, encode } from '@msgpack/msgpack';
import { msgpackFrames, oversizeAnswer } from '../src/host/msgpackFrames.js';

async function run(messages: unknown[], maxBytes: number, chunkSize: number) {
  const input = new PassThrough();
  const heads: Buffer[] = [];
  const out = msgpackFrames(input, { maxBytes, onOversize: (head) => heads.push(head) });
  const got: Buffer[] = [];
  out.on('data', (c: Buffer) => got.push(c));
  const bytes = Buffer.concat(messages.map((m) => Buffer.from(encode(m))));
  for (let i = 0; i < bytes.length; i += chunkSize) input.write(bytes.subarray(i, i + chunkSize));
  input.end();
  await new Promise((resolve) => out.once('end', resolve));
  return { bytes, out: Buffer.concat(got), decoded: [...decodeMulti(Buffer.concat(got))].map((m) => JSON.stringify(m)), heads };
}

const every = [
  [2, 'event', [{ type: 'focus', path: '/a/é😀', n: -1, big: 2 ** 40, f: 1.5, ok: true, none: null }]],
  [0, 300, 'nvim_get_api_info', []],
  [1, 7, null, { text: 'x'.repeat(70_000), lines: Array.from({ length: 20 }, (_, i) => i) }],
  [2, 'event', [new Uint8Array([1, 2, 3]), { nested: { deeper: [[], {}, ['a']] } }]],
];

test('whole messages pass as they are, however the bytes are cut', async () => {
  for (const chunkSize of [1, 3, 7, 1024, 1 << 20]) {
    const { bytes, out, decoded, heads } = await run(every, 1 << 20, chunkSize);
    assert.ok(out.equals(bytes), `chunks of ${chunkSize}`);
    assert.equal(decoded.length, every.length);
    assert.equal(heads.length, 0);
  }
});

test('a message over the cap is dropped and reported once; the next passes; a request gets an error answer', async () => {
  const big = [0, 42, 'nvim_call', ['y'.repeat(5000)]];
  const { decoded, heads } = await run([every[0], big, every[1]], 1000, 100);
  assert.deepEqual(
    decoded,
    [every[0], every[1]].map((m) => JSON.stringify(m)),
  );
  assert.equal(heads.length, 1);
  const answer = oversizeAnswer(heads[0]!, 'message too large');
  assert.deepEqual([...decodeMulti(answer!)], [[1, 42, 'message too large', null]]);
  assert.equal(oversizeAnswer(Buffer.from(encode([2, 'event', []])), 'x'), undefined, 'a notification has no one to answer');
});
