/**
 * The stable per-user address (docs/remote.md, "One address per user"): one
 * folder per user holding one socket per workspace folder, named by a hash of
 * the folder's path. Whichever companion serves that folder binds it, the
 * newest first; when its owner stops or dies, another companion serving the
 * folder takes it over within a second. The folder itself is never removed:
 * a container mounts it, `gemini --sandbox` mounts it and `ssh -R` forwards a
 * socket in it, each set up once, before or after any editor starts.
 *
 *   $XDG_RUNTIME_DIR/ide-companion/        0700, ours, not a link (else <tmpdir>/ide-companion-<UID>/workspaces/)
 *       <hash of the folder>.sock          0600: the companion serving that folder now
 *
 * Who may connect is what the file system says (the folder 0700, the socket
 * 0600, as an ssh-agent socket): the companion puts its own token on each
 * request that comes in here, so no token leaves this machine, none is mounted
 * or copied, and a relay set up once still works with the next companion's.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { listenPrivately, MAX_SOCKET_PATH_BYTES, socketBaseDir } from './companionSocket.js';
import { folderWayProblem, socketFolderProblem } from '@ide-companion/shared/privateSocket';
import { DiscoveryFileError, ensurePrivateDirectory } from './discoveryFile.js';
import { closeServer, mcpServer } from './http/mcpServer.js';

/** How often a companion checks the sockets of its folders that another one owns (and takes over a dead one's). */
export const TAKEOVER_CHECK_MS = 500;
const PROBE_TIMEOUT_MS = 500;

/**
 * The folder: under `$XDG_RUNTIME_DIR` (private, per user, gone at logout),
 * else `<tmpdir>/ide-companion-<UID>/workspaces`. An explicit `tmpdir` (tests,
 * a companion given one) wins, so that one tmpdir holds everything of one run.
 */
export function stableSocketDir(options: { tmpdir?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const env = options.env ?? process.env;
  const runtime = env['XDG_RUNTIME_DIR'];
  if (options.tmpdir === undefined && runtime && path.isAbsolute(runtime)) return path.join(runtime, 'ide-companion');
  return path.join(socketBaseDir(options.tmpdir ?? os.tmpdir()), 'workspaces');
}

/**
 * The folder, made privately (0700, ours, not a link) with its parent when that is ours to make; refused when a
 * folder on the way lets another user swap it (shared/privateSocket.ts: the check the relay makes before each dial).
 */
export function ensureStableSocketDir(dir: string): string {
  // The way first, before anything is made on it; then the folder is made private (or chmod-ed so) and checked whole.
  const way = folderWayProblem(dir);
  if (way) throw new DiscoveryFileError(`${way}; no workspace socket is bound there`);
  if (path.basename(dir) === 'workspaces') ensurePrivateDirectory(path.dirname(dir));
  ensurePrivateDirectory(dir);
  const made = socketFolderProblem(dir);
  if (made) throw new DiscoveryFileError(`${made.reason}; no workspace socket is bound there`);
  return dir;
}

/** The socket's name for a workspace folder (its real path on the editor's machine). */
export function workspaceSocketName(root: string): string {
  return `${createHash('sha256').update(root).digest('hex').slice(0, 16)}.sock`;
}

export function workspaceSocketPath(dir: string, root: string): string {
  return path.join(dir, workspaceSocketName(root));
}

/** Whether something accepts connections at `socketPath` (a live companion), within a bounded time. */
export function socketAnswers(socketPath: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    const done = (alive: boolean) => {
      clearTimeout(timer);
      probe.destroy();
      resolve(alive);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
  });
}

interface Binding {
  root: string;
  socketPath: string;
  server: http.Server | undefined;
  /** The inode we bound: the file at socketPath is ours while it has this one. */
  ino: number | undefined;
}

export interface WorkspaceSocketsOptions {
  dir: string;
  /** Serves one request that came in on a workspace socket (the companion's handler, its token added). */
  handler: http.RequestListener;
  log: (message: string, fields?: Record<string, unknown>) => void;
}

/** One companion's share of the folder: a socket per workspace folder it serves, bound, watched, taken over, released. */
export class WorkspaceSockets {
  private readonly bindings = new Map<string, Binding>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private closed = false;

  constructor(private readonly options: WorkspaceSocketsOptions) {}

  /** The sockets this companion answers on now (folder -> socket). */
  get owned(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const b of this.bindings.values()) if (b.server) out[b.root] = b.socketPath;
    return out;
  }

  /** Serves these folders: binds the new ones (taking them from an older companion), releases those no longer served. */
  async update(roots: readonly string[]): Promise<void> {
    if (this.closed) return;
    ensureStableSocketDir(this.options.dir);
    for (const [root, binding] of this.bindings) {
      if (!roots.includes(root)) {
        this.bindings.delete(root);
        await this.release(binding);
      }
    }
    for (const root of roots) {
      if (this.bindings.has(root)) continue;
      const socketPath = workspaceSocketPath(this.options.dir, root);
      // Its temporary name (bind) is the longer one.
      if (Buffer.byteLength(socketPath) + String(process.pid).length + 2 > MAX_SOCKET_PATH_BYTES) {
        this.options.log('no workspace socket: its path is too long for a socket address', { path: socketPath });
        continue;
      }
      const binding: Binding = { root, socketPath, server: undefined, ino: undefined };
      this.bindings.set(root, binding);
      await this.bind(binding);
    }
    this.timer ??= setInterval(() => void this.check(), TAKEOVER_CHECK_MS);
    this.timer.unref();
  }

  /**
   * Takes the path: whatever was there (an older companion's, a dead one's)
   * is replaced in one rename. Bound under a temporary name first because
   * libuv unlinks the name it bound when the server closes: a companion that
   * lost the path must not remove the new owner's socket as it closes.
   */
  private async bind(binding: Binding): Promise<void> {
    const server = mcpServer(this.options.handler);
    const temporary = path.join(path.dirname(binding.socketPath), `.${process.pid}-${path.basename(binding.socketPath)}`);
    try {
      fs.rmSync(temporary, { force: true });
      await listenPrivately(server, temporary);
      // Closed (or the folder dropped) while it was listening: this server is nobody's to close later.
      if (this.closed || this.bindings.get(binding.root) !== binding) {
        server.close();
        fs.rmSync(temporary, { force: true });
        return;
      }
      fs.renameSync(temporary, binding.socketPath);
      binding.ino = fs.statSync(binding.socketPath).ino;
      binding.server = server;
      this.options.log('workspace socket bound', { workspace: binding.root, socket: binding.socketPath });
    } catch (err) {
      server.close();
      fs.rmSync(temporary, { force: true });
      this.options.log('workspace socket not bound', { workspace: binding.root, error: (err as Error).message });
    }
  }

  /** Each tick: a socket we lost (another companion took it) is let go; one whose owner is gone is taken over. */
  private async check(): Promise<void> {
    if (this.checking || this.closed) return;
    this.checking = true;
    try {
      for (const binding of [...this.bindings.values()]) {
        if (this.closed) return;
        const ino = inodeOf(binding.socketPath);
        if (binding.server && ino === binding.ino) continue;
        if (binding.server) {
          this.options.log('workspace socket taken by another companion', { workspace: binding.root });
          void closeServer(binding.server);
          binding.server = undefined;
          binding.ino = undefined;
        }
        if (ino === undefined || !(await socketAnswers(binding.socketPath))) {
          if (this.bindings.get(binding.root) === binding && !this.closed) await this.bind(binding);
        }
      }
    } finally {
      this.checking = false;
    }
  }

  private async release(binding: Binding): Promise<void> {
    if (!binding.server) return;
    // Only our own file: another companion may have taken the path since.
    if (inodeOf(binding.socketPath) === binding.ino) fs.rmSync(binding.socketPath, { force: true });
    const server = binding.server;
    binding.server = undefined;
    await closeServer(server);
  }

  /** Synchronous unlinking of our sockets, for exit handlers; the servers close with the process. */
  removeSync(): void {
    for (const b of this.bindings.values()) {
      if (b.server && inodeOf(b.socketPath) === b.ino) fs.rmSync(b.socketPath, { force: true });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const bindings = [...this.bindings.values()];
    this.bindings.clear();
    await Promise.all(bindings.map((b) => this.release(b)));
  }
}

function inodeOf(p: string): number | undefined {
  try {
    const st = fs.lstatSync(p);
    return st.isSocket() ? st.ino : undefined;
  } catch {
    return undefined;
  }
}
