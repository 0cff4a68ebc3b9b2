/**
 * The large-body parse must be JSON.parse, exactly: same value (own `__proto__`
 * keys, duplicate keys, every escape, surrogates, invalid UTF-8) and the same
 * error for what JSON.parse refuses. Thresholds are lowered so small inputs
 * take the large-string path.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonBytes, parseWithLargeStrings } from '../src/http/largeJson.js';

/** JSON.parse's outcome for the text, and the large path's for its bytes (a fresh copy each: the path overwrites them). */
function outcomes(bytes: Buffer, largeString: number): { expected: unknown; actual: unknown } {
  const run = (parse: () => unknown) => {
    try {
      return { value: parse() };
    } catch (err) {
      return { error: `${(err as Error).name}: ${(err as Error).message}` };
    }
  };
  return {
    expected: run(() => JSON.parse(bytes.toString('utf8'))),
    actual: run(() => parseJsonBytes(Buffer.from(bytes), 0, largeString)),
  };
}

function assertSame(input: Buffer | string, largeStrings = [1, 2, 5, 64]): void {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  for (const largeString of largeStrings) {
    const { expected, actual } = outcomes(bytes, largeString);
    assert.deepEqual(actual, expected, `${JSON.stringify(bytes.toString('latin1'))} with strings from ${largeString} bytes`);
    if (expected && typeof expected === 'object' && 'value' in expected) {
      // deepEqual does not see an own __proto__ property's absence or presence everywhere: compare the JSON back.
      assert.equal(JSON.stringify((actual as { value: unknown }).value), JSON.stringify(expected.value));
    }
  }
}

const tricky = [
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"openDiff","arguments":{"filePath":"/w/a.txt","newContent":"hello world"}}}',
  '{"a":"quote \\" back\\\\slash \\/ \\b\\f\\n\\r\\t end"}',
  '{"a":"\\u0000\\u001f\\u007f\\u0080\\u07ff\\u0800\\uffff\\u00e9\\u20AC"}',
  '{"a":"pair \\ud83d\\ude80 and \\uD83D\\uDE80"}',
  '{"a":"lone high \\ud83d then x"}',
  '{"a":"lone high at end \\ud83d"}',
  '{"a":"lone low \\ude80 here"}',
  '{"a":"high then high \\ud83d\\ud83d\\ude80"}',
  '{"a":"high then non-surrogate \\ud83d\\u0041"}',
  '{"a":"raw é € 🚀 and escaped \\u00e9"}',
  '{"a":"x","a":"duplicate, the last wins","b":["x","y"],"b":1}',
  '{"__proto__":"own property","x":{"__proto__":{"y":"z"}}}',
  ' \t\r\n{ "a" \n:\t "spaced value" \r\n, "b" : [ "one" , "two" ] } \n',
  '"a top-level string"',
  '["an","array",1,-2.5e3,true,false,null,{"k":"v"}]',
  '{"long key that is a key not a value":"v"}',
  '{"a":"b\\"c","d":"e\\\\","f":"\\\\\\""}',
  // Malformed: each must fail with JSON.parse's own error.
  '{"a":"unterminated',
  '{"a":"bad escape \\x"}',
  '{"a":"bad unicode \\u12G4"}',
  '{"a":"short unicode \\u12"}',
  '{"a":"raw control \u0001 char"}',
  '{"a":"raw newline \n"}',
  '{"a":"value",}',
  '{"a" "missing colon"}',
  '["key-looking": "value"]',
  '{"a":"v"} trailing',
  '\ufeff{"a":"bom"}',
  '{"a":"v"',
  '',
  '   ',
  '{"a":01}',
];

test('tricky and malformed bodies: the same value or the same error as JSON.parse', () => {
  for (const text of tricky) assertSame(text);
});

test('invalid UTF-8 inside and around large strings decodes as in the whole text', () => {
  const pieces = [
    [0xe2, 0x82], // a 3-byte sequence cut short
    [0xf0, 0x9f, 0x9a], // a 4-byte one cut short
    [0xed, 0xa0, 0xbd], // an encoded surrogate
    [0xc0, 0xaf], // overlong
    [0xff],
    [0x80, 0x80],
  ];
  for (const bad of pieces) {
    for (const after of ['', 'x', '\\n', '\\u00e9', '\\u0082', '\\ud83d\\ude80', '€']) {
      const body = Buffer.concat([Buffer.from('{"a":"pre'), Buffer.from(bad), Buffer.from(`${after}post","b":"`), Buffer.from(bad), Buffer.from('"}')]);
      assertSame(body);
    }
  }
});

test('random strings of escapes, surrogates and multi-byte characters round-trip as JSON.parse reads them', () => {
  const alphabet = ['a', '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', '\u0000', '\u001f', 'é', '€', '🚀', '\ud83d', '\ude80', '\u2028', ' ', ':'];
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
  for (let n = 0; n < 500; n++) {
    let s = '';
    const length = Math.floor(random() * 40);
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(random() * alphabet.length)];
    // JSON.stringify escapes lone surrogates as \udXXX; also try the \u form for every non-ASCII unit.
    const plain = JSON.stringify({ k: s, [s]: s, list: [s, 'x', s] });
    const unicode = plain.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    assertSame(plain, [1, 3, 17]);
    assertSame(unicode, [1, 3, 17]);
    if (!/[\ud800-\udfff]/.test(s.replace(/\ud83d\ude80/g, ''))) {
      // Without lone surrogates the large path reads it itself (no fallback to the whole text).
      assert.deepEqual(parseWithLargeStrings(Buffer.from(unicode, 'utf8'), 1), { value: JSON.parse(unicode) as unknown });
    }
  }
});

test('a large newContent decodes byte for byte through the large path; a lone surrogate falls back', () => {
  const newContent = 'const s = "quote \\"q\\" back\\\\slash\ttab é € 🚀";\n'.repeat(40_000);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'openDiff', arguments: { filePath: '/w/a.txt', newContent } } });
  const bytes = Buffer.from(body, 'utf8');
  const parsed = parseWithLargeStrings(bytes, 1024)?.value as { params: { arguments: { newContent: string } } };
  assert.equal(parsed.params.arguments.newContent, newContent);
  // An escaped lone surrogate cannot go through UTF-8: the whole text is parsed instead, untouched.
  const lone = Buffer.from(JSON.stringify({ newContent: `${newContent}\ud83d` }), 'utf8');
  assert.equal(parseWithLargeStrings(lone, 1024), undefined);
  assert.equal((parseJsonBytes(lone, 0, 1024) as { newContent: string }).newContent, `${newContent}\ud83d`);
  const clean = 'é€🚀 "quoted" \\ \n'.repeat(100_000);
  const cleanBytes = Buffer.from(JSON.stringify({ a: clean, b: [clean] }), 'utf8');
  assert.deepEqual(parseWithLargeStrings(cleanBytes, 1024), { value: { a: clean, b: [clean] } });
});

test('escapes across the 64 KiB blocks the walk reads: every offset of a \\u surrogate pair and a short escape', () => {
  const content = '🚀é\n"\\'.repeat(20_000);
  const escaped = JSON.stringify(content).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  for (let offset = 0; offset < 13; offset++) {
    const text = `{"pad":"${'x'.repeat(offset)}","newContent":${escaped},"after":"${'y'.repeat(offset)}\\ud83d"}`;
    const expected = JSON.parse(text) as unknown;
    // The large path itself, not the whole-text fallback, must have read it.
    assert.deepEqual(parseWithLargeStrings(Buffer.from(text, 'utf8'), 1024), { value: expected }, `offset ${offset}`);
  }
});
