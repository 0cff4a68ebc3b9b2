/**
 * Issue 27 item 10: every tool of every face (Gemini's and Qwen's MCP tools,
 * Claude Code's over its WebSocket), through an end with its real editor,
 * called with generated hostile arguments: paths with control characters,
 * `..`, a link out of the workspace, a FIFO, /dev/zero, a directory, huge and
 * empty strings, wrong types, unicode edge cases, missing and extra fields.
 * After every call: the answer is a clear error or an answer, no file outside
 * the roots changed (a sentinel beside the workspace, hashed), and the editor
 * and the companion each answer within 1 s.
 *
 * Bounded: IDE_COMPANION_FUZZ_CASES calls (default 300) or
 * IDE_COMPANION_FUZZ_SECONDS (default 20) per end, whichever ends first.
 * Seeded: the seed is printed; IDE_COMPANION_FUZZ_SEED replays a run.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomInt } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { connectClaudeClient, type ClaudeTestClient } from '../claudeClient.js';
import { connectRecordingClient, type RecordingClient } from '../mcpClient.js';
import type { EndDriver, EndSession } from './driver.js';
import { readLockFile } from './faces.js';
import { CLAUDE_TOOLS, CloseDiffTool, OpenDiffTool, OpenFileTool, SaveDocumentTool } from '@ide-companion/protocol';

/** mulberry32: small, fast and good enough to replay a run from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function fuzzSeed(): number {
  const given = process.env['IDE_COMPANION_FUZZ_SEED'];
  return given !== undefined && /^\d+$/.test(given) ? Number(given) : randomInt(2 ** 31);
}

/** The places a hostile path points at, made in and beside the workspace before the run. */
export interface FuzzWorld {
  workspace: string;
  /** Outside every root: its files must not change. */
  outside: string;
  sentinel: string;
  /** A regular file inside, its text known. */
  inside: string;
  fifo: string;
  dir: string;
  linkOut: string;
}

export function makeFuzzWorld(workspace: string): FuzzWorld {
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-fuzz-outside-'));
  const sentinel = path.join(outside, 'sentinel.txt');
  fs.writeFileSync(sentinel, 'outside the roots: never touched\n');
  const world: FuzzWorld = {
    workspace,
    outside,
    sentinel,
    inside: path.join(workspace, 'fuzz-inside.txt'),
    fifo: path.join(workspace, 'fuzz-fifo'),
    dir: path.join(workspace, 'fuzz-dir'),
    linkOut: path.join(workspace, 'fuzz-link-out.txt'),
  };
  fs.writeFileSync(world.inside, 'inside\n');
  if (!fs.existsSync(world.fifo)) execFileSync('mkfifo', [world.fifo]);
  fs.mkdirSync(world.dir, { recursive: true });
  if (!fs.existsSync(world.linkOut)) fs.symlinkSync(sentinel, world.linkOut);
  return world;
}

/** What outside the roots looks like: names, sizes, modes, times and contents. */
export function outsideFingerprint(world: FuzzWorld): string {
  const hash = createHash('sha256');
  for (const name of fs.readdirSync(world.outside).sort()) {
    const p = path.join(world.outside, name);
    const st = fs.lstatSync(p);
    hash.update(`${name}:${st.size}:${st.mode}:${st.mtimeMs}\n`);
    if (st.isFile()) hash.update(fs.readFileSync(p));
  }
  return hash.digest('hex');
}

/** A FIFO whose reader is stuck in open() is released by a writer that closes at once (so a freeze is seen, then undone). */
export function releaseFifo(fifo: string): void {
  try {
    const fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    fs.closeSync(fd);
  } catch {
    // ENXIO: no reader is waiting.
  }
}

type Kind = 'controlChars' | 'dotdot' | 'linkOut' | 'fifo' | 'device' | 'directory' | 'relative' | 'empty' | 'huge' | 'unicode' | 'inside' | 'uri';

/** A hostile path, and whether a tool that opens, shows or saves it must refuse it. */
export function hostilePath(world: FuzzWorld, pick: <T>(xs: readonly T[]) => T): { kind: Kind; value: string; mustRefuse: boolean } {
  const w = world.workspace;
  const kind = pick<Kind>(['controlChars', 'dotdot', 'linkOut', 'fifo', 'device', 'directory', 'relative', 'empty', 'huge', 'unicode', 'inside', 'uri']);
  switch (kind) {
    case 'controlChars':
      return {
        kind,
        value: path.join(w, pick(['a\u0001b.txt', 'line\nbreak.txt', 'esc\u001b[2J.txt', 'bell\u0007.txt', 'c1\u009b31m.txt', 'nul\u0000.txt', 'cr\r.txt'])),
        mustRefuse: true,
      };
    case 'dotdot':
      return { kind, value: path.join(w, '..', path.relative(path.dirname(w), world.sentinel)).replace(path.dirname(w), `${w}/..`), mustRefuse: true };
    case 'linkOut':
      return { kind, value: world.linkOut, mustRefuse: true };
    case 'fifo':
      return { kind, value: world.fifo, mustRefuse: true };
    case 'device':
      return { kind, value: pick(['/dev/zero', '/dev/null', '/dev/urandom']), mustRefuse: true };
    case 'directory':
      return { kind, value: pick([world.dir, w, `${w}/`, '/']), mustRefuse: true };
    case 'relative':
      return { kind, value: pick(['fuzz-inside.txt', './fuzz-inside.txt', '../sentinel.txt']), mustRefuse: false };
    case 'empty':
      return { kind, value: '', mustRefuse: true };
    case 'huge':
      return { kind, value: path.join(w, 'x'.repeat(pick([300, 5000, 70_000]))), mustRefuse: true };
    case 'unicode':
      return {
        kind,
        value: path.join(w, pick(['\ud800lone.txt', '\u202eevil.txt', 'e\u0301.txt', '\ufeffbom.txt', '😀\u200d.txt', '\uffff.txt'])),
        mustRefuse: false,
      };
    case 'uri':
      return { kind, value: pick([`file://${world.sentinel}`, `file://${world.inside}`, 'file:///dev/zero', `file://${world.fifo}`]), mustRefuse: false };
    case 'inside':
      return { kind, value: world.inside, mustRefuse: false };
  }
}

function hostileValue(world: FuzzWorld, pick: <T>(xs: readonly T[]) => T, random: () => number): unknown {
  switch (pick(['path', 'number', 'bool', 'null', 'array', 'object', 'string', 'hugeString'] as const)) {
    case 'path':
      return hostilePath(world, pick).value;
    case 'number':
      return pick([-1, 0, 1, 2 ** 31, -(2 ** 53), 1e308, 0.5, Math.floor(random() * 100)]);
    case 'bool':
      return random() < 0.5;
    case 'null':
      return null;
    case 'array':
      return pick([[], [1, 2], ['a'], [[]]]);
    case 'object':
      // Parsed, so `__proto__` is an own key as on the wire, not this object's prototype.
      return pick<unknown>([{}, { path: world.sentinel }, JSON.parse('{"__proto__":{"polluted":true}}'), { constructor: { prototype: {} } }]);
    case 'string':
      return pick(['', ' ', '\u0000', '\u001b]52;c;SGVsbG8=\u0007', '\ud83d', 'ﷺ'.repeat(10), '\r\n', '%s%n', '${HOME}', '`id`']);
    case 'hugeString':
      return 'z'.repeat(pick([70_000, 1_000_000]));
  }
}

interface ToolInfo {
  name: string;
  inputSchema?: { properties?: Record<string, { type?: string }>; required?: string[] };
}

/** Properties whose value names a file. */
const PATH_PROPERTY = /path|uri|file/i;
/**
 * Whether `tool` must refuse a path of `kind` (issue 27 item 1): openFile and saveDocument act only on regular
 * files inside the roots; a diff is a proposal the CLI may make for any path, but never of what is not a
 * regular file, and never with control characters in its name.
 */
function refuses(tool: string, kind: Kind): boolean {
  if (tool === OpenFileTool.name || tool === SaveDocumentTool.name) return true;
  if (tool === OpenDiffTool.name) return ['controlChars', 'fifo', 'device', 'directory', 'empty'].includes(kind);
  return false;
}

export interface FuzzCase {
  face: 'gemini' | 'qwen' | 'claude';
  tool: string;
  /** undefined: no `arguments` at all; an array: the wrong type. */
  args: unknown;
  /** Why the answer must be an error, when it must. */
  mustRefuse?: string;
}

/** One case for `tool`: every property hostile or absent, sometimes extra fields, sometimes no object at all. */
export function makeCase(face: FuzzCase['face'], tool: ToolInfo, world: FuzzWorld, random: () => number): FuzzCase {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const shape = random();
  if (shape < 0.05) return { face, tool: tool.name, args: undefined };
  if (shape < 0.1) return { face, tool: tool.name, args: pick([[], ['x'], 'string', 7, null]), mustRefuse: 'arguments of the wrong type' };
  const properties = tool.inputSchema?.properties ?? {};
  const required = new Set(tool.inputSchema?.required ?? []);
  const args: Record<string, unknown> = {};
  let mustRefuse: string | undefined;
  for (const [name, schema] of Object.entries(properties)) {
    const roll = random();
    if (roll < 0.1) {
      if (required.has(name)) mustRefuse ??= `required ${name} missing`;
      continue;
    }
    if (PATH_PROPERTY.test(name) && schema.type !== 'boolean' && roll < 0.85) {
      const p = hostilePath(world, pick);
      args[name] = p.value;
      if (p.mustRefuse && refuses(tool.name, p.kind) && (name === 'path' || name === 'filePath' || name === 'new_file_path'))
        mustRefuse ??= `${name} is ${p.kind}`;
      continue;
    }
    if (roll < 0.6 && schema.type === 'string') args[name] = pick(['', 'x', world.inside, 'ok']);
    else if (roll < 0.6 && (schema.type === 'number' || schema.type === 'integer')) args[name] = pick([1, 2, 3]);
    else {
      const value = hostileValue(world, pick, random);
      args[name] = value;
      const wrongType =
        (schema.type === 'string' && typeof value !== 'string') ||
        ((schema.type === 'number' || schema.type === 'integer') && typeof value !== 'number') ||
        (schema.type === 'boolean' && typeof value !== 'boolean');
      if (wrongType) mustRefuse ??= `${name} of the wrong type`;
    }
  }
  if (random() < 0.2) args[pick(['extra', '__proto__', 'constructor', 'jsonrpc'])] = hostileValue(world, pick, random);
  return { face, tool: tool.name, args, ...(mustRefuse && { mustRefuse }) };
}

/** What a call came back with. */
type Answer = { kind: 'result'; isError: boolean; text: string } | { kind: 'rpcError'; message: string } | { kind: 'timeout' };

/** A clear error: a message in words, short, without a stack trace or an internal dump. */
export function unclearError(message: string, args: unknown): string | undefined {
  if (message.trim().length === 0) return 'an empty error message';
  if (/\n\s+at .+:\d+:\d+/.test(message)) return 'a stack trace in the error';
  // Quoting what was given is clear; a dump of internals is not.
  let own = message;
  // The longest first: a shorter argument made of the same characters would cut a longer one quoted whole into pieces.
  const given = Object.values(typeof args === 'object' && args !== null ? args : {})
    .filter((value): value is string => typeof value === 'string' && value.length > 20)
    .sort((a, b) => b.length - a.length);
  for (const value of given) own = own.replaceAll(JSON.stringify(value).slice(1, -1), '').replaceAll(value, '');
  if (own.length > 2000) return `an error of ${message.length} characters`;
  return undefined;
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([p, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref())]);

/** Registers the fuzz test for `driver`'s end. */
export function fuzzSuite(driver: EndDriver, options: { skip?: string | false } = {}): void {
  const maxCases = Number(process.env['IDE_COMPANION_FUZZ_CASES'] ?? 300);
  const maxSeconds = Number(process.env['IDE_COMPANION_FUZZ_SECONDS'] ?? 20);
  test(
    `fuzz: every tool of every face through ${driver.name}, hostile arguments`,
    { skip: options.skip ?? false, timeout: (maxSeconds + 120) * 1000 },
    async (t) => {
      const seed = fuzzSeed();
      t.diagnostic(`seed ${seed} (IDE_COMPANION_FUZZ_SEED=${seed} replays this run)`);
      console.error(`fuzz ${driver.name}: seed ${seed} (IDE_COMPANION_FUZZ_SEED=${seed} replays this run)`);
      const random = seededRandom(seed);
      const session = await driver.start({ 'fuzz-inside.txt': 'inside\n' });
      const world = makeFuzzWorld(session.workspace);
      const clients: { gemini?: RecordingClient; qwen?: RecordingClient; claude?: ClaudeTestClient } = {};
      try {
        const { content } = await session.discovery();
        clients.gemini = await connectRecordingClient({ port: content.port, token: content.authToken });
        if (!driver.unsupported['faces:qwen']) {
          const lock = await readLockFile(session.qwenHome, content.port);
          clients.qwen = await connectRecordingClient({ port: content.port, token: lock.authToken });
        }
        if (!driver.unsupported['faces:claude']) {
          const lock = await readLockFile(session.claudeConfigDir, content.port);
          clients.claude = await connectClaudeClient({ port: content.port, token: lock.authToken });
        }
        const tools: Array<{ face: FuzzCase['face']; tool: ToolInfo }> = [];
        for (const face of ['gemini', 'qwen'] as const) {
          const c = clients[face];
          if (c) for (const tool of (await c.client.listTools()).tools as ToolInfo[]) tools.push({ face, tool });
        }
        if (clients.claude)
          for (const tool of ((await clients.claude.request('tools/list', {})) as { tools: ToolInfo[] }).tools) tools.push({ face: 'claude', tool });
        const before = outsideFingerprint(world);
        const failures: string[] = [];
        const started = Date.now();
        let count = 0;
        // Every tool once first (so each is called however short the budget), then at random.
        for (; count < maxCases && Date.now() - started < maxSeconds * 1000; count++) {
          const { face, tool } = count < tools.length ? tools[count]! : tools[Math.floor(random() * tools.length)]!;
          const c = makeCase(face, tool, world, random);
          const label = `#${count} ${face} ${c.tool} ${describeArgs(c.args, world)}`;
          const answer = await call(clients, c);
          const complaint = judge(c, answer);
          if (complaint) failures.push(`${label}: ${complaint}`);
          await cleanUp(clients, c);
          releaseFifo(world.fifo);
          if (outsideFingerprint(world) !== before) {
            failures.push(`${label}: a file outside the roots changed`);
            break;
          }
          const dead = await liveness(session, clients.gemini);
          if (dead) {
            failures.push(`${label}: ${dead}`);
            break;
          }
        }
        t.diagnostic(`${count} calls over ${tools.length} tools in ${Date.now() - started} ms`);
        assert.deepEqual(failures, [], `seed ${seed}: ${failures.length} failing case(s)`);
      } finally {
        releaseFifo(world.fifo);
        await clients.claude?.close().catch(() => undefined);
        await clients.qwen?.close().catch(() => undefined);
        await clients.gemini?.close().catch(() => undefined);
        await session.close();
        await driver.dispose?.();
        fs.rmSync(world.outside, { recursive: true, force: true });
      }
    },
  );
}

function describeArgs(args: unknown, world: FuzzWorld): string {
  const text = JSON.stringify(args, (_k, v) => (typeof v === 'string' && v.length > 80 ? `<${v.length} chars: ${v.slice(0, 20)}…>` : v)) ?? 'no arguments';
  return text.replaceAll(world.workspace, 'WS').replaceAll(world.outside, 'OUT');
}

async function call(clients: { gemini?: RecordingClient; qwen?: RecordingClient; claude?: ClaudeTestClient }, c: FuzzCase): Promise<Answer> {
  const request =
    c.face === 'claude'
      ? clients.claude!.request('tools/call', { name: c.tool, ...(c.args !== undefined && { arguments: c.args }) })
      : clients[c.face]!.client.callTool({ name: c.tool, ...(c.args !== undefined && { arguments: c.args as Record<string, unknown> }) });
  const settled = request.then(
    (r: any) => ({ kind: 'result', isError: r?.isError === true, text: String(r?.content?.find?.((b: any) => b.type === 'text')?.text ?? '') }) as Answer,
    (err: Error) => ({ kind: 'rpcError', message: err.message }) as Answer,
  );
  // Claude's openDiff waits for the user: a shown diff is no answer yet, and is closed by cleanUp.
  const waitMs = c.face === 'claude' && c.tool === CLAUDE_TOOLS.openDiff ? 1500 : 5000;
  const answer = await withTimeout(settled, waitMs);
  if (answer !== 'timeout') return answer;
  if (c.face === 'claude' && c.tool === CLAUDE_TOOLS.openDiff) return { kind: 'result', isError: false, text: 'shown (waiting for the user)' };
  return { kind: 'timeout' };
}

function judge(c: FuzzCase, answer: Answer): string | undefined {
  if (answer.kind === 'timeout') return 'no answer within 5 s';
  if (answer.kind === 'rpcError') return unclearError(answer.message, c.args);
  if (answer.isError) return unclearError(answer.text, c.args);
  // saveDocument's documented "not saved, and why" (Claude's `success: false` too) is a refusal in words.
  const declined = refusalMessage(answer.text);
  if (declined !== undefined) return unclearError(declined, c.args);
  if (c.mustRefuse) return `answered as a success, but ${c.mustRefuse} must be refused: ${JSON.stringify(answer.text.slice(0, 200))}`;
  return undefined;
}

function refusalMessage(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { saved?: unknown; success?: unknown; message?: unknown };
    if (parsed?.saved === false || parsed?.success === false) return String(parsed.message ?? '');
  } catch {
    // Not JSON: not a refusal in that form.
  }
  return undefined;
}

/** Closes whatever the case may have opened in the editor (diffs), so the next case starts clean. */
async function cleanUp(clients: { gemini?: RecordingClient; qwen?: RecordingClient; claude?: ClaudeTestClient }, c: FuzzCase): Promise<void> {
  if (c.tool !== OpenDiffTool.name || typeof c.args !== 'object' || c.args === null) return;
  const args = c.args as Record<string, unknown>;
  if (c.face === 'claude') {
    await withTimeout(
      clients.claude!.request('tools/call', { name: CLAUDE_TOOLS.closeAllDiffTabs, arguments: {} }).catch(() => undefined),
      3000,
    );
    return;
  }
  if (typeof args['filePath'] === 'string')
    await withTimeout(
      clients[c.face]!.client.callTool({ name: CloseDiffTool.name, arguments: { filePath: args['filePath'] } }).catch(() => undefined),
      3000,
    );
}

/** Why the end or its companion is not answering within 1 s, or undefined. */
async function liveness(session: EndSession, gemini: RecordingClient | undefined): Promise<string | undefined> {
  const editor = await withTimeout(
    session.ping().then(
      () => 'ok',
      (err: Error) => `the editor failed to answer: ${err.message}`,
    ),
    1000,
  );
  if (editor !== 'ok') return editor === 'timeout' ? 'the editor did not answer within 1 s' : editor;
  if (!gemini) return undefined;
  const companion = await withTimeout(
    gemini.client.listTools().then(
      () => 'ok',
      (err: Error) => `the companion failed to answer: ${err.message}`,
    ),
    1000,
  );
  if (companion !== 'ok') return companion === 'timeout' ? 'the companion did not answer within 1 s' : companion;
  return undefined;
}
