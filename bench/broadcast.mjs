#!/usr/bin/env node
/**
 * Broadcast latency: one context change, 1, 8 or 32 CLI sessions connected.
 *
 * An in-process Companion and N real MCP SDK clients (each its own session and
 * GET stream) over loopback HTTP, all in this process. A round: focus a new
 * file, then time until the first and until the last session has the
 * `ide/contextUpdate` naming it. Rounds are spaced past the coalescing window.
 * Client-side parsing of N copies runs on the same thread, so the "all
 * sessions" figure includes it, as it would on a busy machine. The companion's
 * own share is measured apart, in the same rounds: the synchronous run of its
 * broadcast listener, bracketed by a context listener registered before the
 * companion starts (so runs before it) and one registered after.
 */
import { activeFileOf, connectClient, log, machine, makeFiles, runBench, sleep, startCompanion, summarize, withTimeout, scaled } from './lib/common.mjs';
import { NotificationLog } from './lib/notificationLog.mjs';
import { ContextUpdateNotification } from '@ide-companion/protocol';

const SESSION_COUNTS = [1, 8, 32];
const ROUNDS = scaled(30, 3);
const WARMUP_ROUNDS = scaled(3, 1);
const PAUSE_MS = 150;
const WAIT_MS = 10_000;

runBench(async () => {
  const { companion, workspace, cleanup } = await startCompanion({ start: false });
  // Listeners run in the order they were added: the companion adds its broadcast at start().
  let broadcastStart = 0;
  /** Where the next broadcast's duration goes (one sample, then disarmed). */
  let fanOutInto;
  companion.context.onDidChange(() => (broadcastStart = performance.now()));
  await companion.start();
  companion.context.onDidChange(() => {
    fanOutInto?.push(performance.now() - broadcastStart);
    fanOutInto = undefined;
  });
  const files = makeFiles(workspace, 16);
  const logs = [];
  const connections = [];
  let round = 0;
  try {
    const results = {};
    for (const sessions of SESSION_COUNTS) {
      while (connections.length < sessions) {
        const notifications = new NotificationLog();
        connections.push(await connectClient({ port: companion.port, token: companion.authToken }, notifications.record));
        logs.push(notifications);
      }
      const live = companion.sessionList.filter((s) => s.streamOpen).length;
      if (live !== sessions) throw new Error(`expected ${sessions} sessions with an open stream, the companion has ${live}`);
      log(`${sessions} session(s): ${ROUNDS} rounds`);
      const first = [];
      const all = [];
      // The companion's own share: per-session validation, serialisation and SSE
      // encoding are synchronous; the socket writes follow from the SDK's stream pump.
      const fanOut = [];
      for (let r = 0; r < WARMUP_ROUNDS + ROUNDS; r++) {
        const file = files[round++ % files.length];
        const arrivals = logs.map((l) => l.next((e) => e.method === ContextUpdateNotification.method && activeFileOf(e.params)?.path === file));
        fanOutInto = r >= WARMUP_ROUNDS ? fanOut : undefined;
        const start = performance.now();
        companion.context.focus(file);
        const entries = await withTimeout(Promise.all(arrivals), WAIT_MS, `the notification in all ${sessions} sessions`);
        if (r >= WARMUP_ROUNDS) {
          const times = entries.map((e) => e.at - start);
          first.push(Math.min(...times));
          all.push(Math.max(...times));
        }
        for (const l of logs) l.clear();
        await sleep(PAUSE_MS);
      }
      if (fanOut.length !== ROUNDS) throw new Error(`${fanOut.length} broadcasts timed in ${ROUNDS} rounds`);
      results[`sessions${sessions}`] = {
        sessions,
        firstSessionMs: summarize(first),
        allSessionsMs: summarize(all),
        companionFanOutSyncMs: summarize(fanOut),
      };
    }
    return {
      bench: 'broadcast',
      machine: machine(),
      settings: { rounds: ROUNDS, pauseMs: PAUSE_MS, coalescing: 'defaults (next turn, window 50 ms)' },
      results,
    };
  } finally {
    await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
    await cleanup();
  }
});
