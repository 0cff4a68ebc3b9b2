#!/usr/bin/env node
/**
 * Context latency: how late the CLI hears about what the user does in the editor.
 *
 * An in-process Companion (@ide-companion/server) and a real MCP SDK client over
 * loopback HTTP with the bearer token, as Gemini CLI connects. Times are from the
 * tracker call (`companion.context.focus` / `setCursor`) to the arrival of the
 * `ide/contextUpdate` carrying that state in the client, both in this process.
 *
 * - isolated: one event, then a pause well past the coalescing window (150 ms);
 *   each cursor move is paired with one through the limit (bench/lib/bare-sse-server.mjs:
 *   a bare node:http SSE server writing the same notification at once, to a
 *   second client of the same kind), interleaved so machine noise hits both;
 * - bursts: many events close together, how many notifications they cost and
 *   how late the final state arrives after the last event.
 */
import { activeFileOf, connectClient, log, machine, makeFiles, runBench, sleep, startCompanion, summarize, withTimeout, scaled } from './lib/common.mjs';
import { NotificationLog } from './lib/notificationLog.mjs';
import { startBareSseServer } from './lib/bare-sse-server.mjs';
import { ContextUpdateNotification } from '@ide-companion/protocol';

const ISOLATED_SAMPLES = scaled(50, 3);
const PAUSE_MS = 150;
const BURST_ROUNDS = scaled(10, 2);
const SETTLE_MS = 250;
const WAIT_MS = 5_000;

runBench(async () => {
  const { companion, workspace, cleanup } = await startCompanion();
  const files = makeFiles(workspace, ISOLATED_SAMPLES + 1);
  const notifications = new NotificationLog();
  const connection = await connectClient({ port: companion.port, token: companion.authToken }, notifications.record);
  const bare = await startBareSseServer();
  const bareNotifications = new NotificationLog();
  const bareConnection = await connectClient(bare, bareNotifications.record);
  try {
    const isActive = (file) => (e) => e.method === ContextUpdateNotification.method && activeFileOf(e.params)?.path === file;
    const hasCursorLine = (file, line) => (e) => {
      const active = activeFileOf(e.params);
      return e.method === ContextUpdateNotification.method && active?.path === file && active.cursor?.line === line;
    };

    // Warm-up: JIT, sockets, the first snapshot.
    for (const file of files.slice(0, 5)) {
      const arrived = notifications.next(isActive(file));
      companion.context.focus(file);
      await withTimeout(arrived, WAIT_MS, 'a warm-up notification');
      await sleep(PAUSE_MS);
    }

    log(`isolated focus changes: ${ISOLATED_SAMPLES} samples, ${PAUSE_MS} ms apart`);
    const focusSamples = [];
    for (let i = 0; i < ISOLATED_SAMPLES; i++) {
      const file = files[(i + 1) % files.length];
      const arrived = notifications.next(isActive(file));
      const start = performance.now();
      companion.context.focus(file);
      const entry = await withTimeout(arrived, WAIT_MS, `the notification for focus #${i}`);
      focusSamples.push(entry.at - start);
      await sleep(PAUSE_MS);
    }

    log(`isolated cursor moves: ${ISOLATED_SAMPLES} samples, ${PAUSE_MS} ms apart`);
    const cursorFile = files[0];
    companion.context.focus(cursorFile, { cursor: { line: 1, character: 1 } });
    await sleep(PAUSE_MS);
    const cursorSamples = [];
    const limitSamples = [];
    const bareHasLine = (line) => (e) => activeFileOf(e.params)?.cursor?.line === line;
    for (let i = -5; i < ISOLATED_SAMPLES; i++) {
      // i < 0: warm-up of the limit's path
      const line = 2 + i + 5;
      if (i >= 0) {
        const arrived = notifications.next(hasCursorLine(cursorFile, line));
        const start = performance.now();
        companion.context.setCursor(cursorFile, { line, character: 1 });
        const entry = await withTimeout(arrived, WAIT_MS, `the notification for cursor move #${i}`);
        cursorSamples.push(entry.at - start);
        await sleep(PAUSE_MS);
      }
      // The same JSON through the limit: the companion's own snapshot, cursor on a line of its own.
      const params = companion.context.snapshot();
      activeFileOf(params).cursor = { line: 1_000_000 + i, character: 1 };
      const bareArrived = bareNotifications.next(bareHasLine(1_000_000 + i));
      const bareStart = performance.now();
      bare.notify(params);
      const bareEntry = await withTimeout(bareArrived, WAIT_MS, `the limit's notification #${i}`);
      if (i >= 0) limitSamples.push(bareEntry.at - bareStart);
      await sleep(PAUSE_MS);
    }

    /**
     * One burst of `count` cursor moves, `gapMs` apart (0: synchronous).
     * Returns the notifications it cost and how late the final state came.
     */
    let nextLine = 10_000;
    async function burst(count, gapMs) {
      const base = nextLine;
      nextLine += count + 1;
      const finalLine = base + count - 1;
      const arrived = notifications.next(hasCursorLine(cursorFile, finalLine));
      const first = performance.now();
      let last = first;
      for (let k = 0; k < count; k++) {
        if (gapMs > 0 && k > 0) await sleep(gapMs);
        last = performance.now();
        companion.context.setCursor(cursorFile, { line: base + k, character: 1 });
      }
      const final = await withTimeout(arrived, WAIT_MS, `the final state of a ${count}-event burst`);
      await sleep(SETTLE_MS); // anything still coming would be counted too
      const received = notifications.since(first);
      return {
        eventsSpanMs: last - first,
        notifications: received.length,
        finalLatencyMs: final.at - last,
        finalWasLast: received[received.length - 1] === final,
      };
    }

    async function burstSeries(label, count, gapMs, rounds) {
      log(`burst: ${label}, ${rounds} rounds`);
      const results = [];
      for (let r = 0; r < rounds; r++) {
        results.push(await burst(count, gapMs));
        await sleep(PAUSE_MS);
      }
      const counts = results.map((r) => r.notifications);
      return {
        events: count,
        gapMs,
        rounds,
        eventsSpanMs: summarize(results.map((r) => r.eventsSpanMs)),
        notificationsPerBurst: { min: Math.min(...counts), max: Math.max(...counts), all: counts },
        lastEventToFinalStateMs: summarize(results.map((r) => r.finalLatencyMs)),
        finalStateAlwaysLast: results.every((r) => r.finalWasLast),
      };
    }

    const bursts = {
      cursorMoves20Gap1ms: await burstSeries('20 cursor moves 1 ms apart', 20, 1, BURST_ROUNDS),
      synchronous100: await burstSeries('100 synchronous cursor moves', 100, 0, BURST_ROUNDS),
      sustained200Gap1ms: await burstSeries('200 cursor moves 1 ms apart (a held key)', 200, 1, 3),
    };

    return {
      bench: 'context-latency',
      machine: machine(),
      settings: { pauseBetweenIsolatedEventsMs: PAUSE_MS, coalescing: 'defaults (next turn, window 50 ms)' },
      isolatedFocusMs: summarize(focusSamples),
      isolatedCursorMoveMs: summarize(cursorSamples),
      limitIsolatedNotifyMs: summarize(limitSamples),
      isolatedCursorMoveP50VsLimit: {
        ratio: Math.round((summarize(cursorSamples).p50 / summarize(limitSamples).p50) * 100) / 100,
        goal: 1.5,
      },
      bursts,
      comparison: { officialCompanionIsolatedP50Ms: 52, note: 'trailing-only 50 ms debounce, measured (interop-notes.md)' },
    };
  } finally {
    await connection.close().catch(() => undefined);
    await bareConnection.close().catch(() => undefined);
    await bare.close();
    await cleanup();
  }
});
