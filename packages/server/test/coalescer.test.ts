/** The coalescer: lone changes go out after the quiet time, bursts once per window. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sleep } from '@ide-companion/testkit';
import { Coalescer } from '../src/index.js';

test('a lone change is flushed after the quiet time, well before the window ends', async () => {
  const times: number[] = [];
  const c = new Coalescer(() => times.push(performance.now()), { windowMs: 200, quietMs: 2 });
  const start = performance.now();
  c.poke();
  await sleep(150);
  assert.equal(times.length, 1);
  // The trailing-only debounce of the official companion would flush at 200 ms.
  assert.ok(times[0]! - start < 100, `flushed after ${times[0]! - start} ms`);
  c.dispose();
});

test('pokes inside a flushed window are flushed once at its end', async () => {
  let n = 0;
  const c = new Coalescer(() => n++, { windowMs: 100, quietMs: 1 });
  c.poke();
  await sleep(20);
  assert.equal(n, 1);
  c.poke();
  c.poke();
  c.poke();
  await sleep(20);
  assert.equal(n, 1, 'still inside the window');
  await sleep(150);
  assert.equal(n, 2);
  c.dispose();
});

test('a continuous stream of pokes is flushed at most once per window', async () => {
  let n = 0;
  const c = new Coalescer(() => n++, { windowMs: 50, quietMs: 5 });
  const end = performance.now() + 300;
  while (performance.now() < end) {
    c.poke();
    await sleep(2);
  }
  await sleep(100);
  assert.ok(n >= 3 && n <= 9, `${n} flushes for 300 ms of pokes`);
  c.dispose();
});

test('dispose cancels a pending flush', async () => {
  let n = 0;
  const c = new Coalescer(() => n++, { windowMs: 50, quietMs: 20 });
  c.poke();
  c.dispose();
  await sleep(100);
  assert.equal(n, 0);
});
