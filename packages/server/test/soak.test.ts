/**
 * The soak in its short mode (issue 21; the full day is bench/soak.mjs): one
 * companion process with a real MCP SDK client, 100,000 editor events, 100
 * diffs of 1 KiB to 1 MiB and 20 reconnects. Every diff is answered, no file
 * descriptor or timer outlives the work, and the heap stays flat after the
 * warm-up (a looser bound than the full run's 10%: a short run has less to
 * average over).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSoak, soakVerdict } from '@ide-companion/testkit';

test('a compressed stretch of heavy editing: every diff answered, no descriptor or timer leaked, the heap flat', { timeout: 120_000 }, async (t) => {
  const result = await runSoak({ events: 100_000, diffs: 100, reconnects: 20, rounds: 5, log: (line) => t.diagnostic(line) });
  const verdict = soakVerdict(result);
  t.diagnostic(JSON.stringify({ ...verdict, durationMs: Math.round(result.durationMs), contextUpdates: result.contextUpdates }));
  assert.equal(result.eventsApplied, 100_000);
  assert.equal(result.diffsAnswered, 100);
  assert.equal(result.reconnects, 20);
  assert.ok(result.contextUpdates > 0, 'the client received context updates');
  assert.equal(verdict.fdsLeaked, 0, 'file descriptors after the work = after the warm-up');
  assert.deepEqual(verdict.resourcesLeaked, {}, 'no timer, socket or handle more than after the warm-up');
  assert.ok(verdict.heapGrowth < 1.25, `heap grew ${verdict.heapGrowth.toFixed(3)}x after the warm-up`);
});
