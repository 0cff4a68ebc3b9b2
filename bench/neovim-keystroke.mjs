#!/usr/bin/env node
// bench-requires: nvim
/**
 * Keystroke cost of the Neovim plugin: what it adds to each cursor move and
 * each typed character, measured in a real headless Neovim with and without
 * the plugin (with: the companion running and a real MCP client connected,
 * receiving the context updates, as when Gemini CLI is attached).
 *
 * - cursorMovedUs: a Lua loop inside Neovim moves the cursor and fires
 *   CursorMoved, timed with vim.loop.hrtime: the time the UI thread spends per
 *   move (the plugin's handler reads the position and sends one rpcnotify).
 * - visualMoveUs: the same in linewise Visual mode over a 10 000-line
 *   selection (the handler extracts the selected text, up to the 16 384
 *   UTF-16 units the CLI keeps).
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
import { parseDiscoveryFile, parseDiscoveryFileName } from '@ide-companion/protocol';
import { waitFor } from '@ide-companion/testkit';
import { connectClient, log, machine, makeTempDir, runBench, sleep, withTimeout, scaled } from './lib/common.mjs';

const PLUGIN_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'editors', 'neovim');
const MOVES = scaled(20_000, 200);
const VISUAL_MOVES = scaled(2_000, 20);
const CHARS = scaled(1_000, 10);
const ROUNDS = scaled(3, 1);
const LINES = 10_000;
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
      if (method === 'ide/contextUpdate') updates++;
    });
  }
  await nvim.command('edit big.txt');
  return {
    nvim,
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

/** Microseconds per CursorMoved, timed inside Neovim. */
const MOVE_LOOP = `
  local n, far = ...
  local win = vim.api.nvim_get_current_win()
  local last = vim.api.nvim_buf_line_count(0)
  local start = vim.loop.hrtime()
  for i = 1, n do
    -- far: near the end of the file, so a selection from line 1 spans all of it.
    local line = far and (last - (i % 50)) or ((i % 50) + 1)
    vim.api.nvim_win_set_cursor(win, { line, i % 20 })
    vim.api.nvim_exec_autocmds('CursorMoved', {})
  end
  return (vim.loop.hrtime() - start) / 1000 / n
`;

async function measure(withPlugin) {
  const s = await startNvim(withPlugin);
  try {
    const cursor = [];
    const visual = [];
    const typing = [];
    for (let round = 0; round < ROUNDS; round++) {
      cursor.push(await s.lua(MOVE_LOOP, MOVES, false));
      await s.nvim.input('ggVG');
      await waitUntil(async () => (await s.nvim.mode).mode === 'V', 'Visual mode');
      visual.push(await s.lua(MOVE_LOOP, VISUAL_MOVES, true));
      await s.nvim.input('<Esc>');
      await waitUntil(async () => (await s.nvim.mode).mode === 'n', 'Normal mode');
      // Type CHARS characters one at a time, each waited for as a user waits to see it:
      // Neovim fires CursorMovedI only when no typeahead is pending, so every key here fires it.
      await s.nvim.command('normal! Go');
      await s.nvim.input('A');
      const started = performance.now();
      for (let i = 0; i < CHARS; i++) {
        await s.nvim.input('x');
        await s.nvim.eval('1');
      }
      typing.push((performance.now() - started) / CHARS);
      await s.nvim.input('<Esc>');
      await waitUntil(async () => (await s.nvim.mode).mode === 'n', 'Normal mode');
    }
    await sleep(300);
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const round3 = (x) => Math.round(x * 1000) / 1000;
    return {
      cursorMovedUs: round3(median(cursor)),
      visualMoveUs: round3(median(visual)),
      typingMsPerChar: round3(median(typing)),
      contextUpdatesReceived: withPlugin ? s.updates() : undefined,
    };
  } finally {
    await s.close();
  }
}

runBench(async () => {
  const version = (await import('node:child_process')).spawnSync('nvim', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
  log('without the plugin');
  const without = await withTimeout(measure(false), 300_000, 'the run without the plugin');
  log('with the plugin, companion running, a client connected');
  const withPlugin = await withTimeout(measure(true), 300_000, 'the run with the plugin');
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
    addedPerCursorMoveUs: Math.round((withPlugin.cursorMovedUs - without.cursorMovedUs) * 1000) / 1000,
    addedPerVisualMoveUs: Math.round((withPlugin.visualMoveUs - without.visualMoveUs) * 1000) / 1000,
    addedPerTypedCharMs: Math.round((withPlugin.typingMsPerChar - without.typingMsPerChar) * 1000) / 1000,
  };
});
