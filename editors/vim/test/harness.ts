/**
 * A real Vim (Debian's 9.0) in a private tmux server, with the plugin loaded
 * from this repository, in a private TMPDIR. Keys go in through tmux as a user
 * types them; the test reads Vim's state over a channel Vim itself opens to
 * the test at startup (`ch_open(..., {'mode': 'json'})`, Vim's own
 * ["expr", ...] requests), so nothing is simulated on Vim's side.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { DiscoveryFile } from '@ide-companion/protocol';
import {
  connectEditorClient,
  openFiles,
  startEditorWithClient,
  type EditorClient,
  makeTempDir,
  shellCommand,
  skipUnless,
  Tmux,
  waitFor,
  which,
  processRunning,
  discoveryFileOf,
  waitDiscoveryFile,
} from '@ide-companion/testkit';
import { BRIDGE_HOST_PATH } from '@ide-companion/jsonlines';
import { PLUGIN_ROOT } from '../src/pluginFiles.js';

export const vimPath = process.env['IDE_COMPANION_VIM'] || which('vim');
export const hasVim = vimPath !== undefined;
export const hasTmux = which('tmux') !== undefined;
export const hasHost = fs.existsSync(BRIDGE_HOST_PATH);
/** Why Vim cannot run here, or false. */
export const skipVimOnly = skipUnless(hasVim, 'vim', 'apt-get install -y vim') || skipUnless(hasTmux, 'tmux', 'apt-get install -y tmux');
/** Why the Vim tests with a companion cannot run here, or false. */
export const skipVim =
  skipVimOnly || skipUnless(hasHost, 'the bridge host (editors/jsonlines/host/ide-companion-bridge.mjs)', 'npm install (it builds the bundle)');

/** Generous: the machine is shared and slow at times. */
export const TIMEOUT = 20_000;

/** Vim's end of the control channel: ["expr", e, -id] requests answered with [-id, value]. */
class VimChannel {
  private socket: net.Socket | undefined;
  private buffer = '';
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly server = net.createServer((socket) => {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.receive(chunk));
    socket.on('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('Vim closed the control channel'));
      this.pending.clear();
    });
  });

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  connected(): boolean {
    return this.socket !== undefined && !this.socket.destroyed;
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const [id, value] = JSON.parse(line) as [number, unknown];
      const p = this.pending.get(-id) ?? this.pending.get(id);
      if (p) {
        this.pending.delete(Math.abs(id));
        p.resolve(value);
      }
    }
  }

  expr<T>(expression: string): Promise<T> {
    if (!this.socket) return Promise.reject(new Error('Vim is not connected'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`Vim did not answer ${expression}`));
      }, TIMEOUT);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v as T)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.socket!.write(`${JSON.stringify(['expr', expression, -id])}\n`);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.server.close();
  }
}

/** A Vim expression string literal for `text`. */
export function vimString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
}

export interface VimSession {
  tmux: Tmux;
  pid: number;
  /** The private TMPDIR (discovery files live in `tmp/gemini/ide`). */
  tmp: string;
  /** Vim's HOME (`tmp/home`): the agents' sockets and lock files this Vim serves live under it. */
  home: string;
  /** Vim's cwd, a real path. */
  workspace: string;
  discoveryDir: string;
  /** Evaluates a Vim expression in the running Vim. */
  expr<T = unknown>(expression: string): Promise<T>;
  /** Runs Ex commands (as `execute()` does) and returns their output. */
  ex(command: string): Promise<string>;
  /** Types literal text into Vim's terminal. */
  type(text: string): void;
  /** Sends tmux key names (Escape, Enter, C-v ...). */
  keys(...keys: string[]): void;
  /** Resolves to this Vim's discovery file once the companion runs. */
  discovery(): Promise<{ path: string; content: DiscoveryFile }>;
  /** Vim's :messages. */
  messages(): Promise<string>;
  /** Quits Vim (:qa!) and waits for it to exit. */
  quit(): Promise<void>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Files to create in the workspace before Vim starts. */
  files?: Record<string, string>;
  /** Files (workspace-relative) to open on the command line. */
  open?: string[];
  /** Vimscript lines run before the plugin loads. */
  vimrc?: string[];
  /** Extra environment for Vim (and so for the host and terminals). */
  env?: Record<string, string>;
  /** Run in that session's TMPDIR and workspace (two Vims on one folder); it owns the directory. */
  sameFolderAs?: VimSession;
  /** Use these directories (the caller removes them) instead of a fresh temp dir. */
  dirs?: { tmp: string; workspace: string };
  /** Wait for the companion to run (default true). */
  waitForCompanion?: boolean;
  /** The sh command line that runs Vim's (`vim ...`): in a container, say. Default: as is. */
  wrap?: (vim: string) => string[];
  /** Variables not inherited from the test runner (default testkit's STRAY_IDE_ENV). */
  unset?: readonly string[];
}

export async function startVim(options: StartOptions = {}): Promise<VimSession> {
  if (!vimPath) throw new Error('vim not installed');
  const shared = options.sameFolderAs ?? options.dirs;
  const tmpDir = shared ? { path: shared.tmp, cleanup: () => undefined } : makeTempDir('ide-companion-vim-');
  const tmp = tmpDir.path;
  let workspace = shared?.workspace && fs.realpathSync(shared.workspace);
  if (!workspace) {
    fs.mkdirSync(path.join(tmp, 'ws'));
    workspace = fs.realpathSync(path.join(tmp, 'ws'));
  }
  for (const [name, text] of Object.entries(options.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  const channel = new VimChannel();
  const port = await channel.listen();
  const vimrc = path.join(tmp, `vimrc-${port}`);
  const home = path.join(tmp, 'home');
  fs.writeFileSync(
    vimrc,
    [
      'set encoding=utf-8',
      'set nocompatible',
      // Escape at once, not after a second of waiting for a key code.
      'set ttimeout ttimeoutlen=10',
      // No hit-enter prompts from the plugin's messages.
      'set cmdheight=3 shortmess+=F',
      `let g:ide_companion_log_file = ${vimString(path.join(tmp, `host-${port}.log`))}`,
      // netrw keeps its history in the first folder of 'rtp' (the plugin's, below): none, and its home is the test's.
      'let g:netrw_dirhistmax = 0',
      `let g:netrw_home = ${vimString(home)}`,
      ...(options.vimrc ?? []),
      `execute 'set rtp^=' . fnameescape(${vimString(PLUGIN_ROOT)})`,
      `let g:test_channel = ch_open('127.0.0.1:${port}', {'mode': 'json', 'waittime': 10000})`,
    ].join('\n') + '\n',
  );
  const tmux = new Tmux(200, 50);
  fs.mkdirSync(home, { recursive: true });
  const command = shellCommand(
    [vimPath, '-N', '-u', vimrc, '-i', 'NONE', '-n', ...(options.open ?? [])],
    { HOME: home, TMPDIR: tmp, LANG: 'C.UTF-8', TERM: 'xterm-256color', SHELL: '/bin/sh', ...options.env },
    options.unset,
  );
  tmux.start(options.wrap ? shellCommand(options.wrap(command), {}, []) : command, { cwd: workspace });
  let closed = false;
  const kill = () => tmux.kill();
  process.once('exit', kill);
  try {
    await waitFor(() => channel.connected(), 'Vim to open the control channel', TIMEOUT);
  } catch (err) {
    const screen = tmux.screen();
    kill();
    channel.close();
    tmpDir.cleanup();
    throw new Error(`${(err as Error).message}\n--- screen ---\n${screen}`);
  }
  const expr = <T>(e: string) => channel.expr<T>(e);
  const pid = await expr<number>('getpid()');
  const discoveryDir = path.join(tmp, 'gemini', 'ide');
  const session: VimSession = {
    tmux,
    pid,
    tmp,
    home,
    workspace,
    discoveryDir,
    expr,
    ex: (command) => expr<string>(`execute(${vimString(command)})`),
    type: (text) => tmux.type(text),
    keys: (...keys) => tmux.keys(...keys),
    async discovery() {
      // The file is written before the host says ready: wait for both.
      await waitFor(async () => (await expr<number>('ide_companion#host#is_running()')) === 1, 'the companion to run', TIMEOUT).catch(async (err: Error) => {
        const state = await expr('ide_companion#host#state()').catch(() => undefined);
        throw new Error(`${err.message}: ${JSON.stringify(state)}\n--- screen ---\n${tmux.screen()}`);
      });
      return waitDiscoveryFile(discoveryDir, pid, TIMEOUT);
    },
    messages: () => expr<string>("execute('messages')"),
    async quit() {
      if (!processRunning(pid)) return;
      tmux.keys('Escape');
      channel.expr('execute("qa!")').catch(() => undefined);
      await waitFor(() => !processRunning(pid), 'Vim to exit', TIMEOUT);
    },
    async close() {
      if (closed) return;
      closed = true;
      process.removeListener('exit', kill);
      await session.quit().catch(() => undefined);
      channel.close();
      await tmux.stop(2000);
      if (!shared) {
        // The host removes the discovery file as Vim goes; give it a moment before the dir goes.
        await waitFor(() => !discoveryFileOf(discoveryDir, pid), 'host exit', 5000).catch(() => undefined);
        tmpDir.cleanup();
      }
    },
  };
  if (options.waitForCompanion !== false) {
    try {
      await session.discovery();
    } catch (err) {
      await session.close();
      throw err;
    }
  }
  return session;
}

export type RecordingClient = EditorClient;

/** A real MCP SDK client connected with what the discovery file says (testkit's, with this harness's timeout). */
export const connectFromDiscovery = (discovery: DiscoveryFile): Promise<RecordingClient> => connectEditorClient(discovery, TIMEOUT);

/** Starts Vim, waits for its companion, and connects one client. */
export const startWithClient = (options: StartOptions = {}) => startEditorWithClient(() => startVim(options), TIMEOUT);

export { openFiles };

export interface ShownDiff {
  id: string;
  path: string;
  proposal: number;
  original: number;
}

/**
 * The user types `:COMMAND` (`:Gemini`, `:IdeAgent`) and the agent starts in Vim's own terminal, the buffer
 * the plugin marks with `flag`: that terminal's buffer and its program's pid.
 */
export async function openAgentTerminal(s: VimSession, command: string, flag: string, timeoutMs = TIMEOUT): Promise<{ terminal: number; pid: number }> {
  s.keys('Escape');
  s.type(`:${command}`);
  s.keys('Enter');
  const terminal = await waitFor(
    async () => (await s.expr<number[]>(`filter(term_list(), {_, b -> getbufvar(b, "${flag}", 0)})`))[0],
    `the terminal of :${command}`,
    timeoutMs,
  );
  return { terminal, pid: await s.expr<number>(`job_info(term_getjob(${terminal})).process`) };
}

/** The diff open for `filePath`, once Vim shows it. */
export async function waitForDiff(s: VimSession, filePath: string, timeoutMs = TIMEOUT): Promise<ShownDiff> {
  return waitFor(async () => (await s.expr<ShownDiff[]>('ide_companion#diff#list()')).find((d) => d.path === filePath), `the diff of ${filePath}`, timeoutMs);
}

export async function bufferLines(s: VimSession, buf: number): Promise<string[]> {
  return s.expr<string[]>(`getbufline(${buf}, 1, '$')`);
}

/** Moves the cursor to the window showing `buf` (as a user would with CTRL-W). */
export async function gotoBuffer(s: VimSession, buf: number): Promise<void> {
  const ok = await s.expr<number>(`win_gotoid(get(win_findbuf(${buf}), 0, 0))`);
  if (!ok) throw new Error(`no window shows buffer ${buf}`);
}
