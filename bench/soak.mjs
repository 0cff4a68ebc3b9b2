#!/usr/bin/env node
/**
 * A day of heavy editing, compressed (issue 21): one companion process with a
 * real MCP SDK client connected, one million editor events, a thousand
 * openDiff calls of 1 KiB to 1 MiB (log-spread, each accepted by the editor
 * and answered by ide/diffAccepted) and a hundred closed and reopened sessions,
 * interleaved over 10 rounds (testkit's soak.ts). After each round the
 * companion reports its heap after a full GC, RSS, open descriptors
 * (/proc/self/fd) and active resources; the first fifth is the warm-up.
 * Goals: heap and RSS within 10% of the warm-up's end, every diff answered,
 * no descriptor or resource (timers, sockets) more at the end.
 */
import { runSoak, soakVerdict } from '@ide-companion/testkit';
import { log, machine, ms, runBench, scaled } from './lib/common.mjs';

const GROWTH_GOAL = 1.1;

runBench(async () => {
  const options = {
    events: scaled(1_000_000, 20_000),
    diffs: scaled(1000, 20),
    reconnects: scaled(100, 4),
    rounds: scaled(10, 5),
  };
  log(`${options.events} events, ${options.diffs} diffs, ${options.reconnects} reconnects over ${options.rounds} rounds`);
  const result = await runSoak({ ...options, log });
  const verdict = soakVerdict(result);
  const mib = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
  return {
    machine: machine(),
    options,
    durationMs: ms(result.durationMs),
    diffs: { sent: result.diffsSent, answered: result.diffsAnswered, mib: mib(result.diffBytes) },
    contextUpdates: result.contextUpdates,
    reconnects: result.reconnects,
    samples: result.samples.map((s) => ({ heapMiB: mib(s.heapUsed), rssMiB: mib(s.rss), fds: s.fds, resources: s.resources })),
    verdict: { ...verdict, heapGrowth: ms(verdict.heapGrowth), rssGrowth: ms(verdict.rssGrowth) },
    goal: { growth: GROWTH_GOAL },
    met: {
      heap: verdict.heapGrowth <= GROWTH_GOAL,
      rss: verdict.rssGrowth <= GROWTH_GOAL,
      everyDiffAnswered: result.diffsAnswered === result.diffsSent,
      noLeaks: verdict.fdsLeaked <= 0 && Object.keys(verdict.resourcesLeaked).length === 0,
    },
  };
});
