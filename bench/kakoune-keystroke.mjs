#!/usr/bin/env node
// bench-requires: kak tmux editors/jsonlines/host/ide-companion-bridge.mjs
/**
 * Keystroke cost of the Kakoune plugin: what it adds to each cursor move, in a
 * real Kakoune (in tmux) with and without the plugin (with: the companion
 * running and a real MCP client connected). The plugin reacts to idle hooks
 * only, so a move costs it nothing until the user pauses; here every move is
 * reported, as when keys come slower than Kakoune's idle_timeout (50 ms): each
 * `execute-keys` move is followed by `ide-pos`, what the NormalIdle hook runs
 * (a `nop` command of that name without the plugin). Both sides run the same
 * command string, sent in one `kak -p`; rounds alternate between them.
 *
 * - cursorMovedUs: Kakoune's CPU time (utime + stime from /proc, read after a
 *   200 ms pause) per reported move; addedPerCursorMoveUs = with - without,
 *   next to its limit (20 µs).
 * - burstMoveUs: the same moves without ide-pos (keys faster than
 *   idle_timeout: the plugin runs nothing).
 *
 * Prints one JSON object; timing belongs here, not in the tests.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@ide-companion/testkit';
import { connectClient, log, machine, processCpuMs, runBench, sleep, withTimeout, scaled } from './lib/common.mjs';
import { addedByPlugin, alternateRounds } from './lib/keystroke.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { startKak, RC } = await import(path.join(root, 'editors', 'kakoune', 'dist', 'test', 'driver.js'));

// CPU time is counted in 10 ms ticks: even the quick run needs thousands of moves.
const MOVES = scaled(20_000, 2_000);
const ROUNDS = scaled(3, 1);
const SETTLE_MS = 200;
const LIMIT_US = 20;
const lines = Array.from({ length: 100 }, (_, i) => `line ${i}: héllo wörld 😀 const value = compute(${i});`);

async function start(withPlugin) {
  const s = await startKak(
    { 'big.txt': `${lines.join('\n')}\n` },
    {
      open: ['big.txt'],
      command: (session) => `kak -n -s ${session} -e ${withPlugin ? `'source ''${RC}''; ide-start'` : `'define-command ide-pos nop'`}`,
    },
  );
  s.withPlugin = withPlugin;
  s.pid = Number((await s.read('%sh{echo $PPID}'))[0]);
  if (withPlugin) {
    const dir = path.join(s.tmp, 'gemini', 'ide');
    const file = await waitFor(() => (fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.json')) : undefined), 'the discovery file', 30_000);
    const content = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    s.client = await connectClient({ port: content.port, token: content.authToken });
  }
  return s;
}

/** CPU µs per move of one loop (each reported with ide-pos, or not). */
async function loop(s, reported) {
  const moves = Array.from({ length: MOVES }, (_, i) => `execute-keys ${i % 2 ? 'k' : 'j'}${reported ? '; ide-pos' : ''}`).join('\n');
  const cpu0 = processCpuMs(s.pid);
  s.run(`${moves}\necho -to-file ${path.join(s.tmp, 'done')} done`);
  await waitFor(() => fs.existsSync(path.join(s.tmp, 'done')), 'the moves', 120_000, 20);
  fs.rmSync(path.join(s.tmp, 'done'));
  await sleep(SETTLE_MS);
  return ((processCpuMs(s.pid) - cpu0) * 1000) / MOVES;
}

async function round(s, samples) {
  samples.cursor.push(await loop(s, true));
  samples.burst.push(await loop(s, false));
}

async function measure() {
  log('starting Kakoune without the plugin, and with it (companion running, a client connected)');
  const without = await start(false);
  const withPlugin = await start(true).catch(async (err) => {
    await without.close();
    throw err;
  });
  try {
    return await alternateRounds({ without, withPlugin, rounds: ROUNDS, kinds: ['cursor', 'burst'], round });
  } finally {
    await withPlugin.client?.close();
    await withPlugin.close();
    await without.close();
  }
}

runBench(async () => {
  const { without, with: withPlugin } = await withTimeout(measure(), 600_000, 'the runs');
  const added = addedByPlugin({ ...without, pacedMoveUs: 0, visualMoveUs: 0 }, { ...withPlugin, pacedMoveUs: 0, visualMoveUs: 0 }, LIMIT_US);
  return {
    machine: machine(),
    loadavg1m: Math.round(os.loadavg()[0] * 100) / 100,
    kakoune: 'Debian 2022.10.31',
    moves: MOVES,
    rounds: ROUNDS,
    without,
    with: withPlugin,
    addedPerCursorMoveUs: added.addedPerCursorMoveUs,
    ratio: added.ratio,
    limitAddedPerCursorMoveUs: LIMIT_US,
    withinLimit: added.withinLimit,
    addedPerBurstMoveUs: added.addedPerBurstMoveUs,
  };
});
