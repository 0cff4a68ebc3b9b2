/**
 * Codex CLI's face (issue 31) over real Unix sockets, with the CLI's side
 * played as 0.171.0's ipc.rs behaves (testkit's askCodexIdeContext): the
 * per-user router, routing by workspace root, one companion taking over when
 * the router's goes away, joining a foreign router, hostile frames, and the
 * folder and socket checks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { askCodexIdeContext, CodexWire } from '@ide-companion/testkit';
import { parseAgents } from '@ide-companion/shared/agentPaths';
import { silentLogger } from '../src/logger.js';
import { codexState, startCompanion, type Harness } from './helpers.js';

function tmpFolder(t: import('node:test').TestContext): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'codex-face-')));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function codexCompanion(t: import('node:test').TestContext, socketPath: string, workspace: string): Promise<Harness> {
  fs.mkdirSync(workspace, { recursive: true });
  const h = await startCompanion({ agents: ['gemini', 'codex'], facePaths: { codex: socketPath }, workspace });
  t.after(() => h.cleanup());
  return h;
}

function focus(h: Harness, file: string, text: string, cursor = { line: 2, character: 5 }, selectedText?: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  h.companion.context.focus(file, { cursor, ...(selectedText !== undefined && { selectedText }) });
}

test('codex is an agent to name; the router is made 0700/0600 and answers ide-context with the active file, its selection and the open tabs', async (t) => {
  assert.deepEqual(parseAgents('codex'), ['gemini', 'codex']);
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const ws = path.join(dir, 'ws');
  const h = await codexCompanion(t, socketPath, ws);
  assert.ok(h.companion.agents.includes('codex'));
  assert.deepEqual(codexState(h.companion), { socketPath, connected: true, router: true });
  assert.equal((fs.statSync(path.dirname(socketPath)).mode & 0o777).toString(8), '700');
  assert.equal((fs.statSync(socketPath).mode & 0o777).toString(8), '600');
  assert.ok(fs.lstatSync(socketPath).isSocket());

  focus(h, path.join(ws, 'src', 'b.ts'), 'other\n');
  focus(h, path.join(ws, 'src', 'a.ts'), 'one\ntwo three\n', { line: 2, character: 9 }, 'three');
  await new Promise((r) => setTimeout(r, 100));
  const answer = await askCodexIdeContext(socketPath, ws);
  // The older CLI (ipc.rs before 0.171.0) initializes first, as clientType "desktop": the same answer.
  assert.deepEqual((await askCodexIdeContext(socketPath, ws, 6_000, { initialize: true })).result, answer.result);
  assert.equal(answer.resultType, 'success', JSON.stringify(answer));
  assert.equal(answer.method, 'ide-context');
  assert.equal(typeof answer.handledByClientId, 'string');
  const { activeFile, openTabs } = answer.result.ideContext;
  assert.deepEqual(activeFile, {
    label: 'a.ts',
    path: 'src/a.ts',
    fsPath: path.join(ws, 'src', 'a.ts'),
    // 0-based; the cursor on the selection's last character, as Vim puts it.
    selection: { start: { line: 1, character: 4 }, end: { line: 1, character: 8 } },
    activeSelectionContent: 'three',
    selections: [{ start: { line: 1, character: 4 }, end: { line: 1, character: 8 } }],
  });
  assert.deepEqual(openTabs, [
    { label: 'a.ts', path: 'src/a.ts', fsPath: path.join(ws, 'src', 'a.ts') },
    { label: 'b.ts', path: 'src/b.ts', fsPath: path.join(ws, 'src', 'b.ts') },
  ]);

  // Gone on stop: the socket file is removed with the router.
  await h.companion.stop();
  assert.equal(fs.existsSync(socketPath), false);
});

test('routing by root: the longest folder holding the asked root wins; a root nobody holds is no-client-found', async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const outer = await codexCompanion(t, socketPath, path.join(dir, 'repo'));
  const inner = await codexCompanion(t, socketPath, path.join(dir, 'repo', 'packages', 'app'));
  assert.equal(codexState(outer.companion)?.router, true);
  assert.equal(codexState(inner.companion)?.router, false);
  focus(outer, path.join(dir, 'repo', 'README.md'), 'outer\n');
  focus(inner, path.join(dir, 'repo', 'packages', 'app', 'main.ts'), 'inner\n');

  const deep = await askCodexIdeContext(socketPath, path.join(dir, 'repo', 'packages', 'app', 'src'));
  assert.equal(deep.result.ideContext.activeFile.label, 'main.ts');
  // Relative to the editor's folder, as VS Code's extension gives them.
  assert.equal(deep.result.ideContext.activeFile.path, 'main.ts');
  const top = await askCodexIdeContext(socketPath, path.join(dir, 'repo'));
  assert.equal(top.result.ideContext.activeFile.path, 'README.md');
  const sibling = await askCodexIdeContext(socketPath, path.join(dir, 'repo', 'packages', 'lib'));
  assert.equal(sibling.result.ideContext.activeFile.path, 'README.md');
  // A folder beside, whose name only starts like ours, is not ours.
  const beside = await askCodexIdeContext(socketPath, path.join(dir, 'repo-other'));
  assert.equal(beside.resultType, 'error');
  assert.equal(beside.error, 'no-client-found');
});

test('the same root in two editors: the one used last answers', async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const ws = path.join(dir, 'ws');
  const first = await codexCompanion(t, socketPath, ws);
  const second = await codexCompanion(t, socketPath, ws);
  focus(first, path.join(ws, 'first.txt'), 'x\n');
  await new Promise((r) => setTimeout(r, 20));
  focus(second, path.join(ws, 'second.txt'), 'x\n');
  assert.equal((await askCodexIdeContext(socketPath, ws)).result.ideContext.activeFile.label, 'second.txt');
  await new Promise((r) => setTimeout(r, 20));
  focus(first, path.join(ws, 'first.txt'), 'y\n');
  assert.equal((await askCodexIdeContext(socketPath, ws)).result.ideContext.activeFile.label, 'first.txt');
});

test("the router's companion goes away: another takes the socket and the CLI's next /ide answers within 2 s", async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const a = await codexCompanion(t, socketPath, path.join(dir, 'a'));
  const b = await codexCompanion(t, socketPath, path.join(dir, 'b'));
  focus(b, path.join(dir, 'b', 'kept.txt'), 'b\n');
  assert.equal(codexState(a.companion)?.router, true);
  await a.companion.stop();
  const started = Date.now();
  let answer: any;
  while (Date.now() - started < 2_000) {
    try {
      answer = await askCodexIdeContext(socketPath, path.join(dir, 'b'), 1_000);
      if (answer.resultType === 'success') break;
    } catch {
      // Nobody on the socket yet.
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(answer?.resultType, 'success', `no answer within 2 s: ${JSON.stringify(answer)}`);
  assert.ok(Date.now() - started < 2_000);
  assert.equal(answer.result.ideContext.activeFile.label, 'kept.txt');
  assert.equal(codexState(b.companion)?.router, true);
});

test('a stale socket of ours (nobody listening) is replaced; a killed router leaves one, the next start takes it', async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  fs.mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o700 });
  // A socket file nobody listens on, as a killed router leaves: a second name keeps it past the server's close.
  const dead = net.createServer();
  await new Promise<void>((r) => dead.listen(socketPath, r));
  fs.linkSync(socketPath, `${socketPath}.keep`);
  await new Promise<void>((r) => dead.close(() => r()));
  fs.renameSync(`${socketPath}.keep`, socketPath);
  assert.ok(fs.lstatSync(socketPath).isSocket());
  const h = await codexCompanion(t, socketPath, path.join(dir, 'ws'));
  assert.equal(codexState(h.companion)?.router, true);
  focus(h, path.join(dir, 'ws', 'f.txt'), 'f\n');
  assert.equal((await askCodexIdeContext(socketPath, path.join(dir, 'ws'))).resultType, 'success');
});

test('refused, with a clear log and no crash: a folder writable by others, a file at the socket path, a link for the folder', async (t) => {
  const dir = tmpFolder(t);
  const cases: Array<[string, (socketPath: string) => void, RegExp]> = [
    ['group-writable folder', (p) => fs.mkdirSync(path.dirname(p), { recursive: true, mode: 0o770 }), /writable by others/],
    [
      'a file at the socket path',
      (p) => {
        fs.mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 });
        fs.writeFileSync(p, 'not a socket');
      },
      /is not a socket/,
    ],
    [
      'a link for the folder',
      (p) => {
        fs.mkdirSync(path.join(dir, 'elsewhere'), { mode: 0o700, recursive: true });
        fs.mkdirSync(path.dirname(path.dirname(p)), { recursive: true });
        fs.symlinkSync(path.join(dir, 'elsewhere'), path.dirname(p));
      },
      /is a symbolic link, not a folder of ours/,
    ],
  ];
  for (const [name, prepare, message] of cases) {
    const socketPath = path.join(dir, name.replace(/\W+/g, '-'), 'ipc', 'ipc.sock');
    prepare(socketPath);
    if (name === 'group-writable folder') fs.chmodSync(path.dirname(socketPath), 0o770);
    const warnings: string[] = [];
    const h = await startCompanion({
      agents: ['gemini', 'codex'],
      facePaths: { codex: socketPath },
      workspace: path.join(dir, 'ws'),
      logger: { ...silentLogger, warn: (m: string) => warnings.push(m) },
    });
    t.after(() => h.cleanup());
    assert.match(codexState(h.companion)?.refused ?? '', message, name);
    assert.ok(!h.companion.agents.includes('codex'), name);
    assert.ok(
      warnings.some((w) => /Codex CLI is not served/.test(w)),
      `${name}: ${warnings.join('; ')}`,
    );
    assert.ok(h.companion.running, name);
  }
});

test('hostile frames: an oversized length, bad JSON, an unknown type, a request without requestId each close that connection alone', async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const h = await codexCompanion(t, socketPath, path.join(dir, 'ws'));
  focus(h, path.join(dir, 'ws', 'f.txt'), 'f\n');
  const header = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const hostile: Array<[string, (w: CodexWire) => void]> = [
    ['a length of 2 GiB', (w) => w.write(header(0x80000000))],
    ['just over 1 MiB from a client', (w) => w.write(header(1024 * 1024 + 1))],
    ['bad JSON', (w) => w.write(Buffer.concat([header(5), Buffer.from('{nope')]))],
    ['not UTF-8', (w) => w.write(Buffer.concat([header(2), Buffer.from([0xc3, 0x28])]))],
    ['an unknown type', (w) => w.send({ type: 'gossip', requestId: 'x' })],
    ['a request without requestId', (w) => w.send({ type: 'request', sourceClientId: 'x', version: 0, method: 'initialize', params: {} })],
    ['a JSON number', (w) => w.send(42)],
  ];
  for (const [name, act] of hostile) {
    const wire = await CodexWire.connect(socketPath);
    act(wire);
    assert.ok(await wire.closedWithin(2_000), `${name}: the connection stays open`);
  }
  // The router and the face are unharmed.
  assert.equal((await askCodexIdeContext(socketPath, path.join(dir, 'ws'))).resultType, 'success');
  // A request without initialize is answered: Codex CLI 0.171.0 asks so (sourceClientId "codex-tui").
  const early = await CodexWire.connect(socketPath);
  early.send({
    type: 'request',
    requestId: 'r1',
    sourceClientId: 'codex-tui',
    version: 0,
    method: 'ide-context',
    params: { workspaceRoot: path.join(dir, 'ws') },
  });
  const answered = await early.next(4_000);
  assert.equal(answered.resultType, 'success');
  assert.equal(answered.requestId, 'r1');
  early.close();
});

test('a client that never answers discovery holds a request no longer than the discovery bound', async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const h = await codexCompanion(t, socketPath, path.join(dir, 'ws'));
  focus(h, path.join(dir, 'ws', 'f.txt'), 'f\n');
  // A mute client: initialized, then deaf.
  const mute = await CodexWire.connect(socketPath);
  mute.send({ type: 'request', requestId: 'i', sourceClientId: 'initializing-client', version: 0, method: 'initialize', params: { clientType: 'vscode' } });
  assert.equal((await mute.next()).resultType, 'success');
  const started = Date.now();
  const answer = await askCodexIdeContext(socketPath, path.join(dir, 'ws'));
  const took = Date.now() - started;
  assert.equal(answer.resultType, 'success');
  assert.ok(took < 3_000, `took ${took} ms`);
  // A mute client that is chosen (it says it can handle, then never answers) ends in an error the CLI knows, in bounded time.
  const liar = await CodexWire.connect(socketPath);
  liar.send({ type: 'request', requestId: 'i2', sourceClientId: 'initializing-client', version: 0, method: 'initialize', params: { clientType: 'vscode' } });
  assert.equal((await liar.next()).resultType, 'success');
  const pending = askCodexIdeContext(socketPath, path.join(dir, 'elsewhere'), 10_000);
  for (;;) {
    const frame = await liar.next(5_000);
    if (frame?.type === 'client-discovery-request') {
      liar.send({ type: 'client-discovery-response', requestId: frame.requestId, response: { canHandle: true, rootLength: 9999 } });
      break;
    }
  }
  const timedOut = await pending;
  assert.equal(timedOut.resultType, 'error');
  assert.equal(timedOut.error, 'request-timeout');
  mute.close();
  liar.close();
});

test("OpenAI's router holds the socket: the face joins it as a vscode client and answers discovery and ide-context", async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  fs.mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o700 });
  // A foreign router of the protocol's shape, reduced to what the test needs.
  let joined: CodexWire | undefined;
  let initialize: any;
  const foreign = net.createServer((socket) => {
    const wire = CodexWire.wrap(socket);
    void (async () => {
      initialize = await wire.next();
      wire.send({
        type: 'response',
        requestId: initialize.requestId,
        resultType: 'success',
        method: 'initialize',
        handledByClientId: 'server',
        result: { clientId: 'their-vscode-1' },
      });
      wire.send({
        type: 'broadcast',
        method: 'client-status-changed',
        sourceClientId: 'x',
        version: 0,
        params: { clientId: 'x', clientType: 'vscode', status: 'connected' },
      });
      joined = wire;
    })();
  });
  await new Promise<void>((r) => foreign.listen(socketPath, r));
  t.after(() => new Promise<void>((r) => foreign.close(() => r())));
  const ws = path.join(dir, 'ws');
  const h = await codexCompanion(t, socketPath, ws);
  assert.equal(codexState(h.companion)?.router, false);
  assert.equal(codexState(h.companion)?.connected, true);
  assert.equal(initialize.method, 'initialize');
  assert.equal(initialize.sourceClientId, 'initializing-client');
  assert.deepEqual(initialize.params, { clientType: 'vscode' });
  focus(h, path.join(ws, 'x.ts'), 'x\n', { line: 1, character: 1 });

  const wire = joined!;
  const request = { type: 'request', requestId: 'cli-1', sourceClientId: 'cli', version: 0, method: 'ide-context', params: { workspaceRoot: ws } };
  wire.send({ type: 'client-discovery-request', requestId: 'd1', request });
  assert.deepEqual((await wire.next()).response.canHandle, true);
  wire.send({ type: 'client-discovery-request', requestId: 'd2', request: { ...request, params: { workspaceRoot: path.join(dir, 'other') } } });
  assert.deepEqual(await wire.next(), { type: 'client-discovery-response', requestId: 'd2', response: { canHandle: false } });
  wire.send({ type: 'client-discovery-request', requestId: 'd3', request: { ...request, method: 'something-else' } });
  assert.equal((await wire.next()).response.canHandle, false);
  wire.send({ ...request, requestId: randomUUID() });
  const answer = await wire.next();
  assert.equal(answer.type, 'response');
  assert.equal(answer.resultType, 'success');
  assert.equal(answer.result.ideContext.activeFile.fsPath, path.join(ws, 'x.ts'));
  assert.deepEqual(answer.result.ideContext.activeFile.selections, []);
  // The socket is theirs: stopping leaves it.
  await h.companion.stop();
  assert.ok(fs.lstatSync(socketPath).isSocket());
});

test("OpenAI's older router on the legacy socket (TMPDIR/codex-ipc/ipc-UID.sock), nobody on CODEX_HOME's: the face joins it and binds nothing that would hide it", async (t) => {
  const tmp = tmpFolder(t);
  const socketPath = path.join(tmp, 'codex', 'ipc', 'ipc.sock');
  const legacy = path.join(tmp, 'codex-ipc', `ipc-${process.getuid!()}.sock`);
  fs.mkdirSync(path.dirname(legacy), { recursive: true, mode: 0o700 });
  const initialized: string[] = [];
  const foreign = net.createServer((socket) => {
    const wire = CodexWire.wrap(socket);
    void (async () => {
      const init = await wire.next();
      initialized.push(init.method);
      wire.send({
        type: 'response',
        requestId: init.requestId,
        resultType: 'success',
        method: 'initialize',
        handledByClientId: 'server',
        result: { clientId: 'c1' },
      });
    })();
  });
  await new Promise<void>((r) => foreign.listen(legacy, r));
  t.after(() => new Promise<void>((r) => foreign.close(() => r())));
  const h = await startCompanion({ agents: ['gemini', 'codex'], facePaths: { codex: socketPath }, tmp, workspace: path.join(tmp, 'ws') });
  t.after(() => h.cleanup());
  assert.deepEqual(codexState(h.companion), { socketPath, connected: true, router: false });
  assert.deepEqual(initialized, ['initialize']);
  assert.equal(fs.existsSync(socketPath), false, 'no socket of ours in front of theirs');
  // Ours leaves theirs: stopping closes our connection (their server's close waits for it).
  await h.companion.stop();
  assert.ok(fs.lstatSync(legacy).isSocket());
});

test('three companions starting at once: one binds the socket, the others join it; each answers for its folder', async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  const names = ['one', 'two', 'three'];
  const hs = await Promise.all(names.map((name) => codexCompanion(t, socketPath, path.join(dir, name))));
  assert.equal(hs.filter((h) => codexState(h.companion)?.router).length, 1, 'exactly one router');
  assert.ok(hs.every((h) => codexState(h.companion)?.connected));
  for (const [i, h] of hs.entries()) focus(h, path.join(dir, names[i]!, `${names[i]}.txt`), 'x\n');
  for (const name of names) {
    const answer = await askCodexIdeContext(socketPath, path.join(dir, name));
    assert.equal(answer.result?.ideContext.activeFile.label, `${name}.txt`, JSON.stringify(answer));
  }
});

test("the router's process killed (-9, its socket file left behind): a companion that was its client takes over and /ide answers within 2 s", async (t) => {
  const dir = tmpFolder(t);
  const socketPath = path.join(dir, 'codex', 'ipc', 'ipc.sock');
  // The router: a companion in a process of its own, started first.
  const script = `
    const { startTestCompanion } = await import(${JSON.stringify(new URL('../src/testing.js', import.meta.url).href)});
    const h = await startTestCompanion({ tmp: ${JSON.stringify(path.join(dir, 'router'))}, agents: ['gemini', 'codex'], facePaths: { codex: ${JSON.stringify(socketPath)} } });
    process.stdout.write(h.companion.faceState('codex').router ? 'router\\n' : 'client\\n');
    setInterval(() => undefined, 1000);
  `;
  fs.mkdirSync(path.join(dir, 'router'));
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const said = await new Promise<string>((resolve) => child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())));
  assert.equal(said, 'router');
  const h = await codexCompanion(t, socketPath, path.join(dir, 'ws'));
  assert.equal(codexState(h.companion)?.router, false);
  focus(h, path.join(dir, 'ws', 'f.txt'), 'f\n');

  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  assert.ok(fs.lstatSync(socketPath).isSocket(), 'the killed router left its socket file');
  const started = Date.now();
  let answer: any;
  while (Date.now() - started < 2_000) {
    answer = await askCodexIdeContext(socketPath, path.join(dir, 'ws'), 1_000).catch(() => undefined);
    if (answer?.resultType === 'success') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(answer?.resultType, 'success', `no answer within 2 s: ${JSON.stringify(answer)}`);
  assert.equal(codexState(h.companion)?.router, true);
});
