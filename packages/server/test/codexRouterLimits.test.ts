/**
 * The Codex router and face against slow, silent and refused peers and
 * unsafe folders (issue 35): silent connections and trickled frames cannot
 * lock Codex CLI out (deadlines, and a full router gives an idle place to a
 * new connection); a connection refused by the face's re-check is closed; a
 * CODEX_HOME others can write to, or one that is a link into another user's
 * 0777 folder, is refused with the reason and nothing is bound there; an
 * ide-context without a workspace root is no-client-found at once, as
 * Codex's router answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { askCodexIdeContext, CodexWire } from '@ide-companion/testkit';
import { healthItems } from '../src/healthLines.js';
import { silentLogger } from '../src/logger.js';
import { CodexFace } from '../src/faces/codexFace.js';
import { DEFAULT_CODEX_ROUTER_LIMITS } from '../src/faces/codexRouter.js';
import { codexState, startCompanion, type Harness } from './helpers.js';

const NOBODY = 65534;
/** The CLI's /ide must be answered within this, whatever else holds connections. */
const ANSWER_BUDGET_MS = 2_000;

function tmpFolder(t: import('node:test').TestContext): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'codex-limits-')));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function codexCompanion(t: import('node:test').TestContext, socketPath: string, workspace: string, warnings?: string[]): Promise<Harness> {
  fs.mkdirSync(workspace, { recursive: true });
  const h = await startCompanion({
    agents: ['gemini', 'codex'],
    facePaths: { codex: socketPath },
    workspace,
    ...(warnings && { logger: { ...silentLogger, warn: (m: string, f?: Record<string, unknown>) => warnings.push(`${m} ${JSON.stringify(f ?? {})}`) } }),
  });
  t.after(() => h.cleanup());
  return h;
}

/** A face's context where nothing is open. */
const emptyContext = () => ({ context: { workspaceState: { openFiles: [], isTrusted: true } }, selectionBackward: false });

/** A client that initializes as the VS Code extension does, answered. */
async function initializedClient(t: import('node:test').TestContext, socketPath: string): Promise<CodexWire> {
  const wire = await CodexWire.connect(socketPath);
  t.after(() => wire.close());
  wire.send({ type: 'request', requestId: 'i', sourceClientId: 'initializing-client', version: 0, method: 'initialize', params: { clientType: 'vscode' } });
  assert.equal((await wire.next()).resultType, 'success');
  return wire;
}

/** A CODEX_HOME of `mode` (made, then chmod-ed past the umask). */
function homeOfMode(dir: string, name: string, mode: number): string {
  const home = path.join(dir, name);
  fs.mkdirSync(home);
  fs.chmodSync(home, mode);
  return home;
}

const header = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

/** A peer that sends one byte of a frame every `everyMs` until closed. */
function trickle(wire: CodexWire, frame: Buffer, everyMs: number): () => void {
  let i = 0;
  const timer = setInterval(() => {
    if (wire.closed || i >= frame.length - 1) return clearInterval(timer); // never the last byte
    wire.write(frame.subarray(i, i + 1));
    i += 1;
  }, everyMs);
  return () => clearInterval(timer);
}

test('70 silent connections and trickled frames: Codex CLI still gets its /ide answer within 2 s; the deadlines close the silent and the trickling', async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const ws = path.join(dir, 'ws');
  const h = await codexCompanion(t, socketPath, ws);
  fs.writeFileSync(path.join(ws, 'a.txt'), 'a\n');
  h.companion.context.focus(path.join(ws, 'a.txt'), { cursor: { line: 1, character: 1 } });
  const wires: CodexWire[] = [];
  t.after(() => wires.forEach((w) => w.close()));
  const silent = 70;
  for (let i = 0; i < silent; i++) wires.push(await CodexWire.connect(socketPath));
  // One more trickles its first frame, a byte every 100 ms.
  const trickler = await CodexWire.connect(socketPath);
  wires.push(trickler);
  const request = Buffer.from(
    JSON.stringify({ type: 'request', requestId: 't', sourceClientId: 'x', version: 0, method: 'ide-context', params: { workspaceRoot: ws } }),
  );
  const stopTrickle = trickle(trickler, Buffer.concat([header(request.length), request]), 100);
  t.after(stopTrickle);

  const started = Date.now();
  const answer = await askCodexIdeContext(socketPath, ws, ANSWER_BUDGET_MS);
  const took = Date.now() - started;
  assert.equal(answer.resultType, 'success', JSON.stringify(answer));
  assert.equal(answer.result.ideContext.activeFile.fsPath, path.join(ws, 'a.txt'));
  assert.ok(took < ANSWER_BUDGET_MS, `answered in ${took} ms`);

  // The deadline for a first frame closes every silent one, and the trickler though it keeps sending.
  const bound = DEFAULT_CODEX_ROUTER_LIMITS.firstFrameTimeoutMs + 1_500;
  for (const w of wires) assert.ok(await w.closedWithin(bound), 'a silent or trickling connection stays open');

  // A peer that sent a whole frame, then trickles the next one: the deadline for a partial frame closes it.
  const second = await CodexWire.connect(socketPath);
  t.after(() => second.close());
  second.send({ type: 'broadcast', method: 'noise', sourceClientId: 'x', version: 0, params: {} });
  const stop = trickle(second, Buffer.concat([header(request.length), request]), 100);
  t.after(stop);
  const opened = Date.now();
  assert.ok(await second.closedWithin(DEFAULT_CODEX_ROUTER_LIMITS.frameTimeoutMs + 1_500), 'a trickled partial frame holds its connection open');
  assert.ok(Date.now() - opened >= DEFAULT_CODEX_ROUTER_LIMITS.frameTimeoutMs - 200, 'closed before its deadline');

  // Still served, and no connection left over.
  assert.equal((await askCodexIdeContext(socketPath, ws, ANSWER_BUDGET_MS)).resultType, 'success');
});

test('a full router: an initialized client keeps its place, an idle one gives it to a new connection', async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  const limits = { ...DEFAULT_CODEX_ROUTER_LIMITS, maxClients: 4, firstFrameTimeoutMs: 60_000 };
  const face = new CodexFace({
    socketPath,
    logger: silentLogger,
    roots: () => [ws],
    context: emptyContext,
    routerLimits: limits,
  });
  t.after(() => face.stop());
  await face.start();
  assert.ok(face.isRouter);
  // The face is one client; an initialized one is another; two silent ones fill the router.
  const initialized = await initializedClient(t, socketPath);
  const idle = [await CodexWire.connect(socketPath), await CodexWire.connect(socketPath)];
  t.after(() => idle.forEach((w) => w.close()));
  await new Promise((r) => setTimeout(r, 100));
  // Codex CLI comes: the oldest idle one gives its place; the CLI is answered.
  const answer = await askCodexIdeContext(socketPath, ws, ANSWER_BUDGET_MS);
  assert.equal(answer.resultType, 'success', JSON.stringify(answer));
  assert.ok(await idle[0]!.closedWithin(1_000), 'the oldest idle connection keeps its place');
  assert.equal(initialized.closed, false, 'an initialized client lost its place');
});

test('a connection refused by the re-check (the folder turned writable by others after the first check) is closed', async (t) => {
  const dir = tmpFolder(t);
  const ipc = path.join(dir, 'codex', 'ipc');
  fs.mkdirSync(ipc, { recursive: true, mode: 0o700 });
  const socketPath = path.join(ipc, 'ipc.sock');
  // A router of someone else's making at the socket: the face connects to it, then checks the folder again.
  const accepted: net.Socket[] = [];
  const closed: boolean[] = [];
  const router = net.createServer((c) => {
    const i = accepted.push(c) - 1;
    closed[i] = false;
    c.on('close', () => (closed[i] = true));
    c.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => router.listen(socketPath, resolve));
  t.after(() => {
    accepted.forEach((c) => c.destroy());
    router.close();
  });
  const warnings: string[] = [];
  const face = new CodexFace({
    socketPath,
    logger: { ...silentLogger, warn: (m: string) => warnings.push(m) },
    roots: () => [dir],
    context: emptyContext,
  });
  t.after(() => face.stop());
  const ready = face.start();
  // The first check ran (synchronously, in start); before the connection is made the folder turns others-writable.
  fs.chmodSync(ipc, 0o777);
  await ready;
  assert.match(face.refusal ?? '', /ipc is writable by others \(mode 0?777\)/);
  assert.ok(warnings.some((w) => /Codex CLI is not served/.test(w)));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(accepted.length, 1, 'the face connected once');
  const deadline = Date.now() + 2_000;
  while (!closed[0] && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.equal(closed[0], true, 'the refused connection is left open');
});

test("a CODEX_HOME others can write to, sticky or not, or a link into another user's 0777 folder: refused with the reason, nothing bound there", async (t) => {
  const dir = tmpFolder(t);
  const cases: Array<{ name: string; home: () => string; reason: RegExp; rootOnly?: boolean; untouched?: string }> = [
    {
      name: 'CODEX_HOME 0777',
      home: () => homeOfMode(dir, 'open-home', 0o777),
      reason: /open-home is writable by other users without the sticky bit \(mode 0777\)/,
    },
    {
      name: 'CODEX_HOME 1777 (sticky)',
      home: () => homeOfMode(dir, 'sticky-home', 0o1777),
      reason: /sticky-home is writable by others \(mode 1777\)/,
    },
    {
      name: 'CODEX_HOME 0770 (its group)',
      home: () => homeOfMode(dir, 'group-home', 0o770),
      reason: /group-home is writable by other users without the sticky bit \(mode 0770\)/,
    },
    {
      name: "CODEX_HOME a link into another user's 0777 folder",
      rootOnly: true,
      home: () => {
        const theirs = path.join(dir, 'theirs');
        fs.mkdirSync(theirs);
        fs.chownSync(theirs, NOBODY, NOBODY);
        fs.chmodSync(theirs, 0o777);
        fs.symlinkSync(path.join(theirs, 'codex'), path.join(dir, 'linked-home'));
        return path.join(dir, 'linked-home');
      },
      reason: /theirs belongs to another user \(uid 65534\)/,
      untouched: path.join(dir, 'theirs'),
    },
  ];
  for (const c of cases) {
    if (c.rootOnly && process.getuid?.() !== 0) {
      t.diagnostic(`${c.name}: skipped, needs root to make a folder of another user`);
      continue;
    }
    const home = c.home();
    const socketPath = path.join(home, 'ipc', 'ipc.sock');
    const warnings: string[] = [];
    const h = await codexCompanion(t, socketPath, path.join(dir, 'ws'), warnings);
    const state = codexState(h.companion);
    assert.match(state?.refused ?? '', c.reason, `${c.name}: ${JSON.stringify(state)}`);
    assert.ok(!h.companion.agents.includes('codex'), c.name);
    assert.ok(
      warnings.some((w) => /Codex CLI is not served/.test(w) && c.reason.test(w)),
      `${c.name}: ${warnings.join('; ')}`,
    );
    // What the health check (and so each editor's) shows.
    const item = healthItems({ ide: 'neovim', displayName: 'Neovim', pid: 1, port: 1, sessions: [], agents: [], faces: h.companion.faceHealth }).find((i) =>
      /Codex CLI/.test(i.text),
    );
    assert.match(item?.text ?? '', c.reason, c.name);
    assert.equal(fs.existsSync(path.join(home, 'ipc')), false, `${c.name}: an ipc folder was made`);
    if (c.untouched) assert.deepEqual(fs.readdirSync(c.untouched), [], `${c.name}: something was made in the other user's folder`);
    await h.cleanup();
  }
});

test("an ide-context without a workspace root: no-client-found at once, as Codex's router answers, offered to nobody", async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const ws = path.join(dir, 'ws');
  await codexCompanion(t, socketPath, ws);
  // A client that would take anything it is offered.
  const eager = await initializedClient(t, socketPath);
  const offered: string[] = [];
  const taking = (async () => {
    for (;;) {
      const frame = await eager.next(60_000).catch(() => undefined);
      if (!frame) return;
      if (frame.type === 'client-discovery-request') {
        offered.push(JSON.stringify(frame.request.params ?? null));
        eager.send({ type: 'client-discovery-response', requestId: frame.requestId, response: { canHandle: true, rootLength: 1000 } });
      } else if (frame.type === 'request') {
        eager.send({ type: 'response', requestId: frame.requestId, resultType: 'success', method: frame.method, result: { ideContext: { openTabs: [] } } });
      }
    }
  })();
  for (const params of [{}, { workspaceRoot: 7 }, { workspaceRoot: 'relative/root' }, undefined]) {
    const cli = await CodexWire.connect(socketPath);
    const started = Date.now();
    cli.send({ type: 'request', requestId: 'r', sourceClientId: 'codex-tui', version: 0, method: 'ide-context', ...(params && { params }) });
    const answer = await cli.next(ANSWER_BUDGET_MS);
    cli.close();
    assert.equal(answer?.resultType, 'error', JSON.stringify(answer));
    assert.equal(answer.error, 'no-client-found');
    assert.ok(Date.now() - started < 500, 'answered at once');
  }
  assert.deepEqual(offered, [], 'offered to a client');
  eager.close();
  await taking;
});
