#!/usr/bin/env node
// bench-requires: vim tmux editors/jsonlines/host/ide-companion-bridge.mjs
/**
 * Keystroke cost of the Vim plugin: what it adds to each cursor move, measured
 * in a real Vim (in tmux, with a terminal) with and without the plugin (with:
 * the companion running and a real MCP client connected, as when Gemini CLI is
 * attached). Both Vims run at once and the rounds alternate between them, so a
 * change of load on a shared machine hits both alike. Loops run inside Vim,
 * started over the harness's control channel so Vim stays in the mode under
 * test. Both Vims have one trivial CursorMoved autocmd of the bench's own, so
 * `doautocmd` has something to run without the plugin too (else Vim prints
 * "No matching autocommands" on every move, which a real Vim never pays).
 *
 * - cursorMovedUs: cursor() + `doautocmd CursorMoved`, and with the plugin
 *   each move also reported as its coalescing timer reports it (the timer
 *   stopped and its flush run at once, once per move: the cost of a move
 *   when every move is reported, as when keys come slower than
 *   'ide_companion_cursor_delay', 10 ms). The figure is Vim's CPU time
 *   (utime + stime from /proc, read before the loop and after a 200 ms pause,
 *   so work left for later, such as a channel write that had to wait, is
 *   counted too), which other processes do not inflate; cursorMovedWallUs is
 *   the loop's wall time (reltime()). addedPerCursorMoveUs = with - without,
 *   next to its limit (20 µs).
 * - pacedMoveUs: moves one per 3 ms timer, the plugin's
 *   'ide_companion_cursor_delay' set to 1 ms, so its real timer fires between
 *   moves on a wake-up of its own, as between keys. CPU time.
 * - burstMoveUs: the same moves without the explicit flush (back to back, as
 *   a held key: the timer coalesces them into one report), CPU time.
 * - visualMoveUs: reported moves in linewise Visual mode over a 10 000-line
 *   selection (the flush sends its range; the host reads the text at most
 *   once per context update), CPU time, next to its limit (50 µs).
 *
 * Prints one JSON object; timing belongs here, not in the tests.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@ide-companion/testkit';
import { connectClient, log, machine, processCpuMs, runBench, sleep, withTimeout, scaled } from './lib/common.mjs';
import { addedByPlugin, alternateRounds } from './lib/keystroke.mjs';
import { ContextUpdateNotification } from '@ide-companion/protocol';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { startVim } = await import(path.join(root, 'editors', 'vim', 'dist', 'test', 'harness.js'));

const MOVES = scaled(20_000, 200);
const VISUAL_MOVES = scaled(2_000, 20);
const ROUNDS = scaled(3, 1);
const LINES = 10_000;
/** Issue 28's budgets: a cursor move, a Visual-mode move (its selection sent as a range). */
const LIMIT_US = 20;
const VISUAL_LIMIT_US = 50;
const SETTLE_MS = 200;
const PACED_MOVES = scaled(2_000, 20);
/** Paced moves: one every STEP_MS, the plugin's timer set to DELAY_MS so it fires between them. */
const STEP_MS = 3;
const DELAY_MS = 1;

const BENCH_VIM = `
augroup bench
  autocmd!
  autocmd CursorMoved * let g:bench_moved = 1
augroup END
" far: near the end of the file, so a selection from line 1 spans all of it.
" report: also run what the plugin's timer runs, once per move.
function! BenchMoves(n, far, report) abort
  let last = line('$')
  let start = reltime()
  for i in range(a:n)
    call cursor(a:far ? last - (i % 50) : (i % 50) + 1, (i % 20) + 1)
    doautocmd <nomodeline> CursorMoved
    if a:report
      call ide_companion#context#flush_now()
    endif
  endfor
  return reltimefloat(reltime(start)) * 1000000.0 / a:n
endfunction
" Paced: one move per STEP_MS timer, so the plugin's own timer (its delay set
" shorter) fires between moves, on a wake-up of its own, as between keys.
function! BenchPaced(n) abort
  let s:left = a:n
  let g:bench_done = 0
  call timer_start(${STEP_MS}, function('s:Step'))
endfunction
function! s:Step(timer) abort
  if s:left <= 0
    let g:bench_done = 1
    return
  endif
  let s:left -= 1
  call cursor((s:left % 50) + 1, (s:left % 20) + 1)
  doautocmd <nomodeline> CursorMoved
  call timer_start(${STEP_MS}, function('s:Step'))
endfunction
`;

async function start(withPlugin) {
  const lines = [];
  for (let i = 0; i < LINES; i++) lines.push(`line ${i}: héllo wörld 😀 const value = compute(${i});`);
  const benchFile = path.join(os.tmpdir(), `ide-companion-bench-vim-${process.pid}-${withPlugin}.vim`);
  fs.writeFileSync(benchFile, BENCH_VIM);
  const s = await startVim({
    files: { 'big.txt': `${lines.join('\n')}\n` },
    open: ['big.txt'],
    vimrc: [`source ${benchFile}`, ...(withPlugin ? [`let g:ide_companion_cursor_delay = ${DELAY_MS}`] : ['let g:loaded_ide_companion = 1'])],
    waitForCompanion: withPlugin,
  });
  fs.rmSync(benchFile, { force: true });
  s.updates = 0;
  s.withPlugin = withPlugin;
  if (withPlugin) {
    try {
      const { content } = await s.discovery();
      s.client = await connectClient({ port: content.port, token: content.authToken }, (method) => {
        if (method === ContextUpdateNotification.method) s.updates++;
      });
    } catch (err) {
      await s.close();
      throw err;
    }
  }
  return s;
}

/** [CPU µs, wall µs] per move of one loop, the CPU read after a pause (work left for later counts). */
async function moveLoop(s, n, far, report) {
  const cpu0 = processCpuMs(s.pid);
  const wall = await s.expr(`BenchMoves(${n}, ${far ? 1 : 0}, ${report && s.withPlugin ? 1 : 0})`);
  await sleep(SETTLE_MS);
  return [((processCpuMs(s.pid) - cpu0) * 1000) / n, wall];
}

/** CPU µs per paced move (the loop runs in Vim's timers; polled for its end). */
async function pacedLoop(s, n) {
  const cpu0 = processCpuMs(s.pid);
  await s.expr(`BenchPaced(${n})`);
  await waitFor(async () => (await s.expr('g:bench_done')) === 1, 'the paced moves', 120_000, 100);
  await sleep(SETTLE_MS);
  return ((processCpuMs(s.pid) - cpu0) * 1000) / n;
}

async function round(s, samples) {
  samples.paced.push(await pacedLoop(s, PACED_MOVES));
  const [cpu, wall] = await moveLoop(s, MOVES, false, true);
  samples.cursor.push(cpu);
  samples.cursorWall.push(wall);
  samples.burst.push((await moveLoop(s, MOVES, false, false))[0]);
  s.keys('g', 'g', 'V', 'G');
  await waitFor(async () => (await s.expr('mode()')) === 'V', 'Visual mode', 20_000, 10);
  samples.visual.push((await moveLoop(s, VISUAL_MOVES, true, true))[0]);
  s.keys('Escape');
  await waitFor(async () => (await s.expr('mode()')) === 'n', 'Normal mode', 20_000, 10);
}

async function measure() {
  log('starting Vim without the plugin, and with it (companion running, a client connected)');
  const without = await start(false);
  const withPlugin = await start(true).catch(async (err) => {
    await without.close();
    throw err;
  });
  try {
    const medians = await alternateRounds({ without, withPlugin, rounds: ROUNDS, kinds: ['paced', 'cursor', 'cursorWall', 'burst', 'visual'], round });
    return { without: medians.without, with: { ...medians.with, contextUpdatesReceived: withPlugin.updates } };
  } finally {
    await withPlugin.client?.close();
    await withPlugin.close();
    await without.close();
  }
}

runBench(async () => {
  const version = spawnSync('vim', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
  const { without, with: withPlugin } = await withTimeout(measure(), 600_000, 'the runs');
  return {
    machine: machine(),
    // Other processes on a 2-core machine move these numbers a lot: read them with the load.
    loadavg1m: Math.round(os.loadavg()[0] * 100) / 100,
    vim: version,
    moves: MOVES,
    visualMoves: VISUAL_MOVES,
    visualLines: LINES,
    rounds: ROUNDS,
    without,
    with: withPlugin,
    ...addedByPlugin(without, withPlugin, LIMIT_US, VISUAL_LIMIT_US),
  };
});
