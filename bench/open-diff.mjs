#!/usr/bin/env node
/**
 * openDiff round trip at 1 KiB, 1 MiB, 11 MiB and 32 MiB of `newContent`.
 *
 * The companion runs in its own process (bench/lib/accepting-companion.mjs: a
 * Companion whose editor calls `companion.diffs.accept(diff.id)` inside
 * `show()`), this process is the CLI: a real MCP SDK client over loopback HTTP
 * with the bearer token. Timed from `client.callTool(openDiff)`:
 * - to the editor's `showDiff()` in the companion (request sent, read, parsed, validated);
 * - to the tool's `content: []` answer;
 * - to the `ide/diffAccepted` notification, whose content must equal what was
 *   sent, byte for byte.
 * 11 MiB is the size the official companion's 10 MB body cap refuses (HTTP 413).
 * Also the companion process's CPU time per diff (utime+stime, so the client's
 * share is apart), its RSS and peak RSS (VmHWM) after the 32 MiB case, and its
 * RSS after a full GC. Then one 64 MiB openDiff, which must work byte for byte.
 *
 * The goal's figure, what one 32 MiB openDiff costs (at most 6x the body), is
 * measured first on a companion process of its own: 5 small diffs to warm it
 * up, its RSS, one 32 MiB openDiff, its peak RSS (VmHWM); then the same where
 * the file exists with 32 MiB (the companion reads it too). The timed runs' peak
 * after three 32 MiB diffs in a row is reported beside it: it also holds the
 * earlier diffs' garbage the GC had not yet collected.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connectClient, log, machine, makeTempDir, mib, procStatusMiB, processCpuMs, runBench, sleep, summarize, withTimeout, scaled } from './lib/common.mjs';
import { NotificationLog } from './lib/notificationLog.mjs';
import { DiffAcceptedNotification, OpenDiffTool } from '@ide-companion/protocol';

const KIB = 1024;
const MIB = 1024 * KIB;
const CASES = [
  { label: '1KiB', bytes: KIB, runs: scaled(30, 2) },
  { label: '1MiB', bytes: MIB, runs: scaled(10, 1) },
  { label: '11MiB', bytes: 11 * MIB, runs: scaled(3, 1) },
  { label: '32MiB', bytes: 32 * MIB, runs: scaled(3, 1) },
];
const CALL_TIMEOUT_MS = 300_000;
const COMPANION_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'lib', 'accepting-companion.mjs');

/**
 * Text of exactly `bytes` UTF-8 bytes that exercises JSON escaping and
 * multi-byte characters: quotes, backslashes, tabs, newlines, é (2 bytes), € (3), 🚀 (4).
 */
function makeContent(bytes, seed) {
  const line = `const s${seed} = "quote \\"q\\" back\\\\slash\ttab é € 🚀";\n`;
  const lineBytes = Buffer.byteLength(line);
  const body = line.repeat(Math.floor(bytes / lineBytes));
  return body + 'x'.repeat(bytes - Buffer.byteLength(body));
}

/** The companion child process, and the lines it prints. */
async function startCompanionProcess(tmpdir) {
  const child = spawn(process.execPath, ['--expose-gc', COMPANION_SCRIPT, tmpdir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const messages = new NotificationLog(); // reused: a log of the child's JSON lines
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    try {
      messages.record('line', JSON.parse(line), performance.now());
    } catch {
      log(`companion said: ${line}`);
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const died = exited.then(() => {
    throw new Error('the companion process exited before it was ready');
  });
  died.catch(() => {}); // it exits at the end too: only the race below cares
  const ready = await withTimeout(Promise.race([messages.next((e) => e.params.ready), died]), 30_000, 'the companion process');
  const { authToken } = JSON.parse(fs.readFileSync(ready.params.discoveryFile, 'utf8'));
  return {
    pid: child.pid,
    port: ready.params.port,
    token: authToken,
    messages,
    async gc() {
      const done = messages.next((e) => e.params.gc);
      child.stdin.write('gc\n');
      const { heapUsed, external, arrayBuffers } = (await withTimeout(done, 30_000, 'the companion GC')).params;
      return { heapUsedMiB: mib(heapUsed), externalMiB: mib(external), arrayBuffersMiB: mib(arrayBuffers) };
    },
    async stop() {
      child.stdin.end();
      await withTimeout(exited, 15_000, 'the companion process to stop').catch(() => child.kill('SIGKILL'));
    },
  };
}

/** A companion process and a connected client; `roundTrip(filePath, newContent)` runs one openDiff. */
async function startSetup(tmpPath) {
  const companion = await startCompanionProcess(tmpPath);
  const notifications = new NotificationLog();
  const { client, close } = await connectClient(companion, notifications.record);
  return {
    companion,
    close: async () => {
      await close().catch(() => undefined);
      await companion.stop();
    },
    roundTrip: (filePath, newContent) => roundTrip(companion, client, notifications, filePath, newContent),
  };
}

/**
 * One 32 MiB openDiff on a fresh companion process (warmed up by small ones):
 * the growth of its peak RSS. `original`: the file exists, with other 32 MiB
 * (the companion reads it for the editor to show beside the proposal).
 */
async function oneOpenDiffMemory(tmpPath, original) {
  const { companion, close, roundTrip } = await startSetup(tmpPath);
  try {
    for (let i = 0; i < 5; i++) await roundTrip(path.join(tmpPath, 'warmup.txt'), makeContent(KIB, i));
    await sleep(200);
    const filePath = path.join(tmpPath, original ? 'existing-32MiB.txt' : 'new-32MiB.txt');
    if (original) fs.writeFileSync(filePath, makeContent(32 * MIB, 1));
    const before = procStatusMiB(companion.pid);
    const r = await roundTrip(filePath, makeContent(32 * MIB, 0));
    const after = procStatusMiB(companion.pid);
    const ratio = after && before ? Math.round(((after.VmHWMMiB - before.VmRSSMiB) / 32) * 100) / 100 : undefined;
    return { before, after, ratio, contentMatches: r.contentMatches };
  } finally {
    await close();
    fs.rmSync(path.join(tmpPath, 'existing-32MiB.txt'), { force: true });
  }
}

runBench(async () => {
  const tmp = makeTempDir();
  log('one 32 MiB openDiff on a fresh companion process: its peak RSS growth (a new file, then an existing 32 MiB one)');
  const one = await oneOpenDiffMemory(tmp.path, false);
  const oneOverExisting = await oneOpenDiffMemory(tmp.path, true);
  const { companion, close, roundTrip } = await startSetup(tmp.path);
  const rssBefore = procStatusMiB(companion.pid);
  try {
    const results = {};
    // Warm-up with small diffs so the first timed 1 KiB run is not the JIT's.
    for (let i = 0; i < 5; i++) await roundTrip(path.join(tmp.path, 'warmup.txt'), makeContent(KIB, i));

    for (const { label, bytes, runs } of CASES) {
      log(`openDiff ${label}: ${runs} runs`);
      const toShow = [];
      const toAnswer = [];
      const toAccepted = [];
      let contentMatches = true;
      const cpuBefore = processCpuMs(companion.pid);
      for (let i = 0; i < runs; i++) {
        const r = await roundTrip(path.join(tmp.path, `file-${label}.txt`), makeContent(bytes, i));
        toShow.push(r.showMs);
        toAnswer.push(r.answerMs);
        toAccepted.push(r.acceptedMs);
        contentMatches &&= r.contentMatches;
        await sleep(50);
      }
      const companionCpuMsPerDiff = (processCpuMs(companion.pid) - cpuBefore) / runs;
      results[label] = {
        newContentBytes: bytes,
        requestBodyMiB: mib(Buffer.byteLength(JSON.stringify(makeContent(bytes, 0)))),
        callToDiffViewShowMs: summarize(toShow),
        callToAnswerMs: summarize(toAnswer),
        callToDiffAcceptedMs: summarize(toAccepted),
        acceptedContentByteIdentical: contentMatches,
        companionCpuMsPerDiff: Math.round(companionCpuMsPerDiff),
      };
      if (!contentMatches) log(`MISMATCH: accepted content differs from what was sent (${label})`);
    }
    const after32MiB = procStatusMiB(companion.pid);
    // Three 32 MiB diffs in a row (the first cases' peaks are lower): the first's garbage may still be there.
    const peakGrowth32 = after32MiB && rssBefore ? (after32MiB.VmHWMMiB - rssBefore.VmRSSMiB) / 32 : undefined;
    log('openDiff 64MiB: 1 run (works, byte for byte; after the memory figures so they stay those of 32 MiB)');
    const big = await roundTrip(path.join(tmp.path, 'file-64MiB.txt'), makeContent(64 * MIB, 0));
    results['64MiB'] = { newContentBytes: 64 * MIB, callToDiffAcceptedMs: Math.round(big.acceptedMs), acceptedContentByteIdentical: big.contentMatches };
    await sleep(1_000);
    const heapAfterGc = await companion.gc();
    const afterGc = { ...procStatusMiB(companion.pid, ['VmRSS']), ...heapAfterGc };
    return {
      bench: 'open-diff',
      machine: machine(),
      setup: 'companion and client in separate processes (bench/lib/accepting-companion.mjs), loopback HTTP',
      cases: results,
      companionProcessMemory: {
        peakGrowthPer32MiBBody: {
          ratio: one.ratio,
          goal: 6,
          measured: 'one 32 MiB openDiff on a fresh companion process, after 5 small ones: (VmHWM after - VmRSS before) / 32 MiB',
          beforeMiB: one.before,
          afterMiB: one.after,
          acceptedContentByteIdentical: one.contentMatches,
        },
        peakGrowthPer32MiBBodyOverExisting32MiBFile: {
          ratio: oneOverExisting.ratio,
          goal: 6,
          measured: 'the same, the file existing with other 32 MiB (read to show beside the proposal)',
          beforeMiB: oneOverExisting.before,
          afterMiB: oneOverExisting.after,
          acceptedContentByteIdentical: oneOverExisting.contentMatches,
        },
        timedRuns: {
          beforeMiB: rssBefore,
          after32MiBCaseMiB: after32MiB,
          peakGrowthAfterThree32MiBDiffsPer32MiB: peakGrowth32 === undefined ? undefined : Math.round(peakGrowth32 * 100) / 100,
          after1sAndFullGcMiB: afterGc,
        },
      },
      comparison: { officialCompanion: 'a 10 MB request-body cap: an 11 MiB openDiff gets HTTP 413 (interop-notes.md)' },
    };
  } finally {
    await close();
    tmp.cleanup();
  }
});

async function roundTrip(companion, client, notifications, filePath, newContent) {
  const accepted = notifications.next((e) => e.method === DiffAcceptedNotification.method && e.params?.filePath === filePath);
  const shown = companion.messages.next((e) => e.params.shown === filePath);
  const startEpoch = performance.timeOrigin + performance.now();
  const start = performance.now();
  const result = await client.callTool({ name: OpenDiffTool.name, arguments: { filePath, newContent } }, undefined, {
    timeout: CALL_TIMEOUT_MS,
  });
  const answeredAt = performance.now();
  if (result.isError || !Array.isArray(result.content) || result.content.length !== 0) {
    throw new Error(`openDiff answered ${JSON.stringify(result).slice(0, 300)}`);
  }
  const entry = await withTimeout(accepted, CALL_TIMEOUT_MS, DiffAcceptedNotification.method);
  const shownEntry = await withTimeout(shown, 10_000, 'the companion to report show()');
  const contentMatches = Buffer.from(newContent, 'utf8').equals(Buffer.from(entry.params.content, 'utf8'));
  notifications.clear(); // the bench must not be what holds the big strings
  companion.messages.clear();
  return {
    showMs: shownEntry.params.at - startEpoch,
    answerMs: answeredAt - start,
    acceptedMs: entry.at - start,
    contentMatches,
  };
}
