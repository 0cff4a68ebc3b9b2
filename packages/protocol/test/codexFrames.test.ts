/** Codex CLI's IPC frames (issue 31): a u32 little-endian length, then UTF-8 JSON; the codec is pure. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CodexFrameDecoder, CodexFrameError, CodexFrameSchema, encodeCodexFrame, PARSE_ONCE } from '../src/index.js';

test('a frame is its UTF-8 length, little-endian, then the JSON; multibyte text counts in bytes', () => {
  const frame = encodeCodexFrame({ text: 'é€😀' });
  const payload = Buffer.from(JSON.stringify({ text: 'é€😀' }), 'utf8');
  assert.equal(Buffer.from(frame).readUInt32LE(0), payload.length);
  assert.deepEqual(Buffer.from(frame.subarray(4)), payload);
});

test('the decoder takes frames split anywhere and several in one chunk', () => {
  const bytes = Buffer.concat([encodeCodexFrame({ a: 1 }), encodeCodexFrame({ b: 'два' }), encodeCodexFrame([3])]);
  for (let cut = 1; cut < bytes.length; cut++) {
    const decoder = new CodexFrameDecoder(() => 1024);
    const got = [...decoder.push(bytes.subarray(0, cut)), ...decoder.push(bytes.subarray(cut))];
    assert.deepEqual(got, [{ a: 1 }, { b: 'два' }, [3]], `cut at ${cut}`);
    assert.equal(decoder.pending, 0);
  }
});

test('over the cap (asked per frame), not UTF-8, not JSON: a CodexFrameError, before the payload is read', () => {
  let cap = 10;
  const decoder = new CodexFrameDecoder(() => cap);
  assert.throws(() => decoder.push(encodeCodexFrame({ long: 'x'.repeat(20) }).subarray(0, 4)), CodexFrameError);
  cap = 100;
  assert.deepEqual(new CodexFrameDecoder(() => cap).push(encodeCodexFrame({ long: 'x'.repeat(20) })), [{ long: 'x'.repeat(20) }]);
  const header = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  assert.throws(() => new CodexFrameDecoder(() => 100).push(Buffer.concat([header(2), Buffer.from([0xc3, 0x28])])), /not UTF-8/);
  assert.throws(() => new CodexFrameDecoder(() => 100).push(Buffer.concat([header(3), Buffer.from('{no')])), /not JSON/);
});

test('the frames the CLI and routers send parse; one without requestId or of an unknown type does not', () => {
  const ok = [
    { type: 'request', requestId: 'r', sourceClientId: 'codex-tui', version: 0, method: 'ide-context', params: { workspaceRoot: '/w' } },
    { type: 'response', requestId: 'r', resultType: 'error', method: 'ide-context', handledByClientId: 'server', error: 'no-client-found' },
    { type: 'client-discovery-request', requestId: 'd', request: { type: 'request', requestId: 'r', sourceClientId: 'c', version: 0, method: 'ide-context' } },
    { type: 'client-discovery-response', requestId: 'd', response: { canHandle: false } },
    { type: 'broadcast', method: 'client-status-changed', sourceClientId: 'c', version: 0, params: { clientId: 'c', status: 'connected' } },
  ];
  for (const frame of ok) assert.ok(CodexFrameSchema.safeParse(frame, PARSE_ONCE).success, frame.type);
  for (const frame of [{ type: 'request', sourceClientId: 'c', method: 'm' }, { type: 'gossip', requestId: 'r' }, 42, null])
    assert.equal(CodexFrameSchema.safeParse(frame, PARSE_ONCE).success, false, JSON.stringify(frame));
});
