import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeCloseDiffText, encodeCloseDiffText, formatActiveFile, parseActiveFile, validateCompanionNotification } from '../src/index.js';

test('closeDiff text is JSON {"content": ...} and decodes the way the CLI reads it', () => {
  const text = encodeCloseDiffText('a\r\nb\u0000"c"');
  assert.deepEqual(JSON.parse(text), { content: 'a\r\nb\u0000"c"' });
  assert.equal(decodeCloseDiffText(text), 'a\r\nb\u0000"c"');
  assert.equal(decodeCloseDiffText(encodeCloseDiffText('')), '');
  assert.equal(decodeCloseDiffText(encodeCloseDiffText(null)), undefined);
});

test('raw closeDiff text (the spec wording) decodes to nothing, as in the CLI', () => {
  assert.equal(decodeCloseDiffText('just the file text'), undefined);
  assert.equal(decodeCloseDiffText(undefined), undefined);
});

test('getActiveFile text has the three forms of the architecture doc and parses back', () => {
  assert.equal(formatActiveFile({ filePath: '/p/a.ts', cursor: { line: 10, character: 5 } }), 'Active file: /p/a.ts (line: 10, char: 5)');
  assert.equal(formatActiveFile({ filePath: '/p/a b.ts' }), 'Active file: /p/a b.ts');
  assert.equal(formatActiveFile(null), 'No file is currently active');
  assert.deepEqual(parseActiveFile('Active file: /p/a.ts (line: 10, char: 5)'), { filePath: '/p/a.ts', cursor: { line: 10, character: 5 } });
  assert.deepEqual(parseActiveFile('Active file: /p/a b.ts'), { filePath: '/p/a b.ts' });
  assert.equal(parseActiveFile('No file is currently active'), null);
  assert.equal(parseActiveFile('something else'), undefined);
});

test('a context update with a file missing its timestamp is refused (the CLI would disconnect)', () => {
  assert.throws(() => validateCompanionNotification({ method: 'ide/contextUpdate', params: { workspaceState: { openFiles: [{ path: '/a' }] } } }), /timestamp/);
});

test('diffAccepted without content is refused; with content it passes', () => {
  assert.throws(() => validateCompanionNotification({ method: 'ide/diffAccepted', params: { filePath: '/a' } }), /content/);
  assert.deepEqual(validateCompanionNotification({ method: 'ide/diffAccepted', params: { filePath: '/a', content: '' } }).params, {
    filePath: '/a',
    content: '',
  });
});

test('unknown notification methods and zero-based cursors are refused', () => {
  assert.throws(() => validateCompanionNotification({ method: 'ide/other', params: {} }), /unknown/);
  assert.throws(
    () =>
      validateCompanionNotification({
        method: 'ide/contextUpdate',
        params: { workspaceState: { openFiles: [{ path: '/a', timestamp: 1, cursor: { line: 0, character: 1 } }] } },
      }),
    /line/,
  );
});

test('a refusal says what was wrong, not just "Invalid input" (zod/mini has no messages of its own)', () => {
  assert.throws(
    () => validateCompanionNotification({ method: 'ide/diffAccepted', params: { filePath: '', content: 3 } }),
    (err: Error) =>
      /filePath/.test(err.message) &&
      /Too small: expected string to have >=1 characters/.test(err.message) &&
      /expected string, received number/.test(err.message),
  );
});

test('every editor -> host line in docs/editor-protocol.md parses with the schemas', async () => {
  const { readFileSync } = await import('node:fs');
  const { EditorLineSchema } = await import('../src/index.js');
  const doc = readFileSync(new URL('../../../../docs/editor-protocol.md', import.meta.url), 'utf8');
  const lines = doc
    .split('\n')
    .filter((l) => l.startsWith('→ '))
    .map((l) => l.slice(2));
  const hello = /```json\n(\{"type":"hello"[\s\S]*?)\n```/.exec(doc)?.[1];
  assert.ok(hello, 'the handshake example');
  assert.ok(lines.length >= 4);
  for (const line of [hello.replace(/\n/g, ''), ...lines]) {
    const parsed = EditorLineSchema.safeParse(JSON.parse(line));
    assert.ok(parsed.success, line);
  }
});
