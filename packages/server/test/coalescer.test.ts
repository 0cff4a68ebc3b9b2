/** The coalescer on a manual clock: lone changes go out on the next turn, bursts once per window. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Coalescer } from '../src/index.js';
import { ManualScheduler } from './manualScheduler.js';

function setup(windowMs = 50) {
  const clock = new ManualScheduler();
  const flushes: number[] = [];
  const c = new Coalescer(() => flushes.push(clock.now()), { windowMs }, clock);
  return { clock, flushes, c };
}

test('a lone change is flushed on the next turn, with no wait', () => {
  const { clock, flushes, c } = setup();
  c.poke();
  assert.deepEqual(flushes, [], 'not inside the poke itself');
  clock.turn();
  assert.deepEqual(flushes, [0]);
});

test('a synchronous burst is one flush', () => {
  const { clock, flushes, c } = setup();
  for (let i = 0; i < 100; i++) c.poke();
  clock.turn();
  clock.advance(200);
  assert.deepEqual(flushes, [0]);
});

test('changes inside a flushed window go out once, at its end', () => {
  const { clock, flushes, c } = setup(100);
  c.poke();
  clock.turn();
  clock.advance(20);
  c.poke();
  clock.advance(1);
  c.poke();
  c.poke();
  clock.advance(50);
  assert.deepEqual(flushes, [0], 'still inside the window');
  clock.advance(100);
  assert.deepEqual(flushes, [0, 100]);
});

test('a change after the window has passed goes out at once again', () => {
  const { clock, flushes, c } = setup();
  c.poke();
  clock.turn();
  clock.advance(80);
  c.poke();
  clock.turn();
  assert.deepEqual(flushes, [0, 80]);
});

test('a stream of changes every 2 ms: flushes 50 ms apart, the last at most one window after the last change', () => {
  const { clock, flushes, c } = setup(50);
  for (let t = 0; t < 300; t += 2) {
    c.poke();
    clock.advance(2);
  }
  const lastChange = 298;
  clock.advance(200);
  for (let i = 1; i < flushes.length; i++) assert.ok(flushes[i]! - flushes[i - 1]! >= 50, `flushes ${flushes.join(', ')}`);
  assert.ok(flushes.at(-1)! >= lastChange && flushes.at(-1)! <= lastChange + 50, `last flush at ${flushes.at(-1)}`);
  assert.equal(flushes.length, 7); // 0, 50, ..., 300
});

test('dispose cancels a pending flush, leading or trailing', () => {
  const { clock, flushes, c } = setup();
  c.poke();
  c.dispose();
  clock.advance(100);
  assert.deepEqual(flushes, []);
  c.poke();
  clock.turn();
  c.poke();
  c.dispose();
  clock.advance(100);
  assert.deepEqual(flushes, [100]);
  assert.equal(clock.pending, 0);
});

test('the real scheduler flushes a lone change once the current job is done, without a timer', async () => {
  let n = 0;
  const c = new Coalescer(() => n++, { windowMs: 50 });
  c.poke();
  c.poke();
  assert.equal(n, 0, 'not inside the job that poked');
  await Promise.resolve();
  assert.equal(n, 1);
  c.dispose();
});

test('the real scheduler: dispose cancels a queued flush', async () => {
  let n = 0;
  const c = new Coalescer(() => n++, { windowMs: 50 });
  c.poke();
  c.dispose();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(n, 0);
});
