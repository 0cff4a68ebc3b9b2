#!/usr/bin/env node
// bench-requires: nvim
/**
 * Keystroke cost of the Neovim plugin: what it adds to each cursor move and
 * each typed character, measured in a real headless Neovim with and without
 * the plugin (with: the companion running and a real MCP client connected,
 * receiving the context updates, as when Gemini CLI is attached).
 *
 * Both Neovims run at once and the rounds alternate between them, so a change
 * of load on a shared machine hits both alike.
 *
 * - cursorMovedUs: a Lua loop inside Neovim moves the cursor and fires
 *   CursorMoved; with the plugin each move is also reported: its delay is set
 *   to 0 for the loop, so every move takes the path of a move after a pause
 *   (read and sent at once by the autocmd, as when keys come slower than the
 *   timer's delay). The figure is the Neovim process's CPU time (utime +
 *   stime from /proc, read before the loop and after a 200 ms pause, so
 *   whatever the plugin left for later is counted too), which other processes
 *   do not inflate; cursorMovedWallUs is the loop's wall time.
 *   addedPerCursorMoveUs = with - without, next to its limit (20 µs).
 * - pacedMoveUs: moves one per 3 ms timer, the plugin's delay set to 1 ms, so
 *   every move is reported through the plugin's real path (at once after a
 *   pause, or its timer) with event-loop wake-ups between moves, as between
 *   keys. CPU time; on a loaded machine it swings by tens of µs between runs.
 * - burstMoveUs: the same moves with the plugin's own delay (back to back, as
 *   a held key: the timer coalesces them into one report), CPU time.
 * - visualMoveUs: reported moves in linewise Visual mode over a 10 000-line
 *   selection (each report extracts the selected text, up to the 16 384
 *   UTF-16 units the CLI keeps), CPU time.
 * - typingMsPerChar: CHARS characters typed in Insert mode one at a time
 *   (nvim_input, then a round trip, so each key is processed alone and fires
 *   CursorMovedI as a human's would): wall time per character, end to end.
 *
 * Prints one JSON object; timing belongs here, not in the tests.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { attach } from 'neovim';
import { ContextUpdateNotification, parseDiscoveryFile, parseDiscoveryFileName } from '@ide-companion/protocol';
import { waitFor } from '@ide-companion/testkit';
import { connectClient, log, machine, makeTempDir, processCpuMs, runBench, sleep, withTimeout, scaled } from './lib/common.mjs';
import { addedByPlugin, alternateRounds } from './lib/keystroke.mjs';

const PLUGIN_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'editors', 'neovim');
const MOVES = scaled(20_000, 200);
const VISUAL_MOVES = scaled(2_000, 20);
const CHARS = scaled(1_000, 10);
const ROUNDS = scaled(3, 1);
const LINES = 10_000;
/** Issue 28's budget for a cursor move. */
const LIMIT_US = 20;
const SETTLE_MS = 200;
const PACED_MOVES = scaled(2_000, 20);
/** Paced moves: one every STEP_MS, the plugin's timer set to DELAY_MS so it fires between them. */
const STEP_MS = 3;
const DELAY_MS = 1;
const quietLogger = { level: 'error', debug() {}, info() {}, warn() {}, error() {} };

/** Polls until `probe` returns a value (testkit's waitFor, with this bench's timeout). */
const waitUntil = (probe, what) => waitFor(probe, what, 20_000, 10);

async function startNvim(withPlugin) {
  const tmp = makeTempDir('ide-companion-bench-nvim-');
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  const file = path.join(workspace, 'big.txt');
  const lines = [];
  for (let i = 0; i < LINES; i++) lines.push(`line ${i}: héllo wörld 😀 const value = compute(${i});`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const socket = path.join(tmp.path, 'nvim.sock');
  const env = { ...process.env, TMPDIR: tmp.path, XDG_CACHE_HOME: path.join(tmp.path, 'cache') };
  const proc = spawn('nvim', ['--headless', '--clean', '-n', '--listen', socket], { cwd: workspace, env, stdio: 'ignore' });
  await waitUntil(
    () =>
      new Promise((resolve) => {
        const conn = net.createConnection(socket);
        conn.once('connect', () => (conn.end(), resolve(true)));
        conn.once('error', () => resolve(false));
      }),
    'nvim to listen',
  );
  const nvim = attach({ socket, options: { logger: quietLogger } });
  const lua = (code, ...args) => nvim.request('nvim_exec_lua', [code, args]);
  let client;
  let updates = 0;
  if (withPlugin) {
    await nvim.command('let g:ide_companion_auto_setup = v:false');
    await nvim.command(`set rtp^=${PLUGIN_ROOT}`);
    await nvim.command('runtime plugin/ide_companion.lua');
    await lua(`require('ide_companion').setup({ log_file = ... })`, path.join(tmp.path, 'host.log'));
    const pid = await nvim.call('getpid');
    const dir = path.join(tmp.path, 'gemini', 'ide');
    const name = await waitUntil(() => fs.existsSync(dir) && fs.readdirSync(dir).find((f) => parseDiscoveryFileName(f)?.pid === pid), 'the discovery file');
    const discovery = parseDiscoveryFile(fs.readFileSync(path.join(dir, name), 'utf8'));
    client = await connectClient({ port: discovery.port, token: discovery.authToken }, (method) => {
      if (method === ContextUpdateNotification.method) updates++;
    });
  }
  await nvim.command('edit big.txt');
  const pid = await nvim.call('getpid');
  return {
    nvim,
    pid,
    lua,
    updates: () => updates,
    async close() {
      await client?.close();
      nvim.notify('nvim_command', ['qa!']);
      await new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', resolve);
        setTimeout(() => (proc.kill('SIGKILL'), resolve()), 5000).unref();
      });
      await sleep(200);
      tmp.cleanup();
    },
  };
}

/**
 * Microseconds of wall time per move, timed inside Neovim. report: the
 * plugin's delay set to 0 for the loop, so its autocmd reads and sends every
 * move at once, as it does a move after a pause (a lone key).
 */
const MOVE_LOOP = `
  local n, far, report = ...
  local ok, context = pcall(require, 'ide_companion.context')
  local saved = report and ok and context.CURSOR_DELAY_MS
  if saved then
    context.CURSOR_DELAY_MS = 0
  end
  local win = vim.api.nvim_get_current_win()
  local last = vim.api.nvim_buf_line_count(0)
  local start = vim.loop.hrtime()
  for i = 1, n do
    -- far: near the end of the file, so a selection from line 1 spans all of it.
    local line = far and (last - (i % 50)) or ((i % 50) + 1)
    vim.api.nvim_win_set_cursor(win, { line, i % 20 })
    vim.api.nvim_exec_autocmds('CursorMoved', {})
  end
  local wall = (vim.loop.hrtime() - start) / 1000 / n
  if saved then
    context.CURSOR_DELAY_MS = saved
  end
  return wall
`;

/**
 * Paced: one move per STEP_MS timer, the plugin's delay set shorter, so each
 * move is a move after a pause, reported through the plugin's own path.
 */
const PACED_LOOP = `
  local n, STEP, delay = ...
  local ok, context = pcall(require, 'ide_companion.context')
  local saved = ok and context.CURSOR_DELAY_MS
  if saved then
    context.CURSOR_DELAY_MS = delay
  end
  local win = vim.api.nvim_get_current_win()
  _G.bench_done = false
  local left = n
  local function step()
    if left <= 0 then
      if saved then
        context.CURSOR_DELAY_MS = saved
      end
      _G.bench_done = true
      return
    end
    left = left - 1
    vim.api.nvim_win_set_cursor(win, { (left % 50) + 1, left % 20 })
    vim.api.nvim_exec_autocmds('CursorMoved', {})
    vim.defer_fn(step, STEP)
  end
  vim.defer_fn(step, STEP)
`;

/** CPU µs per paced move (the loop runs in Neovim's timers; polled for its end). */
async function pacedLoop(s, n) {
  const cpu0 = processCpuMs(s.pid);
  await s.lua(PACED_LOOP, n, STEP_MS, DELAY_MS);
  await waitFor(() => s.lua('return _G.bench_done'), 'the paced moves', 120_000, 100);
  await sleep(SETTLE_MS);
  return ((processCpuMs(s.pid) - cpu0) * 1000) / n;
}

/** [CPU µs, wall µs] per move of one loop, the CPU read after a pause (work left for later counts). */
async function moveLoop(s, n, far, report) {
  const cpu0 = processCpuMs(s.pid);
  const wall = await s.lua(MOVE_LOOP, n, far, report);
  await sleep(SETTLE_MS);
  return [((processCpuMs(s.pid) - cpu0) * 1000) / n, wall];
}

async function typing(s) {
  // Type CHARS characters one at a time, each waited for as a user waits to see it:
  // Neovim fires CursorMovedI only when no typeahead is pending, so every key here fires it.
  await s.nvim.command('normal! Go');
  await s.nvim.input('A');
  const started = performance.now();
  for (let i = 0; i < CHARS; i++) {
    await s.nvim.input('x');
    await s.nvim.eval('1');
  }
  const perChar = (performance.now() - started) / CHARS;
  await s.nvim.input('<Esc>');
  await waitUntil(async () => (await s.nvim.mode).mode === 'n', 'Normal mode');
  return perChar;
}

/** One round in `s`: normal moves (reported, burst), Visual moves, typing. */
async function round(s, samples) {
  samples.paced.push(await pacedLoop(s, PACED_MOVES));
  const [cpu, wall] = await moveLoop(s, MOVES, false, true);
  samples.cursor.push(cpu);
  samples.cursorWall.push(wall);
  samples.burst.push((await moveLoop(s, MOVES, false, false))[0]);
  await s.nvim.input('ggVG');
  await waitUntil(async () => (await s.nvim.mode).mode === 'V', 'Visual mode');
  samples.visual.push((await moveLoop(s, VISUAL_MOVES, true, true))[0]);
  await s.nvim.input('<Esc>');
  await waitUntil(async () => (await s.nvim.mode).mode === 'n', 'Normal mode');
  samples.typing.push(await typing(s));
}

async function measure() {
  log('starting Neovim without the plugin, and with it (companion running, a client connected)');
  const without = await startNvim(false);
  const withPlugin = await startNvim(true).catch(async (err) => {
    await without.close();
    throw err;
  });
  try {
    const medians = await alternateRounds({
      without,
      withPlugin,
      rounds: ROUNDS,
      kinds: ['paced', 'cursor', 'cursorWall', 'burst', 'visual', 'typing'],
      round,
    });
    return { without: medians.without, with: { ...medians.with, contextUpdatesReceived: withPlugin.updates() } };
  } finally {
    await withPlugin.close();
    await without.close();
  }
}

runBench(async () => {
  const version = (await import('node:child_process')).spawnSync('nvim', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
  const { without, with: withPlugin } = await withTimeout(measure(), 600_000, 'the runs');
  return {
    machine: machine(),
    // Other processes on a 2-core machine move these numbers a lot: read them with the load.
    loadavg1m: Math.round(os.loadavg()[0] * 100) / 100,
    nvim: version,
    moves: MOVES,
    visualMoves: VISUAL_MOVES,
    visualLines: LINES,
    chars: CHARS,
    rounds: ROUNDS,
    without,
    with: withPlugin,
    ...addedByPlugin(without, withPlugin, LIMIT_US),
  };
});
