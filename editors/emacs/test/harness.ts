/**
 * A real Emacs with a UI (`emacs -nw` in a private tmux server) that loads the
 * package from this repository, in a private TMPDIR and HOME. The test reads
 * Emacs's state over `server-start` + `emacsclient --eval`, types into it with
 * tmux, and talks to the companion with the real MCP SDK client, found through
 * the discovery file as Gemini CLI finds it.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DiscoveryFile } from '@ide-companion/protocol';
import { connectEditorClient, type EditorClient, makeTempDir, shellCommand, Tmux, discoveryFileOf, waitDiscoveryFile, waitFor } from '@ide-companion/testkit';
import { PACKAGE_ROOT } from '../src/packageFiles.js';
import { emacsclientPath, emacsPath } from './emacs.js';

/** Generous: the machine is shared and slow at times. */
export const TIMEOUT = 30_000;

/** vterm as Debian's elpa-vterm installs it (with its compiled module). */
export const VTERM_DIR = (() => {
  const base = '/usr/share/emacs/site-lisp/elpa';
  if (!fs.existsSync(base)) return undefined;
  const dir = fs.readdirSync(base).find((name) => name.startsWith('vterm-'));
  return dir ? path.join(base, dir) : undefined;
})();

export interface EmacsSession {
  tmux: Tmux;
  /** The test's temp dir (TMPDIR of Emacs, its host and the CLI). */
  tmp: string;
  /** Emacs's cwd, a real path. */
  workspace: string;
  /** Emacs's HOME (private; options.env may name another): the agents' folders its companion serves are there. */
  home: string;
  pid: number;
  discoveryDir: string;
  /** Evaluates `expr` in Emacs and returns what emacsclient prints. */
  eval(expr: string): Promise<string>;
  /** Evaluates `expr`, whose value `json-serialize` accepts, and parses it. */
  evalJson<T = unknown>(expr: string): Promise<T>;
  /** The discovery file of this Emacs once the companion is ready. */
  discovery(): Promise<{ path: string; content: DiscoveryFile }>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Files to create in the workspace before Emacs starts. */
  files?: Record<string, string>;
  /** Files Emacs opens on its command line (the last one is shown). */
  open?: string[];
  /** Emacs Lisp run before `ide-companion-mode' is turned on. */
  init?: string;
  /** Start in that session's TMPDIR and workspace (two Emacsen on one folder); it owns the directory. */
  sameFolderAs?: EmacsSession;
  /** Extra environment for Emacs (and what it starts). */
  env?: Record<string, string>;
  /** Load vterm (elpa-vterm). */
  vterm?: boolean;
  /** The command that runs Emacs's (a shell string): in a container, say. Default: as is. */
  wrap?: (emacs: string) => string[];
  /** Variables Emacs does not inherit from the test runner (default testkit's STRAY_IDE_ENV). */
  unset?: readonly string[];
}

/** Turns emacsclient's printed string (prin1 syntax) back into the string. */
function unprin1(printed: string): string {
  const trimmed = printed.trim();
  if (!trimmed.startsWith('"') || !trimmed.endsWith('"')) throw new Error(`not a printed string: ${trimmed}`);
  return trimmed.slice(1, -1).replace(/\\(.)/gs, '$1');
}

export function elispString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The sessions started in another's folder: that one's close ends them first (its cleanup removes the folder they write in). */
const sharing = new WeakMap<EmacsSession, EmacsSession[]>();

export async function startEmacs(options: StartOptions = {}): Promise<EmacsSession> {
  if (!emacsPath || !emacsclientPath) throw new Error('emacs or emacsclient not installed');
  const shared = options.sameFolderAs;
  const tmpDir = shared ? { path: shared.tmp, cleanup: () => undefined } : makeTempDir('ide-companion-emacs-');
  const tmp = tmpDir.path;
  const workspace = shared ? shared.workspace : path.join(tmp, 'ws');
  fs.mkdirSync(workspace, { recursive: true });
  for (const [name, text] of Object.entries(options.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  const own = fs.mkdtempSync(path.join(tmp, 'emacs-'));
  const serverDir = path.join(own, 'server');
  fs.mkdirSync(serverDir, { mode: 0o700 });
  const home = path.join(own, 'home');
  fs.mkdirSync(home);
  const init = path.join(own, 'init.el');
  fs.writeFileSync(
    init,
    [
      '(setq inhibit-startup-screen t)',
      `(setq server-socket-dir ${elispString(serverDir)} server-name "emacs")`,
      '(server-start)',
      `(add-to-list 'load-path ${elispString(PACKAGE_ROOT)})`,
      options.vterm && VTERM_DIR ? `(add-to-list 'load-path ${elispString(VTERM_DIR)})` : '',
      // Debian compiles it for the system's Emacs only: an older one (27) loads the sources, the module from there.
      options.vterm && VTERM_DIR ? `(when (< emacs-major-version 28) (add-to-list 'load-path ${elispString(VTERM_DIR.replace('/elpa/', '/elpa-src/'))}))` : '',
      "(require 'ide-companion)",
      options.init ?? '',
      '(ide-companion-mode 1)',
    ].join('\n'),
  );
  const tmux = new Tmux(200, 50);
  const command = shellCommand(
    [emacsPath, '-nw', '-Q', '-l', init, ...(options.open ?? [])],
    { TMPDIR: tmp, HOME: home, TERM: 'xterm-256color', ...options.env },
    options.unset,
  );
  tmux.start(options.wrap ? shellCommand(options.wrap(command), {}, []) : command, { cwd: workspace });
  const socket = path.join(serverDir, 'emacs');
  const evalRaw = (expr: string) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(emacsclientPath!, ['-s', socket, '--eval', expr], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`emacsclient --eval ${expr} failed (${code}): ${err}${out}`))));
    });
  try {
    await waitFor(() => fs.existsSync(socket) && evalRaw('t').then((r) => r.trim() === 't'), 'the Emacs server', TIMEOUT);
  } catch (err) {
    const screen = tmux.screen();
    await tmux.stop();
    tmpDir.cleanup();
    throw new Error(`${(err as Error).message}\n--- screen ---\n${screen}`);
  }
  const pid = Number((await evalRaw('(emacs-pid)')).trim());
  const discoveryDir = path.join(tmp, 'gemini', 'ide');
  let closed = false;
  const session: EmacsSession = {
    tmux,
    tmp,
    workspace,
    home: options.env?.['HOME'] ?? home,
    pid,
    discoveryDir,
    eval: evalRaw,
    async evalJson<T>(expr: string) {
      // Emacs 30's json-serialize gives UTF-8 bytes (a unibyte string, printed as octal escapes): decoded, it prints as 28's does.
      // In a vector: Emacs 27's takes no bare string, number or keyword.
      const wrapped = JSON.parse(unprin1(await evalRaw(`(decode-coding-string (json-serialize (vector ${expr})) 'utf-8)`))) as [T];
      return wrapped[0];
    },
    async discovery() {
      await waitFor(async () => (await evalRaw('(and ide-companion--ready t)')).trim() === 't', 'the companion to be ready', TIMEOUT).catch(
        async (err: Error) => {
          throw new Error(`${err.message}: ${await evalRaw('(ide-companion--status-text)')}\n--- screen ---\n${tmux.screen()}`);
        },
      );
      return waitDiscoveryFile(discoveryDir, pid, TIMEOUT);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const other of sharing.get(session) ?? []) await other.close();
      await tmux.stop();
      await waitFor(() => !discoveryFileOf(discoveryDir, pid), 'the host to exit', 5000).catch(() => undefined);
      tmpDir.cleanup();
    },
  };
  if (shared) sharing.set(shared, [...(sharing.get(shared) ?? []), session]);
  return session;
}

export type RecordingClient = EditorClient;

/** A real MCP SDK client connected with what the discovery file says (testkit's, with this harness's timeout). */
export const connectFromDiscovery = (discovery: DiscoveryFile): Promise<RecordingClient> => connectEditorClient(discovery, TIMEOUT);

/** The proposal buffer's name of the diff open in `emacs` for `file` (default: the one diff open), once it is shown. */
export function waitForProposalBuffer(emacs: EmacsSession, timeoutMs = TIMEOUT, file?: string): Promise<string> {
  const found = '(setq found (buffer-name (ide-companion--diff-proposal d)))';
  return waitFor(
    async () =>
      (await emacs.evalJson<string | null>(
        `(let (found) (maphash (lambda (_id d) ${file === undefined ? found : `(when (equal (ide-companion--diff-path d) ${elispString(file)}) ${found})`}) ide-companion--diffs) (or found :null))`,
      )) ?? undefined,
    file === undefined ? 'the diff in Emacs' : `the diff of ${file} in Emacs`,
    timeoutMs,
  );
}

/** The user types M-x ide-companion-gemini; resolves with the agent's PID once its buffer runs in `kind` (term or vterm). */
export async function mxGemini(emacs: EmacsSession, kind: 'term' | 'vterm', timeoutMs = TIMEOUT): Promise<number> {
  emacs.tmux.keys('M-x');
  emacs.tmux.type('ide-companion-gemini');
  emacs.tmux.keys('Enter');
  await waitFor(
    async () =>
      (await emacs.evalJson(
        '(if (buffer-live-p ide-companion--gemini-buffer) (symbol-name (buffer-local-value (quote major-mode) ide-companion--gemini-buffer)) :false)',
      )) === `${kind}-mode`,
    `${kind} running gemini`,
    timeoutMs,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${emacs.tmux.screen()}`);
  });
  return Number((await emacs.eval('(process-id (get-buffer-process ide-companion--gemini-buffer))')).trim());
}

/**
 * C-g on the region, then waits until Emacs has quit it and reported point. Keys sent with C-g in one go are
 * dropped (quitting discards pending input), so the next keys go after this. Point has not moved: the region
 * stands in the context until point moves in the file (PositionIntake).
 */
export async function quitRegion(emacs: EmacsSession): Promise<void> {
  emacs.tmux.keys('C-g');
  await waitFor(
    async () =>
      (await emacs.eval('(if (or (buffer-local-value (quote mark-active) (window-buffer (selected-window))) ide-companion--moved) 1 0)')).trim() === '0',
    'the region quit and point reported',
    TIMEOUT,
  );
}
