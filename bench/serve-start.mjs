#!/usr/bin/env node
/**
 * `ide-companion serve` as a process: how fast it is ready, and what it costs idle.
 *
 * - start: from spawn to a complete discovery file in TMPDIR/gemini/ide (TMPDIR a
 *   private temp dir), over 15 runs of each target, interleaved (serve, the
 *   baseline, the limit, then again), each stopped with SIGTERM (which must
 *   remove the file; the time to exit is reported too);
 * - idle: RSS (VmRSS) after ~3 s idle, CPU time (utime+stime from /proc/PID/stat)
 *   and voluntary context switches (wake-ups) over 5 s, first with no client,
 *   then with one idle MCP SDK client connected.
 * The same figures for a bare in-process Companion script (bench/lib/bare-companion.mjs)
 * are the baseline: the difference is what serve itself adds. The limit: a bare
 * node:http server that writes the same discovery file (bench/lib/bare-discovery-server.mjs);
 * `vsLimit` has the ratios (goals: start p50 at most 1.3x, idle RSS at most 1.2x). And, to see where
 * start time goes, spawn-to-exit of an empty node and of a node that only
 * imports @ide-companion/server (the MCP SDK and zod).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CPU_TICK_MS,
  connectClient,
  log,
  machine,
  makeTempDir,
  ms,
  processCpuMs,
  runBench,
  skipBench,
  sleep,
  summarize,
  withTimeout,
  scaled,
} from './lib/common.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(root, 'packages/cli/bin/ide-companion.js');
const BARE = path.join(root, 'bench/lib/bare-companion.mjs');
const LIMIT = path.join(root, 'bench/lib/bare-discovery-server.mjs');
const RUNS = scaled(15, 1);
const START_TIMEOUT_MS = 20_000;
const IDLE_SETTLE_MS = scaled(3_000, 300);
const CPU_WINDOW_MS = scaled(5_000, 500);

const TARGETS = {
  serve: (workspace) => [CLI, 'serve', '--workspace', workspace, '--no-color'],
  bareCompanion: (workspace) => [BARE, workspace],
  limit: (workspace) => [LIMIT, workspace],
};

function serveAvailable() {
  const r = spawnSync(process.execPath, [CLI, 'serve', '--help'], { encoding: 'utf8', timeout: 20_000 });
  return r.status === 0 && r.stdout.includes('serve');
}

/** A private TMPDIR and workspace, and the target spawned in them. */
function launch(target) {
  const tmp = makeTempDir('ide-companion-bench-serve-');
  const tmpdir = path.join(tmp.path, 'tmp');
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(tmpdir);
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'main.ts'), 'export {};\n');
  const discoveryDir = path.join(tmpdir, 'gemini', 'ide');
  const startedAt = performance.now();
  const child = spawn(process.execPath, TARGETS[target](workspace), {
    cwd: workspace,
    env: { ...process.env, TMPDIR: tmpdir, NO_COLOR: '1' },
    stdio: ['pipe', 'pipe', 'pipe'], // stdin stays open, as a terminal's would
  });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })));
  return { child, startedAt, discoveryDir, workspace, exited, output: () => output, cleanup: tmp.cleanup };
}

/** Polls (1 ms) until a discovery file in `dir` parses; its content and when. */
async function waitForDiscoveryFile(run) {
  const deadline = performance.now() + START_TIMEOUT_MS;
  let exited = false;
  run.exited.then(() => (exited = true));
  while (performance.now() < deadline && !exited) {
    let names = [];
    try {
      names = fs.readdirSync(run.discoveryDir).filter((n) => n.startsWith('gemini-ide-server-') && n.endsWith('.json'));
    } catch {
      // not created yet
    }
    for (const name of names) {
      const file = path.join(run.discoveryDir, name);
      try {
        const content = JSON.parse(fs.readFileSync(file, 'utf8'));
        if (typeof content.port === 'number' && typeof content.authToken === 'string') return { at: performance.now(), file, content };
      } catch {
        // half written: poll again
      }
    }
    await sleep(1);
  }
  throw new Error(`no discovery file within ${START_TIMEOUT_MS} ms${exited ? ' (the process exited)' : ''}; output:\n${run.output()}`);
}

async function stop(run) {
  const sentAt = performance.now();
  run.child.kill('SIGTERM');
  const exit = await withTimeout(run.exited, 10_000, 'the process to exit after SIGTERM').catch((err) => {
    run.child.kill('SIGKILL');
    throw err;
  });
  return exit.at - sentAt;
}

/**
 * Start times of every target, the runs interleaved (one start of each per round,
 * one at a time), so a change of load on a shared machine hits all alike.
 */
async function startTimes(targets) {
  log(`${targets.join(', ')}: ${RUNS} starts each, interleaved (+1 warm-up round)`);
  const samples = Object.fromEntries(targets.map((t) => [t, { toFile: [], toExit: [], fileRemovedOnSigterm: true }]));
  for (let i = 0; i <= RUNS; i++) {
    for (const target of targets) {
      const s = samples[target];
      const run = launch(target);
      try {
        const found = await waitForDiscoveryFile(run);
        const exitMs = await stop(run);
        if (fs.existsSync(found.file)) s.fileRemovedOnSigterm = false;
        if (i > 0) {
          s.toFile.push(found.at - run.startedAt);
          s.toExit.push(exitMs);
        }
      } finally {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
        run.cleanup();
      }
    }
  }
  return Object.fromEntries(
    targets.map((t) => [
      t,
      {
        spawnToDiscoveryFileMs: summarize(samples[t].toFile),
        sigtermToExitMs: summarize(samples[t].toExit),
        discoveryFileRemovedOnSigterm: samples[t].fileRemovedOnSigterm,
      },
    ]),
  );
}

/** Spawn-to-exit of `node ARGS`, for what a bare node and the server package's imports cost. */
async function spawnToExit(args) {
  const samples = [];
  for (let i = 0; i <= RUNS; i++) {
    const start = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'ignore' });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}`);
    if (i > 0) samples.push(performance.now() - start);
  }
  return summarize(samples);
}

function procStatus(pid) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1]);
  return { rssKiB: field('VmRSS'), voluntarySwitches: field('voluntary_ctxt_switches'), involuntarySwitches: field('nonvoluntary_ctxt_switches') };
}

async function idleFigures(pid) {
  await sleep(IDLE_SETTLE_MS);
  const before = procStatus(pid);
  const cpuBefore = processCpuMs(pid);
  await sleep(CPU_WINDOW_MS);
  const cpuAfter = processCpuMs(pid);
  const after = procStatus(pid);
  const cpu = cpuAfter - cpuBefore;
  return {
    rssMiB: Math.round((before.rssKiB / 1024) * 10) / 10,
    cpuMsOver5s: ms(cpu),
    cpuPercent: Math.round((cpu / CPU_WINDOW_MS) * 100 * 100) / 100,
    wakeupsOver5s: after.voluntarySwitches - before.voluntarySwitches,
    clockTickMs: CPU_TICK_MS,
  };
}

async function idle(target) {
  log(`${target}: idle RSS and CPU (${IDLE_SETTLE_MS / 1000} s settle + ${CPU_WINDOW_MS / 1000} s window, twice)`);
  const run = launch(target);
  try {
    const found = await waitForDiscoveryFile(run);
    const pid = run.child.pid;
    const noClient = await idleFigures(pid);
    const connection = await connectClient({ port: found.content.port, token: found.content.authToken });
    const oneClient = await idleFigures(pid);
    await connection.close().catch(() => undefined);
    return { noClient, oneIdleClient: oneClient };
  } finally {
    await stop(run).catch(() => undefined);
    run.cleanup();
  }
}

runBench(async () => {
  if (process.platform !== 'linux') skipBench('needs /proc (Linux)');
  if (!serveAvailable()) skipBench(`'ide-companion serve --help' failed: build the CLI (npx tsc -b) first`);
  const starts = await startTimes(Object.keys(TARGETS));
  const results = {};
  for (const target of Object.keys(TARGETS)) results[target] = { ...starts[target], idle: await idle(target) };
  log(`where start time goes: node alone, node importing @ide-companion/server (${RUNS} runs each)`);
  const startCost = {
    nodeEmptyScriptMs: await spawnToExit(['-e', '']),
    nodeImportServerPackageMs: await spawnToExit(['--input-type=module', '-e', "await import('@ide-companion/server')"]),
  };
  const ratio = (a, b) => Math.round((a / b) * 100) / 100;
  const vsLimit = {
    startP50: { ratio: ratio(results.serve.spawnToDiscoveryFileMs.p50, results.limit.spawnToDiscoveryFileMs.p50), goal: 1.3 },
    idleRssNoClient: { ratio: ratio(results.serve.idle.noClient.rssMiB, results.limit.idle.noClient.rssMiB), goal: 1.2 },
    idleRssOneClient: { ratio: ratio(results.serve.idle.oneIdleClient.rssMiB, results.limit.idle.oneIdleClient.rssMiB), goal: 1.2 },
  };
  return {
    bench: 'serve-start',
    vsLimit,
    machine: machine(),
    command: 'node packages/cli/bin/ide-companion.js serve --workspace DIR --no-color (TMPDIR private, stdin an open pipe)',
    baseline: 'bareCompanion = node bench/lib/bare-companion.mjs DIR: a Companion and nothing else',
    limitIs: 'node bench/lib/bare-discovery-server.mjs DIR: node:http and the discovery file',
    ...results,
    startCost,
  };
});
