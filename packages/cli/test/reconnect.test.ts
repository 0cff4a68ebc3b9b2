/**
 * The stable per-user address (issue 29): one socket per workspace folder in
 * one folder per user, bound by whichever companion serves that folder now,
 * and the relay (`connect --reconnect`) that keeps the CLI's MCP session open
 * across editors stopping, dying (kill -9) and starting again. The bundled
 * relay spawned by the real MCP SDK client over stdio, real companions (one
 * in this process, `ide-companion serve` in another).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestCompanion } from '@ide-companion/server/testing';
import { socketAnswers, stableSocketDir, workspaceSocketPath } from '@ide-companion/server/workspaceSockets';
import { IDE_COMPANION_BIN, makeTempDir, waitFor } from '@ide-companion/testkit';
import { RELAY_BUNDLE_PATH } from '../src/connect/build/bundle.js';
import { relayClient } from './support/relayClient.js';

const TIMEOUT = 30_000;
/** The budget: a diff proposed 2 s after the new companion started shows in it. */
const RECONNECT_BUDGET_MS = 2_000;

const text = (r: any): string => r.content?.[0]?.text ?? '';

/** A tool call, its error (a JSON-RPC error from the relay, or a tool error) as text. */
async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string | undefined> {
  try {
    const r = await client.callTool({ name, arguments: args });
    return r.isError ? text(r) : undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

test(
  'the stable address: one 0600 socket per workspace in a 0700 folder, bound by the newest companion, taken back when it stops',
  { timeout: TIMEOUT },
  async (t) => {
    const tmp = makeTempDir();
    t.after(() => tmp.cleanup());
    const workspace = path.join(tmp.path, 'ws');
    const dir = stableSocketDir({ tmpdir: tmp.path });
    const socket = workspaceSocketPath(dir, workspace);
    const a = await startTestCompanion({ tmp: tmp.path, workspace });
    t.after(() => a.cleanup());
    assert.equal(a.companion.workspaceSocketPaths[workspace], socket);
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(socket).mode & 0o777, 0o600);
    const b = await startTestCompanion({ tmp: tmp.path, workspace });
    assert.equal(b.companion.workspaceSocketPaths[workspace], socket, 'the newest takes it');
    await waitFor(() => a.companion.workspaceSocketPaths[workspace] === undefined || undefined, 'the older to let it go', TIMEOUT);
    await b.cleanup();
    await waitFor(() => (a.companion.workspaceSocketPaths[workspace] === socket ? true : undefined), 'the older to take it back', TIMEOUT);
    assert.ok(await socketAnswers(socket));
    await a.cleanup();
    assert.ok(!fs.existsSync(socket), 'the last one removes its socket');
    assert.ok(fs.statSync(dir).isDirectory(), 'the folder stays: mounts hold it');
  },
);

test('the relay keeps the CLI session across a stop, a kill -9 and new companions; tool calls meanwhile say why', { timeout: 4 * TIMEOUT }, async (t) => {
  const tmp = makeTempDir();
  t.after(() => tmp.cleanup());
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  const dir = stableSocketDir({ tmpdir: tmp.path });
  const socket = workspaceSocketPath(dir, workspace);
  const cliRoot = '/workspaces/ws';
  const log = path.join(tmp.path, 'relay.log');

  let first = await startTestCompanion({ tmp: tmp.path, workspace });
  const relay = await relayClient(['--socket', socket, '--reconnect', '--map', `${workspace}=${cliRoot}`, '--log', log]);
  let exitCode: number | null | undefined;
  relay.child.once('exit', (code) => (exitCode = code));
  t.after(async () => {
    await relay.client.close();
  });
  assert.ok((await relay.client.listTools()).tools.some((tool) => tool.name === 'openDiff'));

  // 1. The editor stops cleanly.
  await first.cleanup();
  const meanwhile = await waitFor(
    async () => {
      const e = await callError(relay.client, 'closeDiff', { filePath: `${cliRoot}/a.txt` });
      return e && /no editor companion serves/.test(e) ? e : undefined;
    },
    'a tool call to say no companion is there',
    TIMEOUT,
  );
  assert.match(meanwhile, /closed or is restarting/);
  assert.equal(exitCode, undefined, 'the relay is still there');

  // 2. A new one starts: the next diff shows in it within the budget.
  first = await startTestCompanion({ tmp: tmp.path, workspace });
  const started = Date.now();
  const proposed = path.join(workspace, 'after-restart.txt');
  fs.writeFileSync(proposed, 'old\n');
  await new Promise((r) => setTimeout(r, RECONNECT_BUDGET_MS - 200));
  const call = relay.client.callTool({ name: 'openDiff', arguments: { filePath: `${cliRoot}/after-restart.txt`, newContent: 'new\n' } });
  const shown = await waitFor(() => first.view.shown.find((d) => d.filePath === proposed), 'the diff in the new editor', TIMEOUT);
  assert.ok(Date.now() - started < RECONNECT_BUDGET_MS + 1_000, `shown ${Date.now() - started} ms after the start`);
  assert.equal((await call).isError, undefined);
  first.companion.diffs.accept(shown.id, 'edited\n');
  const outcome = await waitFor(() => relay.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the outcome', TIMEOUT);
  assert.deepEqual(outcome.params, { filePath: `${cliRoot}/after-restart.txt`, content: 'edited\n' });
  await first.cleanup();

  // 3. An editor killed with -9 (a `serve` in its own process): its socket stays, dead; the next one takes the path.
  const serve = spawn(process.execPath, [IDE_COMPANION_BIN, 'serve', '--json'], {
    cwd: workspace,
    env: { PATH: process.env['PATH'], HOME: tmp.path, TMPDIR: tmp.path },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const serveExited = new Promise((resolve) => serve.once('exit', resolve));
  t.after(async () => {
    serve.kill('SIGKILL');
    await serveExited;
  });
  await waitFor(async () => ((await socketAnswers(socket)) ? true : undefined), 'serve to bind the socket', TIMEOUT);
  await waitFor(
    () =>
      relay.client.listTools().then(
        () => true,
        () => undefined,
      ),
    'the relay to reach serve',
    TIMEOUT,
  );
  serve.kill('SIGKILL');
  await serveExited;
  assert.ok(fs.existsSync(socket), 'a killed companion leaves its socket');
  await waitFor(
    async () => /no editor companion serves/.test((await callError(relay.client, 'closeDiff', { filePath: `${cliRoot}/a.txt` })) ?? '') || undefined,
    'a tool call to say no companion is there',
    TIMEOUT,
  );
  const next = await startTestCompanion({ tmp: tmp.path, workspace });
  t.after(() => next.cleanup());
  const again = path.join(workspace, 'after-kill.txt');
  fs.writeFileSync(again, 'x\n');
  const call2 = relay.client.callTool({ name: 'openDiff', arguments: { filePath: `${cliRoot}/after-kill.txt`, newContent: 'y\n' } }).catch((err: Error) => err);
  // A call made in the instant before the relay sees the new companion may get the error; the next one goes through.
  const r2 = await call2;
  if (r2 instanceof Error || r2.isError) {
    await waitFor(
      async () => (await callError(relay.client, 'openDiff', { filePath: `${cliRoot}/after-kill.txt`, newContent: 'y\n' })) === undefined || undefined,
      'the relay to reach the next companion',
      RECONNECT_BUDGET_MS,
    );
  }
  await waitFor(() => next.view.shown.find((d) => d.filePath === again), 'the diff in the editor after the kill', TIMEOUT);
  // Context flows again: the new companion's context reaches the CLI in its paths.
  const before = relay.notifications.length;
  next.companion.context.focus(again, { cursor: { line: 1, character: 1 } });
  await waitFor(
    () => relay.notifications.slice(before).find((n) => n.method === 'ide/contextUpdate' && JSON.stringify(n.params).includes(`${cliRoot}/after-kill.txt`)),
    'the context from the new editor',
    TIMEOUT,
  );
  assert.equal(exitCode, undefined, 'one relay, one CLI session, all along');
  assert.doesNotMatch(fs.readFileSync(log, 'utf8'), /Bearer|token=/i);
});

test(
  'the relay killed (kill -9): the CLI sees its connection close, the companion ends that session, and a new relay (/ide enable) connects',
  { timeout: 2 * TIMEOUT },
  async (t) => {
    const tmp = makeTempDir();
    t.after(() => tmp.cleanup());
    const workspace = path.join(tmp.path, 'ws');
    const h = await startTestCompanion({ tmp: tmp.path, workspace });
    t.after(() => h.cleanup());
    const socket = workspaceSocketPath(stableSocketDir({ tmpdir: tmp.path }), workspace);
    const first = await relayClient(['--socket', socket, '--reconnect']);
    let closed = false;
    first.client.onclose = () => (closed = true);
    await first.client.listTools();
    assert.equal(h.companion.sessionList.length, 1);
    first.child.kill('SIGKILL');
    await waitFor(() => closed || undefined, 'the CLI to see its connection close', TIMEOUT);
    await waitFor(() => h.companion.sessionList.length === 0 || undefined, 'the companion to end the session', TIMEOUT);
    const second = await relayClient(['--socket', socket, '--reconnect']);
    t.after(() => second.client.close());
    assert.ok((await second.client.listTools()).tools.length > 0);
    assert.equal(h.companion.sessionList.length, 1);
  },
);

test('the stable folder: under XDG_RUNTIME_DIR when set, else the private tmp folder; an explicit tmpdir wins', () => {
  const uid = process.getuid?.() ?? 0;
  assert.equal(stableSocketDir({ env: { XDG_RUNTIME_DIR: '/run/user/7' } }), '/run/user/7/ide-companion');
  assert.equal(stableSocketDir({ env: {} }), path.join(os.tmpdir(), `ide-companion-${uid}`, 'workspaces'));
  assert.equal(stableSocketDir({ env: { XDG_RUNTIME_DIR: 'relative' } }), path.join(os.tmpdir(), `ide-companion-${uid}`, 'workspaces'));
  assert.equal(stableSocketDir({ tmpdir: '/t', env: { XDG_RUNTIME_DIR: '/run/user/7' } }), `/t/ide-companion-${uid}/workspaces`);
});

test('connect --reconnect goes with --socket: with --port it is a usage error (exit 2)', { timeout: TIMEOUT }, () => {
  // A socket folder it must refuse is relayDialCheck.test.ts's: the session waits, saying why.
  const r = spawnSync(process.execPath, [RELAY_BUNDLE_PATH, '--port', '1234', '--reconnect'], { input: '', encoding: 'utf8', timeout: TIMEOUT });
  assert.equal(r.status, 2);
});
