/**
 * A real micro (Debian's 2.0.11) in a private tmux server, with the plugin
 * installed by `ide-companion install micro` into a private MICRO_CONFIG_HOME,
 * in a private TMPDIR. Keys go in through tmux as a user types them; the test
 * reads micro's state through a test-only plugin (test/fixture/idetest) whose
 * job connects to the test's Unix socket and runs the test's Lua on micro's
 * main loop, so nothing is simulated on micro's side.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { DiscoveryFile } from '@ide-companion/protocol';
import { makeTempDir, shellCommand, skipUnless, Tmux, waitDiscoveryFile, waitFor, which } from '@ide-companion/testkit';
import { BRIDGE_HOST_PATH } from '@ide-companion/jsonlines';
import { microInstaller } from '../src/installer.js';
import { PLUGIN_ROOT } from '../src/pluginFiles.js';

export const microPath = process.env['IDE_COMPANION_MICRO'] || which('micro');
export const skipMicro =
  skipUnless(microPath !== undefined, 'micro', 'apt-get install -y micro') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux') ||
  skipUnless(fs.existsSync(BRIDGE_HOST_PATH), 'the bridge host (editors/jsonlines/host/ide-companion-bridge.mjs)', 'npm install (it builds the bundle)');

export const TIMEOUT = 20_000;

/** A Lua string literal for `text` (bytes as decimal escapes: any byte, no quoting rules to get wrong). */
export function lua(text: string): string {
  return `"${[...Buffer.from(text, 'utf8')].map((b) => `\\${b}`).join('')}"`;
}

/** The test's end of the control channel: one JSON line a request, one an answer. */
class Control {
  private socket: net.Socket | undefined;
  private buffer = '';
  private nextId = 1;
  private readonly pending = new Map<number, { code: string; resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly server = net.createServer((socket) => {
    this.socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const m = JSON.parse(this.buffer.slice(0, nl)) as { id: number; ok: boolean; value?: unknown };
        this.buffer = this.buffer.slice(nl + 1);
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.ok) p?.resolve(m.value);
        else p?.reject(new Error(`micro: ${String(m.value)} (running ${p.code.slice(0, 300)})`));
      }
    });
    socket.on('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('micro closed the control channel'));
      this.pending.clear();
    });
  });
  connected = () => this.socket !== undefined && !this.socket.destroyed;
  run<T>(code: string): Promise<T> {
    if (!this.socket) return Promise.reject(new Error('micro is not connected'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => (this.pending.delete(id), reject(new Error(`micro did not answer ${code}`))), TIMEOUT);
      this.pending.set(id, { code, resolve: (v) => (clearTimeout(timer), resolve(v as T)), reject: (e) => (clearTimeout(timer), reject(e)) });
      this.socket!.write(`${JSON.stringify({ id, code })}\n`);
    });
  }
}

export interface MicroSession {
  tmux: Tmux;
  pid: number;
  tmp: string;
  workspace: string;
  configDir: string;
  /** Runs Lua in the plugin's module (its functions, `micro`, `buffer`...) on micro's main loop; its `return` comes back. */
  run<T = unknown>(code: string): Promise<T>;
  type(text: string): void;
  keys(...keys: string[]): void;
  discovery(): Promise<{ path: string; content: DiscoveryFile }>;
  close(): Promise<void>;
}

export interface StartOptions {
  files?: Record<string, string>;
  open?: string[];
  env?: Record<string, string>;
  /** micro's settings.json. */
  settings?: Record<string, unknown>;
  dirs?: { tmp: string; workspace: string };
}

export async function startMicro(options: StartOptions = {}): Promise<MicroSession> {
  if (!microPath) throw new Error('micro not installed');
  const own = options.dirs ? undefined : makeTempDir('ide-companion-micro-');
  const tmp = options.dirs?.tmp ?? own!.path;
  const workspace = options.dirs ? fs.realpathSync(options.dirs.workspace) : path.join(tmp, 'ws');
  fs.mkdirSync(workspace, { recursive: true });
  for (const [name, text] of Object.entries(options.files ?? {})) fs.writeFileSync(path.join(workspace, name), text);
  const configDir = fs.mkdtempSync(path.join(tmp, 'micro-'));
  const installed = await microInstaller.install({ env: { ...process.env, MICRO_CONFIG_HOME: configDir } });
  if (!installed.success) throw new Error(installed.message);
  fs.cpSync(path.join(PLUGIN_ROOT, 'test', 'fixture', 'idetest'), path.join(configDir, 'plug', 'idetest'), { recursive: true });
  fs.writeFileSync(path.join(configDir, 'settings.json'), JSON.stringify({ savecursor: false, saveundo: false, mkparents: false, ...options.settings }));
  const control = new Control();
  const socketPath = path.join(tmp, `control-${process.pid}-${Date.now()}.sock`);
  await new Promise<void>((resolve) => control.server.listen(socketPath, resolve));
  const tmux = new Tmux(160, 40);
  const home = path.join(tmp, 'home');
  fs.mkdirSync(home, { recursive: true });
  const env = { HOME: home, TMPDIR: tmp, LANG: 'C.UTF-8', TERM: 'xterm-256color', SHELL: '/bin/sh', MICRO_CONFIG_HOME: configDir, ...options.env };
  tmux.start(shellCommand([microPath, ...(options.open ?? [])], { ...env, IDETEST_SOCKET: socketPath, IDETEST_NODE: process.execPath }), { cwd: workspace });
  const kill = () => tmux.kill();
  process.once('exit', kill);
  const close = async () => {
    process.off('exit', kill);
    kill();
    control.server.close();
    own?.cleanup();
  };
  try {
    await waitFor(() => control.connected(), 'micro to open the control channel', TIMEOUT);
  } catch (err) {
    const screen = tmux.screen();
    await close();
    throw new Error(`${(err as Error).message}\n--- screen ---\n${screen}`);
  }
  const run = <T>(code: string) => control.run<T>(code);
  const pid = await run<number>('return import("os").Getpid()');
  return {
    tmux,
    pid,
    tmp,
    workspace,
    configDir,
    run,
    type: (text) => tmux.type(text),
    keys: (...keys) => tmux.keys(...keys),
    discovery: () => waitDiscoveryFile(path.join(tmp, 'gemini', 'ide'), pid, TIMEOUT),
    close,
  };
}

/** The proposals micro shows, by the file they are for: the diffId, and the text as the user left it. */
export async function shownDiffs(s: MicroSession): Promise<Array<{ id: string; path: string; text: string }>> {
  return (await s.run<Array<{ id: string; path: string; text: string }> | null>('return diffList()')) ?? [];
}
