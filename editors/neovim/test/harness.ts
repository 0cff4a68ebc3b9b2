/**
 * A real headless Neovim with the plugin loaded from this repository (the
 * committed host bundle included), in a private TMPDIR, plus real MCP SDK
 * clients that find the companion through its discovery file, as the CLI does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { attach, type NeovimClient } from 'neovim';
import type { DiscoveryFile } from '@ide-companion/protocol';
import {
  connectEditorClient,
  openFiles,
  startEditorWithClient,
  type EditorClient,
  makeTempDir,
  processRunning,
  discoveryFileOf,
  waitDiscoveryFile,
  waitFor,
  which,
} from '@ide-companion/testkit';
import { PLUGIN_ROOT } from '../src/pluginFiles.js';

/** IDE_COMPANION_NVIM picks another Neovim (a version matrix); default `nvim` on PATH. */
export const nvimPath = process.env['IDE_COMPANION_NVIM'] || which('nvim');
export const hasNvim = nvimPath !== undefined;

/** Generous: the machine is shared and slow at times. */
export const TIMEOUT = 20_000;

const quietLogger = { level: 'error', debug() {}, info() {}, warn() {}, error() {} };

export interface NeovimSession {
  nvim: NeovimClient;
  pid: number;
  /** The private TMPDIR (discovery files live in `tmp/gemini/ide`). */
  tmp: string;
  /** Neovim's cwd, a real path. */
  workspace: string;
  proc: ChildProcess;
  discoveryDir: string;
  /** Resolves to the discovery file of this Neovim once it exists. */
  discovery(): Promise<{ path: string; content: DiscoveryFile }>;
  lua<T = unknown>(code: string, ...args: unknown[]): Promise<T>;
  messages(): Promise<string>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Lua table source for setup(), merged after the test defaults. */
  setup?: string;
  /** Files to create in the workspace before Neovim starts. */
  files?: Record<string, string>;
  /** Start the companion (default true). */
  start?: boolean;
  /** Source plugin/ide_companion.lua as a plugin manager that adds the folder at startup would (default true). */
  pluginFile?: boolean;
  /** Run in that session's TMPDIR and workspace (two Neovims on one folder); it owns the directory. */
  sameFolderAs?: NeovimSession;
  /** The user has Copilot CLI: COPILOT_HOME=tmp/home/.copilot, so the host serves it there (issue 31). */
  copilot?: boolean;
  /** The user has Codex CLI: CODEX_HOME=tmp/home/.codex, so the host serves its socket there (issue 31). */
  codex?: boolean;
  /** The user has Amp: AMP_DATA_HOME=tmp/data (XDG_DATA_HOME's), so the host writes its lock file in tmp/data/amp/ide. */
  amp?: boolean;
  /** The user has Factory Droid: HOME=tmp/home with a .factory in it, so the host writes Droid's lock file in tmp/home/.factory/ide. */
  droid?: boolean;
}

/**
 * Attaches to the Neovim listening on `socket` once it does (a headless one, or
 * one in tmux), with `lua` for nvim_exec_lua; gives up early if `exited` says so.
 */
export async function attachWhenListening(socket: string, timeoutMs = TIMEOUT, exited: () => boolean = () => false) {
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        if (exited()) return resolve(false);
        const conn = net.createConnection(socket);
        conn.once('connect', () => {
          conn.end();
          resolve(true);
        });
        conn.once('error', () => resolve(false));
      }),
    'nvim to listen',
    timeoutMs,
  );
  const nvim = attach({ socket, options: { logger: quietLogger as never } });
  // A Neovim a test killed closes this socket: a later write fails with EPIPE as an 'error' event
  // (not a throw), which unheard would fail whatever test is running.
  (nvim as unknown as { transport?: { writer?: NodeJS.WritableStream } }).transport?.writer?.on('error', () => undefined);
  const lua = <T>(code: string, ...args: unknown[]) => nvim.request('nvim_exec_lua', [code, args]) as Promise<T>;
  return { nvim, lua };
}

export async function startNeovim(options: StartOptions = {}): Promise<NeovimSession> {
  if (!nvimPath) throw new Error('nvim not installed');
  const shared = options.sameFolderAs;
  const tmpDir = shared ? { path: shared.tmp, cleanup: () => undefined } : makeTempDir('ide-companion-nvim-');
  const tmp = tmpDir.path;
  const workspace = shared ? shared.workspace : path.join(tmp, 'ws');
  if (!shared) fs.mkdirSync(workspace);
  for (const [name, text] of Object.entries(options.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  fs.mkdirSync(path.join(tmp, 'home', ...(options.droid ? ['.factory'] : [])), { recursive: true });
  const socket = path.join(tmp, `nvim-${Date.now()}-${Math.random().toString(36).slice(2)}.sock`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TMPDIR: tmp,
    XDG_CACHE_HOME: path.join(tmp, 'cache'),
    XDG_STATE_HOME: path.join(tmp, 'state'),
    XDG_DATA_HOME: path.join(tmp, 'data'),
    XDG_CONFIG_HOME: path.join(tmp, 'config'),
    // Where the host writes Qwen Code's lock file (the Qwen face).
    QWEN_HOME: path.join(tmp, 'qwen-home'),
    // Claude Code's lock files go where a Claude Code run with HOME=tmp/home reads them (claudeCode.test.ts).
    CLAUDE_CONFIG_DIR: path.join(tmp, 'home', '.claude'),
    ...(options.copilot && { COPILOT_HOME: path.join(tmp, 'home', '.copilot') }),
    ...(options.codex && { CODEX_HOME: path.join(tmp, 'home', '.codex') }),
    ...(options.amp && { AMP_DATA_HOME: path.join(tmp, 'data') }),
    // Droid's lock folder is $HOME/.factory/ide (its os.homedir()): the test's own home, never the user's.
    ...(options.droid && { HOME: path.join(tmp, 'home') }),
  };
  for (const key of Object.keys(env))
    if (
      key.startsWith('GEMINI_CLI_IDE_') ||
      key.startsWith('QWEN_CODE_IDE_') ||
      key === 'CLAUDE_CODE_SSE_PORT' ||
      (key === 'COPILOT_HOME' && !options.copilot) ||
      (key === 'CODEX_HOME' && !options.codex) ||
      (key === 'AMP_DATA_HOME' && !options.amp)
    )
      delete env[key];
  const proc = spawn(nvimPath, ['--headless', '--clean', '-n', '--listen', socket], { cwd: workspace, env, stdio: 'ignore' });
  let closed = false;
  const kill = () => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  };
  process.once('exit', kill);
  let attached: Awaited<ReturnType<typeof attachWhenListening>>;
  try {
    attached = await attachWhenListening(socket, TIMEOUT, () => proc.exitCode !== null);
  } catch (err) {
    kill();
    tmpDir.cleanup();
    throw err;
  }
  const { nvim, lua } = attached;
  const pid = (await nvim.call('getpid')) as number;
  const discoveryDir = path.join(tmp, 'gemini', 'ide');
  const session: NeovimSession = {
    nvim,
    pid,
    tmp,
    workspace,
    proc,
    discoveryDir,
    lua,
    async discovery() {
      // The file is written first, then the host reports to Lua: wait for both.
      await waitFor(async () => (await lua('return require("ide_companion").is_running()')) === true, 'the companion to run', TIMEOUT);
      return waitDiscoveryFile(discoveryDir, pid, TIMEOUT);
    },
    messages: () => nvim.call('execute', ['messages']) as Promise<string>,
    async close() {
      if (closed) return;
      closed = true;
      process.removeListener('exit', kill);
      const exited = () => proc.exitCode !== null || proc.signalCode !== null;
      // A notification: Neovim exits before it could answer a request. Not to a Neovim the test killed, even
      // one not reaped yet: the write fails (EPIPE) and the client's reader rejects with it, unhandled.
      if (!exited() && processRunning(pid)) {
        try {
          nvim.notify('nvim_command', ['qa!']);
        } catch {
          // Already gone: the wait below sees it exit (or kills it).
        }
      }
      await new Promise<void>((resolve) => {
        if (exited() || !processRunning(pid)) return resolve();
        const timer = setTimeout(() => {
          kill();
          resolve();
        }, 5000);
        proc.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      // The host removes the discovery file when Neovim goes; give it a moment before the dir goes.
      await waitFor(() => !discoveryFileOf(discoveryDir, pid), 'host exit', 5000).catch(() => undefined);
      tmpDir.cleanup();
    },
  };
  try {
    const setup = options.setup ?? '{}';
    await nvim.command('let g:ide_companion_auto_setup = v:false');
    await nvim.command(`set rtp^=${PLUGIN_ROOT}`);
    if (options.pluginFile !== false) await nvim.command('runtime plugin/ide_companion.lua');
    await lua(
      `require('ide_companion').setup(vim.tbl_extend('force', { auto_start = ${options.start === false ? 'false' : 'true'}, log_file = ... }, ${setup}))`,
      path.join(tmp, 'ide-companion.log'),
    );
  } catch (err) {
    await session.close();
    throw err;
  }
  return session;
}

export type RecordingClient = EditorClient;

/** A real MCP SDK client connected with what the discovery file says (testkit's, with this harness's timeout). */
export const connectFromDiscovery = (discovery: DiscoveryFile): Promise<RecordingClient> => connectEditorClient(discovery, TIMEOUT);

/** Starts Neovim, waits for its companion, and connects one client. */
export const startWithClient = (options: StartOptions = {}) => startEditorWithClient(() => startNeovim(options), TIMEOUT);

export { openFiles };

/** The proposal buffer of the diff open for `filePath`, once it is shown. */
export async function waitForDiff(s: NeovimSession, filePath: string): Promise<{ id: string; proposal: number; original: number }> {
  return waitFor(
    async () => {
      const list = await s.lua<Array<{ id: string; path: string; proposal: number; original: number }>>("return require('ide_companion.diff').list()");
      return list.find((d) => d.path === filePath);
    },
    `the diff of ${filePath}`,
    TIMEOUT,
  );
}

/** Runs an Ex command with the cursor in the diff's proposal window (as a user would type it there). */
export async function inProposal(s: NeovimSession, proposal: number, command: string): Promise<void> {
  await s.lua('vim.fn.win_gotoid(vim.fn.win_findbuf(...)[1])', proposal);
  await s.nvim.command(command);
}

export async function bufferLines(s: NeovimSession, buf: number): Promise<string[]> {
  return s.lua<string[]>('return vim.api.nvim_buf_get_lines(..., 0, -1, false)', buf);
}
