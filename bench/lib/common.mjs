/**
 * Shared by the benchmarks (this folder is not a bench: run-all only runs `bench/*.mjs`).
 * Every bench prints ONE JSON object to stdout (`printResult`) and its progress to stderr (`log`).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod/mini';
import { startTestCompanion } from '@ide-companion/server/testing';
import { makeTempDir as makeTestkitTempDir } from '@ide-companion/testkit';
import { ContextUpdateNotification, DiffAcceptedNotification, DiffClosedNotification, DiffRejectedNotification } from '@ide-companion/protocol';

export { sleep };

/**
 * Quick mode (BENCH_QUICK=1, set by `run-all.mjs --quick`): every bench runs
 * end to end with a few samples, so CI sees that none has rotted. Its figures
 * mean nothing; nothing is asserted on them.
 */
export const QUICK = process.env['BENCH_QUICK'] === '1';

/** `full` normally, `quick` in quick mode. */
export function scaled(full, quick) {
  return QUICK ? quick : full;
}

const benchName = path.basename(process.argv[1] ?? 'bench', '.mjs');

/** Progress, to stderr so stdout stays one JSON object. */
export function log(message) {
  process.stderr.write(`[${benchName}] ${message}\n`);
}

/** The bench's one result: pretty JSON on stdout. */
export function printResult(result) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

/**
 * A bench whose external program is missing: records why and exits 0.
 * run-all reports `{ "skipped": reason }` for it.
 */
export function skipBench(reason) {
  printResult({ skipped: reason });
  process.exit(0);
}

/** Milliseconds rounded to microseconds, so the JSON stays readable. */
export function ms(value) {
  return Math.round(value * 1000) / 1000;
}

/** Nearest-rank percentile of already sorted numbers. */
function percentile(sorted, p) {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** n, min, p50, p90, p99, max and mean of a list of milliseconds. */
export function summarize(samples) {
  if (samples.length === 0) return { n: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return {
    n: sorted.length,
    min: ms(sorted[0]),
    p50: ms(percentile(sorted, 50)),
    p90: ms(percentile(sorted, 90)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted[sorted.length - 1]),
    mean: ms(mean),
  };
}

export function mib(bytes) {
  return Math.round((bytes / (1024 * 1024)) * 10) / 10;
}

/** Fields of /proc/PID/status in MiB (VmRSS, VmHWM...), or undefined off Linux. */
export function procStatusMiB(pid = process.pid, fields = ['VmRSS', 'VmHWM']) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const out = {};
  for (const field of fields) {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    if (match) out[`${field}MiB`] = mib(Number(match[1]) * 1024);
  }
  return out;
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/** Resolution of processCpuMs. */
export const CPU_TICK_MS = 1000 / CLOCK_TICKS;

/** utime + stime of `pid` in ms (from /proc/PID/stat, so one tick of resolution). */
export function processCpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name may hold spaces
  return (Number(fields[11]) + Number(fields[12])) * CPU_TICK_MS;
}

/** The machine the figures come from, and how busy it was (the load average, when the result is taken). */
export function machine() {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model,
    loadAverage1m: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

/** A fresh real-path temp dir and its removal (testkit's, with the benches' prefix). */
export function makeTempDir(prefix = 'ide-companion-bench-') {
  return makeTestkitTempDir(prefix);
}

/** `count` real files in `dir` (the tracker only reports files that exist on disk). */
export function makeFiles(dir, count, prefix = 'file') {
  const files = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(dir, `${prefix}${i}.ts`);
    fs.writeFileSync(file, `export const n = ${i};\n`);
    files.push(file);
  }
  return files;
}

/** An in-process Companion in a private temp dir, as an editor adapter would start it (no diff view). */
export function startCompanion(options = {}) {
  return startTestCompanion({ ideInfo: { name: 'bench-ide', displayName: 'Bench IDE' }, editor: undefined, ...options });
}

const NOTIFICATION_METHODS = [
  ContextUpdateNotification.method,
  DiffAcceptedNotification.method,
  DiffRejectedNotification.method,
  DiffClosedNotification.method,
];

/**
 * A real MCP SDK client (the transport Gemini CLI uses) with the bearer token.
 * `onNotification(method, params, at)` is called on arrival, `at` from performance.now().
 * Resolves once the companion's first ide/contextUpdate arrived, i.e. the GET stream is open.
 */
export async function connectClient({ port, token }, onNotification = () => {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'streamable-http-client', version: 'bench' });
  let streamOpen;
  const firstContext = new Promise((resolve) => (streamOpen = resolve));
  for (const method of NOTIFICATION_METHODS) {
    const schema = z.object({ method: z.literal(method), params: z.optional(z.record(z.string(), z.unknown())) });
    client.setNotificationHandler(schema, (n) => {
      const at = performance.now();
      if (method === ContextUpdateNotification.method) streamOpen();
      onNotification(method, n.params, at);
    });
  }
  await client.connect(transport);
  await withTimeout(firstContext, 10_000, 'the first ide/contextUpdate');
  return { client, close: () => client.close() };
}

/** The active file's path in an ide/contextUpdate's params. */
export function activeFileOf(params) {
  return params?.workspaceState?.openFiles?.find((f) => f.isActive);
}

export function withTimeout(promise, timeoutMs, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs `main`, prints its result, and makes sure the process ends (a bench stops by itself). */
export function runBench(main) {
  main().then(
    (result) => {
      printResult(result);
      process.exit(0);
    },
    (err) => {
      process.stderr.write(`[${benchName}] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
