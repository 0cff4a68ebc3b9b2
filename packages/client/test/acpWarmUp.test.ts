/** The warm-up of the SDK's session/update path (warmUp.ts): every sample is taken, so none of it is a silent no-op. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { warmSessionUpdates, WARM_UP_SAMPLES } from '../src/acp/warmUp.js';

test('acp warm-up: the SDK takes every sample update as it is (one refused or cut down would leave its path cold), and it ends', async () => {
  const started = Date.now();
  assert.deepEqual(await warmSessionUpdates(), WARM_UP_SAMPLES);
  assert.ok(Date.now() - started < 2_000, 'within its bound');
  // A second run (the agent's connection is the first after it) takes them all too.
  assert.deepEqual(await warmSessionUpdates(), WARM_UP_SAMPLES);
});
