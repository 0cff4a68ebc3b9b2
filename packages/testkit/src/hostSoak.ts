/**
 * The soak (soak.ts) run against an editor end's real host process, driven
 * as its editor drives it (issue 21): the JSON-lines bridge host (the host of
 * Vim, Emacs and scripts) by a scripted editor on its stdin/stdout, and the
 * Neovim host by the plugin itself in a real Neovim (soak-editor.lua). The
 * same MCP SDK client as the CLI, the same rounds of events, diffs and
 * reconnects. After each round: RSS and open descriptors from /proc/PID, the
 * host's heap after a full GC and its active resources (timers, sockets)
 * from soak-probe.mjs, loaded into the unchanged host with NODE_OPTIONS.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { repoRoot } from './geminiCli.js';
import assert from 'node:assert/strict';
import { driveSoak, soakVerdict, type SoakOptions, type SoakResult, type SoakStats, type SoakTarget, type SoakVerdict } from './soak.js';
import { makeTempDir } from './tempDir.js';
import { waitFor } from './wait.js';

// Compiled to dist/src/: the probe and the Lua stay in the source tree.
const PROBE = fileURLToPath(new URL('../../src/soak-probe.mjs', import.meta.url));
const NEOVIM_EDITOR = fileURLToPath(new URL('../../src/soak-editor.lua', import.meta.url));

/** What Vim and Emacs run: the committed bundle of `ide-companion bridge`. */
export const BRIDGE_HOST = path.join(repoRoot, 'editors', 'jsonlines', 'host', 'ide-companion-bridge.mjs');

/** A soak target that is a host process of its own. */
export interface HostSoak extends SoakTarget {
  pid: number;
  /** Stops what the soak started (the bridge host; not a Neovim it was given). */
  close(): Promise<void>;
}

/** Every EDIT_EVERY-th diff (the 4th, 8th, ...) is accepted with EDIT_LINE added, as a user's edit. */
const EDIT_EVERY = 4;
const editedAt = (index: number) => (index + 1) % EDIT_EVERY === 0;

const FILES = 50;
const LINES = 200;
const FILLER = 'const value = compute(line, column); // soak filler text';

/** The workspace's files the editor moves through: FILES of LINES lines. */
function writeWorkspaceFiles(workspace: string): string[] {
  const files: string[] = [];
  for (let i = 0; i < FILES; i++) {
    const file = path.join(workspace, `file${i}.ts`);
    let text = '';
    for (let line = 1; line <= LINES; line++) text += `${String(line).padStart(4, '0')} ${FILLER}\n`;
    fs.writeFileSync(file, text);
    files.push(file);
  }
  return files;
}

/**
 * Diff `index`'s proposal: `size` bytes of numbered lines, as code is. Lines
 * shared with the file's last text, so an editor's diff stays cheap.
 */
export function proposalText(size: number, index: number): string {
  const parts = [`proposal ${index}\n`];
  let length = parts[0]!.length;
  for (let line = 1; length < size; line++) {
    const part = `${String(line).padStart(6, '0')} ${FILLER}\n`;
    parts.push(part);
    length += part.length;
  }
  return parts.join('').slice(0, size - 1) + '\n';
}

/** NODE_OPTIONS and the folder that load soak-probe.mjs into a node process started with them. */
function probeEnv(dir: string): Record<string, string> {
  const existing = process.env['NODE_OPTIONS'];
  return {
    NODE_OPTIONS: `${existing ? `${existing} ` : ''}--import=${pathToFileURL(PROBE).href}`,
    IDE_COMPANION_SOAK_PROBE_DIR: dir,
  };
}

const SETTLE_MS = 200;

/** A host's sample: SoakStats less the connections the client holds open, which are counted apart. */
export interface HostSoakStats extends SoakStats {
  /** Established connections on the companion's port: the client's stream and its idle keep-alive pool. */
  connections: number;
}

/** How many of `pid`'s sockets are established TCP connections on local `port` (/proc/net/tcp, tcp6). */
function establishedOn(pid: number, port: number): number {
  const sockets = new Set<string>();
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) sockets.add(inode);
    } catch {
      // Closed meanwhile.
    }
  }
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT, st 01 is ESTABLISHED, the inode is the tenth field.
      if (fields.length > 9 && fields[3] === '01' && parseInt(fields[1]!.split(':')[1]!, 16) === port && sockets.has(fields[9]!)) count++;
    }
  }
  return count;
}

/**
 * RSS and descriptors of `pid` from /proc; its heap and resources from its
 * probe (which runs a GC first). The client's open connections (its idle
 * keep-alive pool is closed by the server's timeout, on no round's beat) are
 * taken out of the descriptors and TCP sockets: what is left is the host's own.
 */
async function hostStats(pid: number, port: number, probeDir: string): Promise<HostSoakStats> {
  const file = path.join(probeDir, `probe-${pid}.json`);
  const read = () => {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as { seq: number; heapUsed: number; resources: Record<string, number> };
    } catch {
      return undefined;
    }
  };
  // A moment for what the round's last steps armed (a coalesced context update, a new session's wait for its stream).
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  let probe: { seq: number; heapUsed: number; resources: Record<string, number> };
  let connections: number;
  // The client's connections, counted in /proc, must not change while the probe counts sockets (its keep-alive
  // pool closing between the two once left one socket counted as the host's): else sample again, at most three times.
  for (let attempt = 1; ; attempt++) {
    const before = read()?.seq ?? 0;
    const connectionsBefore = establishedOn(pid, port);
    process.kill(pid, 'SIGUSR2');
    probe = await waitFor(() => read()?.seq === before + 1 && read(), `the probe of host ${pid}`, 10_000, 5);
    connections = establishedOn(pid, port);
    if (connections === connectionsBefore || attempt === 3) break;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  }
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  if (!Number.isFinite(rssKiB)) throw new Error(`no VmRSS in /proc/${pid}/status`);
  const resources = { ...probe.resources };
  if (resources['TCPSocketWrap'] !== undefined) resources['TCPSocketWrap'] -= connections;
  return { heapUsed: probe.heapUsed, rss: rssKiB * 1024, fds: fs.readdirSync(`/proc/${pid}/fd`).length - connections, resources, connections };
}

/** Runs the soak's rounds against a started host (diff sizes spread over the rounds unless told), then closes it. */
export async function runHostSoak(host: HostSoak, options: SoakOptions): Promise<SoakResult> {
  try {
    return await driveSoak(host, { diffOrder: 'spread', ...options });
  } finally {
    await host.close();
  }
}

type HostLine = { type: string; id?: number; action?: string; params?: Record<string, unknown>; message?: string; [key: string]: unknown };

/**
 * Starts the bridge host (`hostScript`, default the bundle Vim and Emacs run)
 * with a scripted editor: it writes the events as JSON lines, answers every
 * showDiff/diffText/closeDiff request and accepts each diff on a later turn.
 */
export async function startBridgeSoak(hostScript = BRIDGE_HOST): Promise<HostSoak> {
  const tmp = makeTempDir('ide-companion-bridge-soak-');
  const workspace = path.join(tmp.path, 'ws');
  const probeDir = path.join(tmp.path, 'probe');
  fs.mkdirSync(workspace);
  fs.mkdirSync(probeDir);
  const files = writeWorkspaceFiles(workspace);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...probeEnv(probeDir),
    TMPDIR: tmp.path,
    QWEN_HOME: path.join(tmp.path, 'qwen-home'),
    CLAUDE_CONFIG_DIR: path.join(tmp.path, 'claude'),
  };
  for (const key of Object.keys(env)) if (key.startsWith('GEMINI_CLI_IDE_') || key.startsWith('QWEN_CODE_IDE_')) delete env[key];
  const child = spawn(process.execPath, [hostScript], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  // The host's log (a line per session and diff): its tail is kept for a failure's message.
  let logTail = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (logTail = (logTail + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);

  let ready: ((line: HostLine) => void) | undefined;
  const readyLine = new Promise<HostLine>((resolve) => (ready = resolve));
  const barriers = new Map<string, () => void>();
  const unexpected: string[] = [];
  let shown = 0;
  createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (text) => {
    const line = JSON.parse(text) as HostLine;
    if (line.type === 'ready') return ready?.(line);
    if (line.type === 'error') {
      // The barrier's answer (see events below); any other error is the soak's failure.
      const barrier = /^no pending diff (soak-sync-\d+)$/.exec(line.message ?? '')?.[1];
      if (barrier && barriers.has(barrier)) return barriers.get(barrier)?.();
      unexpected.push(line.message ?? text);
      return;
    }
    if (line.type !== 'request') return;
    const params = line.params ?? {};
    if (line.action === 'showDiff') {
      send({ type: 'response', id: line.id, result: null });
      const index = shown++;
      const diffId = params['diffId'] as string;
      const proposal = params['newContent'] as string;
      // As a user who reads first: the decision comes on a later turn.
      setImmediate(() =>
        send(editedAt(index) ? { type: 'diffAccepted', diffId, content: `${proposal}edited in the script\n` } : { type: 'diffAccepted', diffId }),
      );
    } else if (line.action === 'diffText') {
      send({ type: 'response', id: line.id, result: { text: null } });
    } else if (line.action === 'closeDiff') {
      send({ type: 'response', id: line.id, result: null });
    } else {
      send({ type: 'response', id: line.id, error: `the soak's editor does not ${line.action}` });
    }
  });

  send({ type: 'hello', protocol: 1, ide: { name: 'soak', displayName: 'Soak Script' }, pid: process.pid, roots: [workspace], capabilities: [] });
  const startFailed = exited.then(() => {
    throw new Error(`the bridge host exited before ready: ${logTail}`);
  });
  const readyMessage = await Promise.race([readyLine, startFailed]);
  const token = (readyMessage['env'] as Record<string, string>)['GEMINI_CLI_IDE_AUTH_TOKEN'];
  if (!token || typeof readyMessage['port'] !== 'number' || !child.pid)
    throw new Error(`the bridge host's ready lacks a port or token: ${JSON.stringify(readyMessage)}`);
  const pid = child.pid;
  const port = readyMessage['port'];

  let n = 0;
  let syncs = 0;
  /** Event n: a focus every tenth, a selection every tenth, cursor moves between (as soak-companion.mjs). */
  const eventLine = () => {
    const file = files[Math.floor(n / 10) % FILES]!;
    const line = 1 + (n % LINES);
    const character = 1 + (Math.floor(n / LINES) % FILLER.length);
    const kind = n++ % 10;
    if (kind === 0) return JSON.stringify({ type: 'focus', path: file, cursor: { line, character } });
    if (kind === 9) return JSON.stringify({ type: 'selection', path: file, selectedText: `${FILLER} ${n}` });
    return JSON.stringify({ type: 'cursor', path: file, cursor: { line, character } });
  };
  const CHUNK = 1000;

  return {
    pid,
    port,
    token,
    workspace,
    proposal: proposalText,
    acceptedText: (proposal, index) => (editedAt(index) ? `${proposal}edited in the script\n` : proposal),
    async events(count) {
      for (let done = 0; done < count;) {
        const lines: string[] = [];
        for (const end = Math.min(count, done + CHUNK); done < end; done++) lines.push(eventLine());
        // The pipe's backpressure: the editor waits as a script's write would.
        if (!child.stdin.write(`${lines.join('\n')}\n`)) await new Promise((resolve) => child.stdin.once('drain', resolve));
      }
      // A barrier: a decision for a diff that does not exist is answered with an error, in order, after every line before it.
      const barrier = `soak-sync-${++syncs}`;
      const answered = new Promise<void>((resolve) => barriers.set(barrier, resolve));
      send({ type: 'diffAccepted', diffId: barrier });
      await Promise.race([answered, exited.then(() => Promise.reject(new Error(`the bridge host exited: ${logTail}`)))]);
      barriers.delete(barrier);
      if (unexpected.length > 0) throw new Error(`the bridge host answered with errors: ${unexpected.slice(0, 3).join('; ')}`);
      return count;
    },
    stats: () => hostStats(pid, port, probeDir),
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      tmp.cleanup();
    },
  };
}

/** What startNeovimSoak needs of a headless Neovim with the plugin on its runtimepath (editors/neovim/test/harness.ts). */
export interface NeovimSoakSession {
  /** Neovim's cwd: the workspace. */
  workspace: string;
  lua<T = unknown>(code: string, ...args: unknown[]): Promise<T>;
}

/**
 * Starts the plugin's host in `session` (set up with `auto_start = false`)
 * with the probe loaded, the workspace's files open and soak-editor.lua making
 * events and accepting diffs. Events go in batches of `batch` moves, so
 * Neovim answers the host's calls (a diff to show) between them.
 */
export async function startNeovimSoak(session: NeovimSoakSession, batch = 1000): Promise<HostSoak> {
  const probeDir = makeTempDir('ide-companion-nvim-soak-');
  const files = writeWorkspaceFiles(session.workspace);
  const probe = probeEnv(probeDir.path);
  await session.lua('vim.env.NODE_OPTIONS, vim.env.IDE_COMPANION_SOAK_PROBE_DIR = ...', probe['NODE_OPTIONS'], probe['IDE_COMPANION_SOAK_PROBE_DIR']);
  const editLine = await session.lua<string>('local soak = dofile(...); soak.setup(select(2, ...)); return soak.EDIT_LINE', NEOVIM_EDITOR, files);
  if ((await session.lua('return require("ide_companion").start()')) !== true) throw new Error('the plugin could not start its host');
  await waitFor(async () => (await session.lua('return require("ide_companion").is_running()')) === true, 'the companion to run', 20_000);
  const info = await session.lua<{ hostPid: number; port: number; env: Record<string, string> }>('return require("ide_companion.host").state.info');
  const token = info.env['GEMINI_CLI_IDE_AUTH_TOKEN'];
  if (!token) throw new Error('the host reported no token');
  let syncs = 0;
  return {
    pid: info.hostPid,
    port: info.port,
    token,
    workspace: session.workspace,
    proposal: proposalText,
    acceptedText: (proposal, index) => (editedAt(index) ? `${proposal}${editLine}\n` : proposal),
    async events(count) {
      let sent = 0;
      for (let done = 0; done < count; done += batch) {
        sent += await session.lua<number>('return _G.ide_companion_soak.events(...)', Math.min(batch, count - done));
      }
      // A barrier: the host answers a mention no agent takes after every event before it.
      const barrier = path.join(session.workspace, `soak-sync-${++syncs}`);
      await session.lua('_G.ide_companion_soak.barrier(...)', barrier);
      await waitFor(async () => (await session.lua('return _G.ide_companion_soak.heard')) === barrier, 'the host to take the events', 60_000, 2);
      return sent;
    },
    stats: () => hostStats(info.hostPid, info.port, probeDir.path),
    async close() {
      probeDir.cleanup();
    },
  };
}

/** What every short host soak holds (its events are checked by each test: a host may skip a move that goes nowhere). */
export function assertShortHostSoak(
  result: SoakResult,
  options: Pick<SoakOptions, 'diffs' | 'reconnects'> & { warmupRounds?: number },
  log: (line: string) => void,
): SoakVerdict {
  const verdict = soakVerdict(result, options.warmupRounds);
  log(JSON.stringify({ ...verdict, durationMs: Math.round(result.durationMs), contextUpdates: result.contextUpdates }));
  assert.equal(result.diffsAnswered, options.diffs);
  assert.equal(result.reconnects, options.reconnects);
  assert.ok(result.contextUpdates > 0, 'the client received context updates');
  assert.equal(verdict.fdsLeaked, 0, 'open descriptors (/proc/PID/fd) after the work = after the warm-up');
  assert.deepEqual(verdict.resourcesLeaked, {}, 'no timer, socket or handle more than after the warm-up');
  assert.ok(verdict.rssGrowth < 1.25, `RSS grew ${verdict.rssGrowth.toFixed(3)}x after the warm-up`);
  return verdict;
}
