/**
 * Sessions end with their CLI. Regression: a CLI that died mid-diff was noticed
 * only after the 30 s grace (its proposal stayed queued for the user), sessions
 * were unbounded, and a request with two Host headers passed on the first one.
 * A stream that drops and reopens (the MCP SDK retries after 1 s) keeps its
 * session, with the SDK client and with the real CLI's IdeClient.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { findGeminiCli, ideTerminalEnv, RealIdeClient, skipUnless, sleep, waitFor } from '@ide-companion/testkit';
import { DEFAULT_MAX_SESSIONS, DEFAULT_STREAM_GRACE_MS, type Companion } from '../src/index.js';
import { connectClient, INIT_BODY, mcpHeaders, rawRequest, startCompanion } from './helpers.js';

const cli = findGeminiCli();
const skipReal = skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

/** Drops every connection to the companion, the GET streams included, as a network hiccup would. */
function dropConnections(companion: Companion): void {
  // The port's server is private to the companion's addresses (companionAddresses.ts).
  (companion as unknown as { addresses: { httpServer: http.Server } }).addresses.httpServer.closeAllConnections();
}

/** Waits until the stream of the one session has closed and opened again. */
async function streamReopened(companion: Companion, id: string): Promise<void> {
  await waitFor(() => companion.sessionList.find((s) => s.id === id)?.streamOpen === false, 'the stream to close', 5_000, 1);
  await waitFor(() => companion.sessionList.find((s) => s.id === id)?.streamOpen, 'the stream to reopen', 10_000);
}

test('the defaults: a closed stream gets 2 s to reopen, 64 sessions at most', () => {
  assert.ok(DEFAULT_STREAM_GRACE_MS <= 2_000 && DEFAULT_STREAM_GRACE_MS > 1_000, "more than the SDK's 1 s reconnect delay, at most 2 s");
  assert.equal(DEFAULT_MAX_SESSIONS, 64);
});

test('a client gone without DELETE ends its session within the stream grace, and its diff closes', async () => {
  const h = await startCompanion();
  try {
    const c = await connectClient(h.companion);
    await waitFor(() => h.companion.sessionList[0]?.streamOpen, 'stream open');
    const f = path.join(h.workspace, 'pending.txt');
    await c.client.callTool({ name: 'openDiff', arguments: { filePath: f, newContent: 'x\n' } });
    assert.equal(h.view.shown.length, 1);
    // Aborts the stream without DELETE, as a CLI that exits does.
    await c.transport.close();
    await waitFor(() => h.companion.sessionList.length === 0, 'the session to end', DEFAULT_STREAM_GRACE_MS + 3_000);
    await waitFor(() => h.view.closed.find((x) => x.diff.filePath === f), 'its diff to close');
    assert.equal(h.view.closed[0]!.reason, 'sessionClosed');
  } finally {
    await h.cleanup();
  }
});

test('a stream that drops and reopens (MCP SDK client) keeps its session and its notifications', async () => {
  const h = await startCompanion();
  try {
    const c = await connectClient(h.companion);
    await waitFor(() => h.companion.sessionList[0]?.streamOpen, 'stream open');
    const id = h.companion.sessionList[0]!.id;
    dropConnections(h.companion);
    await streamReopened(h.companion, id);
    assert.deepEqual(
      h.companion.sessionList.map((s) => s.id),
      [id],
    );
    const f = path.join(h.workspace, 'after.ts');
    fs.writeFileSync(f, '');
    h.companion.context.focus(f);
    await waitFor(() => c.notifications.find((n) => n.params.workspaceState?.openFiles?.[0]?.path === f), 'context after the reconnect');
    assert.ok((await c.client.listTools()).tools.length > 0);
    await c.close();
  } finally {
    await h.cleanup();
  }
});

test('a session that never opened a stream still gets the long grace, then expires', async () => {
  const h = await startCompanion({ streamGraceMs: 50, sessionGraceMs: 1_000 });
  try {
    const init = await rawRequest(h.companion.port, { headers: mcpHeaders(h.companion.authToken, h.companion.port), body: INIT_BODY });
    assert.equal(init.status, 200);
    await sleep(300);
    assert.equal(h.companion.sessionList.length, 1, 'not ended by the short stream grace');
    await waitFor(() => h.companion.sessionList.length === 0, 'the session to expire', 5_000);
  } finally {
    await h.cleanup();
  }
});

test('past the cap, initialize gets a clear JSON-RPC error (503); a freed slot can be used again', async () => {
  const h = await startCompanion({ maxSessions: 3 });
  try {
    const headers = mcpHeaders(h.companion.authToken, h.companion.port);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const init = await rawRequest(h.companion.port, { headers, body: INIT_BODY });
      assert.equal(init.status, 200);
      ids.push(init.headers.get('mcp-session-id')!);
    }
    const refused = await rawRequest(h.companion.port, { headers, body: INIT_BODY });
    assert.equal(refused.status, 503);
    assert.equal(refused.json.error.code, -32003);
    assert.match(refused.json.error.message, /Too many sessions: this companion serves at most 3 at once/);
    assert.equal(h.companion.sessionList.length, 3);
    // The sessions already open keep working.
    const list = await rawRequest(h.companion.port, {
      headers: { ...headers, 'mcp-session-id': ids[0]!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(list.status, 200);
    await rawRequest(h.companion.port, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': ids[1]!, 'mcp-protocol-version': '2025-06-18' } });
    await waitFor(() => h.companion.sessionList.length === 2, 'a slot freed');
    const again = await rawRequest(h.companion.port, { headers, body: INIT_BODY });
    assert.equal(again.status, 200);
  } finally {
    await h.cleanup();
  }
});

test('initializes racing for the last slots: exactly the cap gets in', async () => {
  const h = await startCompanion({ maxSessions: 3 });
  try {
    const headers = mcpHeaders(h.companion.authToken, h.companion.port);
    const answers = await Promise.all(Array.from({ length: 6 }, () => rawRequest(h.companion.port, { headers, body: INIT_BODY })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 503, 503, 503]);
    assert.equal(h.companion.sessionList.length, 3);
  } finally {
    await h.cleanup();
  }
});

/** One raw HTTP/1.1 request with exactly these header lines (node:http cannot send two Host headers). */
function rawLines(port: number, lines: string[], body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.end(`POST /mcp HTTP/1.1\r\n${lines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}

test('a request with two Host headers is refused (403), whichever comes first', async () => {
  const h = await startCompanion();
  try {
    const port = h.companion.port;
    const common = [`Authorization: Bearer ${h.companion.authToken}`, 'Content-Type: application/json', 'Accept: application/json, text/event-stream'];
    for (const hosts of [
      [`127.0.0.1:${port}`, `evil.example:${port}`],
      [`evil.example:${port}`, `127.0.0.1:${port}`],
      [`127.0.0.1:${port}`, `127.0.0.1:${port}`],
    ]) {
      const answer = await rawLines(port, [...hosts.map((v) => `Host: ${v}`), ...common], INIT_BODY);
      assert.match(answer, /^HTTP\/1\.1 403 /, `hosts ${hosts.join(', ')}`);
      assert.match(answer, /more than one Host header/);
    }
    const one = await rawLines(port, [`Host: 127.0.0.1:${port}`, ...common], INIT_BODY);
    assert.match(one, /^HTTP\/1\.1 200 /);
    await waitFor(() => h.companion.sessionList.length === 1, 'the single-Host session');
  } finally {
    await h.cleanup();
  }
});

test('the real CLI client: a dropped stream reopens on the same session and context still arrives', { skip: skipReal, timeout: 120_000 }, async () => {
  const h = await startCompanion();
  const client = await RealIdeClient.start(cli!, { cwd: h.workspace, env: ideTerminalEnv({ tmpdir: h.tmp, idePid: h.companion.idePid }), timeoutMs: 60_000 });
  try {
    assert.equal((await client.connect())['status'], 'connected');
    await waitFor(() => h.companion.sessionList[0]?.streamOpen, 'stream open');
    const id = h.companion.sessionList[0]!.id;
    dropConnections(h.companion);
    await streamReopened(h.companion, id);
    await sleep(DEFAULT_STREAM_GRACE_MS + 500);
    assert.deepEqual(
      h.companion.sessionList.map((s) => s.id),
      [id],
      'the session outlived the grace',
    );
    const f = path.join(h.workspace, 'after-drop.ts');
    fs.writeFileSync(f, '');
    h.companion.context.focus(f);
    await client.waitFor(
      (e) => e.event === 'context' && e['source'] === 'push' && e['context']?.workspaceState?.openFiles?.[0]?.path === f,
      'context after the reconnect',
    );
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('the real CLI client killed mid-diff: its session ends and the diff closes within the grace', { skip: skipReal, timeout: 120_000 }, async () => {
  const h = await startCompanion();
  const client = await RealIdeClient.start(cli!, { cwd: h.workspace, env: ideTerminalEnv({ tmpdir: h.tmp, idePid: h.companion.idePid }), timeoutMs: 60_000 });
  try {
    assert.equal((await client.connect())['status'], 'connected');
    const f = path.join(h.workspace, 'mid-diff.txt');
    client.send({ cmd: 'openDiff', filePath: f, newContent: 'proposal\n' });
    await waitFor(() => h.view.shown.find((d) => d.filePath === f), 'the diff shown', 30_000);
    await client.kill('SIGKILL');
    await waitFor(() => h.view.closed.find((x) => x.diff.filePath === f && x.reason === 'sessionClosed'), 'the diff to close', DEFAULT_STREAM_GRACE_MS + 3_000);
    assert.equal(h.companion.sessionList.length, 0);
  } finally {
    await client.stop();
    await h.cleanup();
  }
});
