// lazySchema: the protocol's schemas are built on first use (start time), and must still be the schemas.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as z from 'zod/mini';
import { lazySchema } from '../src/lazySchema.js';
import { FileSchema, GetDiagnosticsArgumentsSchema } from '../src/index.js';

test('nothing is built before the first use, and the schema is built once', () => {
  let builds = 0;
  const schema = lazySchema(() => {
    builds++;
    return z.object({ n: z.int() });
  });
  const wrapped = z.object({ inner: z.optional(schema) });
  assert.equal(builds, 0, 'defining it, or a schema around it, builds nothing');
  assert.deepEqual(schema.parse({ n: 1, extra: true }), { n: 1 });
  assert.deepEqual(wrapped.parse({ inner: { n: 2 } }), { inner: { n: 2 } });
  assert.equal(schema.safeParse({ n: 1.5 }).success, false);
  assert.equal(builds, 1);
});

test('a nested lazy schema refuses with the path and the reason, as the schema would', () => {
  const result = FileSchema.safeParse({ path: '/a', timestamp: 1, cursor: { line: 0, character: 1 } });
  assert.equal(result.success, false);
  assert.match(z.prettifyError(result.error!), /Too small: expected number to be >=1\n {2}→ at cursor\.line/);
});

test("a tool's arguments convert to JSON Schema with their descriptions (what tools/list shows)", () => {
  const json = z.toJSONSchema(GetDiagnosticsArgumentsSchema) as { type: string; properties: Record<string, { description?: string }> };
  assert.equal(json.type, 'object');
  assert.match(json.properties['path']?.description ?? '', /Absolute path of one file/);
  assert.match(json.properties['severity']?.description ?? '', /Least severe level/);
});

test('it reads as the schema: its keys, `in`, and its prototype', () => {
  const schema = lazySchema(() => z.object({ a: z.string() }));
  const plain = z.object({ a: z.string() });
  assert.ok('_zod' in schema);
  assert.deepEqual(Object.keys(schema), Object.keys(plain));
  assert.deepEqual(Reflect.ownKeys(schema), Reflect.ownKeys(plain));
  assert.deepEqual(Object.keys(schema.shape), ['a']);
  assert.equal(Object.getPrototypeOf(schema), Object.getPrototypeOf(plain));
});
