/** Codex CLI's IPC frames (issue 31): a u32 little-endian length, then UTF-8 JSON; the codec is pure. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CodexFrameDecoder, CodexFrameError, CodexFrameSchema, encodeCodexFrame, PARSE_ONCE, plainCodexRequest } from '../src/index.js';

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

test('a plain request read without zod is what the schema reads, key for key and in its order; anything else is left to the schema', () => {
  const base = { type: 'request', requestId: 'r1', sourceClientId: 'codex-tui', version: 0, method: 'ide-context', params: { workspaceRoot: '/w' } };
  const frames: unknown[] = [
    base,
    { ...base, extra: 'dropped', __proto__: 'kept out' },
    JSON.parse('{"type":"request","requestId":"r","sourceClientId":"s","method":"m","__proto__":{"x":1}}'),
    { params: [1], method: 'm', sourceClientId: '', requestId: 'x', type: 'request' },
    { type: 'request', requestId: 'r', sourceClientId: 's', method: 'm', params: null },
    { type: 'request', requestId: 'r', sourceClientId: 's', method: 'm', version: 1.5 },
    { type: 'request', requestId: 'x'.repeat(200), sourceClientId: 's', method: 'm'.repeat(200) },
    // Each refused by the schema: the plain reading must not take it.
    { ...base, requestId: '' },
    { ...base, requestId: 'x'.repeat(201) },
    { ...base, method: '' },
    { ...base, method: 'm'.repeat(201) },
    { ...base, method: 7 },
    { ...base, sourceClientId: undefined },
    { ...base, sourceClientId: 3 },
    { ...base, version: '0' },
    { ...base, version: null },
    { ...base, version: Number.NaN },
    { ...base, version: Number.POSITIVE_INFINITY },
    { ...base, requestId: 5 },
    { ...base, type: 'response' },
    { ...base, type: 'Request' },
    [base],
    null,
    'request',
    7,
    // Other frames: the schema's alone.
    { type: 'response', requestId: 'r', resultType: 'success', result: {} },
    { type: 'client-discovery-request', requestId: 'd', request: base },
  ];
  let plain = 0;
  for (const frame of frames) {
    const fast = plainCodexRequest(frame);
    const schema = CodexFrameSchema.safeParse(frame, PARSE_ONCE);
    if (fast === undefined) {
      if (schema.success) assert.notEqual((frame as { type?: unknown }).type, 'request', `a request the schema takes: ${JSON.stringify(frame)}`);
      continue;
    }
    plain++;
    assert.ok(schema.success, `taken without zod, refused by the schema: ${JSON.stringify(frame)}`);
    assert.deepStrictEqual(fast, schema.data);
    assert.deepStrictEqual(Object.keys(fast), Object.keys(schema.data), 'the same keys in the same order');
    assert.equal(JSON.stringify(encodeCodexFrame(fast)), JSON.stringify(encodeCodexFrame(schema.data)));
  }
  assert.equal(plain, 7, 'the seven plain requests are read without zod');
});
