#!/usr/bin/env node
/**
 * `ide-companion agent` (issue 38's budgets): how soon a chunk the agent streams is on the
 * terminal, and what the client holds when idle.
 *
 * - first chunk and every chunk: an ACP agent of the bench's (lib/acp-stream-agent.mjs) streams
 *   chunks, each carrying the wall-clock time it was written; the bench reads the command's
 *   stdout and takes, for each, the time it arrived minus the time it was sent (both
 *   processes read the same clock). Limit: 5 ms.
 * - idle RSS: the command's resident memory once the turn is over and the prompt waits,
 *   beside a bare Node process that has loaded the ACP SDK (@agentclientprotocol/sdk) and
 *   waits, measured in the same run. Limit: 1.3x.
 *
 * The command runs with --no-ide: the editor's side is the companion's, measured by the
 * other benches. Not measured: whether typing waits on a redraw (plain lines: the command
 * redraws nothing).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, machine, procStatusMiB, runBench, scaled, sleep, summarize, withTimeout } from './lib/common.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'packages', 'cli', 'bin', 'ide-companion.js');
const AGENT = path.join(ROOT, 'bench', 'lib', 'acp-stream-agent.mjs');
const TURNS = scaled(10, 2);
const CHUNKS = scaled(20, 5);
const PAUSE_MS = 20;
const LIMIT_MS = 5;
const RSS_LIMIT = 1.3;
const now = () => performance.timeOrigin + performance.now();

runBench(async () => {
  const child = spawn(process.execPath, [BIN, 'agent', '--no-ide', '--', process.execPath, AGENT, String(CHUNKS), String(PAUSE_MS)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  let out = '';
  const delays = [];
  const firsts = [];
  let waiter;
  child.stdout.setEncoding('utf8').on('data', (data) => {
    const arrived = now();
    out += data;
    for (const m of data.matchAll(/<mark:(\d+):(\d+\.\d+)>/g)) {
      const delay = arrived - Number(m[2]);
      delays.push(delay);
      if (m[1] === '0') firsts.push(delay);
    }
    waiter?.();
  });
  const waitOut = (re, what) =>
    withTimeout(
      new Promise((resolve) => {
        waiter = () => re.test(out) && resolve();
        waiter();
      }),
      30_000,
      what,
    );
  try {
    await waitOut(/\[agent: bench-agent/, 'the agent started');
    for (let turn = 0; turn < TURNS; turn++) {
      out = '';
      child.stdin.write('go\n');
      await waitOut(new RegExp(`<mark:${CHUNKS - 1}:[^>]*>[\\s\\S]*\\n> $`), `turn ${turn + 1} ended`);
      log(`turn ${turn + 1} of ${TURNS}`);
    }
    await sleep(1000);
    const agentRss = procStatusMiB(child.pid, ['VmRSS'])?.VmRSSMiB;
    const bare = await bareSdkRss();
    const ratio = agentRss && bare ? Math.round((agentRss / bare) * 100) / 100 : undefined;
    const chunk = summarize(delays);
    const first = summarize(firsts);
    return {
      bench: 'acp-agent',
      machine: machine(),
      settings: { turns: TURNS, chunksPerTurn: CHUNKS, pauseBetweenChunksMs: PAUSE_MS },
      firstChunkMs: { ...first, byTurn: firsts.map((d) => Math.round(d * 100) / 100) },
      everyChunkMs: chunk,
      limitMs: LIMIT_MS,
      chunkMet: first.max !== undefined && first.p99 <= LIMIT_MS && chunk.p99 <= LIMIT_MS,
      idleRssMiB: { agentCommand: agentRss, bareNodeWithSdk: bare, ratio, limit: RSS_LIMIT, met: ratio !== undefined && ratio <= RSS_LIMIT },
    };
  } finally {
    child.kill('SIGTERM');
  }
});

/** The resident memory of a bare Node process that has loaded the ACP SDK and waits. */
async function bareSdkRss() {
  const sdk = createRequire(path.join(ROOT, 'packages', 'client', 'package.json')).resolve('@agentclientprotocol/sdk');
  const bare = spawn(
    process.execPath,
    ['--input-type=module', '-e', `await import(${JSON.stringify(sdk)}); console.log('ready'); setInterval(() => {}, 1000);`],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    await withTimeout(new Promise((resolve) => bare.stdout.once('data', resolve)), 10_000, 'the bare SDK process');
    await sleep(1000);
    return procStatusMiB(bare.pid, ['VmRSS'])?.VmRSSMiB;
  } finally {
    bare.kill('SIGKILL');
  }
}
