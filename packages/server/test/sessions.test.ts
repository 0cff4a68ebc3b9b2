/** Sessions: one McpServer each, context pushed when the stream opens, expiry without DELETE. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { sleep, waitFor } from '@ide-companion/testkit';
import { buildTerminalEnv, CONTEXT_SEED_WAIT_MS, realScheduler, type Scheduler } from '../src/index.js';
import { connectClient, INIT_BODY, mcpHeaders, rawRequest, RecordingEditor, startCompanion } from './helpers.js';

test('context is pushed as soon as the GET stream opens, and on every change', async () => {
  const h = await startCompanion();
  try {
    const a = path.join(h.workspace, 'a.ts');
    const b = path.join(h.workspace, 'b.ts');
    fs.writeFileSync(a, '');
    fs.writeFileSync(b, '');
    h.companion.context.focus(a, { cursor: { line: 1, character: 2 } });
    const c = await connectClient(h.companion);
    const first = await waitFor(() => c.notifications.find((n) => n.method === 'ide/contextUpdate'), 'initial context');
    assert.equal(first.params.workspaceState.openFiles[0].path, a);
    h.companion.context.focus(b);
    const second = await waitFor(() => c.notifications.filter((n) => n.method === 'ide/contextUpdate')[1], 'second context');
    assert.deepEqual(
      second.params.workspaceState.openFiles.map((f: any) => f.path),
      [b, a],
    );
    await c.close();
  } finally {
    await h.cleanup();
  }
});

// Regression: serve wrote its discovery file only after git status and the watcher, ~30 ms to seconds.
test('a session that opens while the context seed is under way gets the seeded context first, not an empty one', async () => {
  let seeded!: () => void;
  const contextSeed = new Promise<void>((resolve) => (seeded = resolve));
  const h = await startCompanion({ contextSeed });
  try {
    const a = path.join(h.workspace, 'a.ts');
    fs.writeFileSync(a, '');
    const c = await connectClient(h.companion);
    await waitFor(() => h.companion.sessionList.some((s) => s.streamOpen), 'the stream open');
    await sleep(50);
    assert.equal(c.notifications.filter((n) => n.method === 'ide/contextUpdate').length, 0, 'nothing sent before the seed is in');
    h.companion.context.focus(a);
    seeded();
    const first = await waitFor(() => c.notifications.find((n) => n.method === 'ide/contextUpdate'), 'first context');
    assert.equal(first.params.workspaceState.openFiles[0].path, a);
    await c.close();
  } finally {
    await h.cleanup();
  }
});

test('a seed that never settles holds the first context back at most CONTEXT_SEED_WAIT_MS', async () => {
  const h = await startCompanion({ contextSeed: new Promise(() => {}) });
  try {
    const c = await connectClient(h.companion);
    const first = await waitFor(() => c.notifications.find((n) => n.method === 'ide/contextUpdate'), 'first context', CONTEXT_SEED_WAIT_MS + 5_000);
    assert.deepEqual(first.params.workspaceState.openFiles, []);
    await c.close();
  } finally {
    await h.cleanup();
  }
});

test('a burst of editor events reaches a client as one notification with the final state', async () => {
  const h = await startCompanion();
  try {
    const f = path.join(h.workspace, 'burst.ts');
    fs.writeFileSync(f, '');
    h.companion.context.focus(f);
    const c = await connectClient(h.companion);
    await waitFor(() => c.notifications.length === 1, 'initial context');
    await sleep(100);
    for (let line = 1; line <= 50; line++) h.companion.context.setCursor(f, { line, character: 1 });
    await sleep(200);
    const updates = c.notifications.slice(1);
    assert.equal(updates.length, 1);
    assert.deepEqual(updates[0]!.params.workspaceState.openFiles[0].cursor, { line: 50, character: 1 });
    await c.close();
  } finally {
    await h.cleanup();
  }
});

// Was a wall-clock median (< 45 ms); now: the lone event must go out with the window timer never firing.
test('an isolated event reaches the client without waiting on any timer', async () => {
  const never = Symbol('timer that never fires');
  let clock = 0;
  const scheduler: Scheduler = {
    ...realScheduler,
    now: () => (clock += 1000), // a second passes between any two events: each one is isolated
    setTimer: () => never,
    cancel: (handle) => {
      if (handle !== never) realScheduler.cancel(handle);
    },
  };
  const h = await startCompanion({ context: { scheduler } });
  try {
    const f = path.join(h.workspace, 'lone.ts');
    fs.writeFileSync(f, '');
    const c = await connectClient(h.companion);
    await waitFor(() => c.notifications.length === 1, 'initial context');
    h.companion.context.setCursor(f, { line: 2, character: 1 });
    const update = await waitFor(() => c.notifications[1], 'the update');
    assert.equal(update.params.workspaceState.openFiles[0].path, f);
    await c.close();
  } finally {
    await h.cleanup();
  }
});

test("each session has its own McpServer: a second client does not hijack the first one's replies", async () => {
  const view = new RecordingEditor();
  const h = await startCompanion({ editor: view });
  try {
    const a = await connectClient(h.companion);
    const b = await connectClient(h.companion);
    const f = path.join(h.workspace, 'first.txt');
    const r = await Promise.race([a.client.callTool({ name: 'openDiff', arguments: { filePath: f, newContent: 'x' } }), sleep(5000).then(() => 'timeout')]);
    assert.deepEqual(r, { content: [] });
    assert.equal(view.shown.at(-1)!.sessionId, a.transport.sessionId);
    assert.equal(h.companion.sessionList.length, 2);
    await Promise.all([a.close(), b.close()]);
  } finally {
    await h.cleanup();
  }
});

test('a session whose stream dropped expires by itself (the CLI never sends DELETE)', async () => {
  const h = await startCompanion({ sessionGraceMs: 200 });
  try {
    const c = await connectClient(h.companion);
    await waitFor(() => h.companion.sessionList[0]?.streamOpen, 'stream open');
    await c.transport.close();
    await waitFor(() => h.companion.sessionList.length === 0, 'session expired', 5000);
  } finally {
    await h.cleanup();
  }
});

test('a session with an open stream does not expire', async () => {
  const h = await startCompanion({ sessionGraceMs: 100 });
  try {
    const c = await connectClient(h.companion);
    await waitFor(() => h.companion.sessionList[0]?.streamOpen, 'stream open');
    await sleep(400);
    assert.equal(h.companion.sessionList.length, 1);
    assert.ok((await c.client.listTools()).tools.length > 0);
    await c.close();
  } finally {
    await h.cleanup();
  }
});

test('DELETE ends a session; later requests on it get 404', async () => {
  const h = await startCompanion();
  try {
    const headers = mcpHeaders(h.companion.authToken, h.companion.port);
    const init = await rawRequest(h.companion.port, { headers, body: INIT_BODY });
    const id = init.headers.get('mcp-session-id')!;
    const del = await rawRequest(h.companion.port, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' } });
    assert.equal(del.status, 200);
    await waitFor(() => h.companion.sessionList.length === 0, 'session gone');
    const after = await rawRequest(h.companion.port, {
      headers: { ...headers, 'mcp-session-id': id },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(after.status, 404);
  } finally {
    await h.cleanup();
  }
});

test('the session list reports the client name and whether its stream is open', async () => {
  const h = await startCompanion();
  try {
    const seen: number[] = [];
    h.companion.onDidChangeSessions((s) => seen.push(s.length));
    const c = await connectClient(h.companion);
    await waitFor(() => h.companion.sessionList[0]?.streamOpen, 'stream open');
    assert.equal(h.companion.sessionList[0]!.clientName, 'streamable-http-client');
    await c.close();
    assert.ok(seen.includes(1));
  } finally {
    await h.cleanup();
  }
});

test('an invalid notification is never sent, and the session stays up', async () => {
  const h = await startCompanion();
  try {
    const c = await connectClient(h.companion);
    await waitFor(() => c.notifications.length === 1, 'initial context');
    const id = c.transport.sessionId!;
    const sessions = (h.companion as any).sessions;
    const sent = sessions.notify(id, { method: 'ide/contextUpdate', params: { workspaceState: { openFiles: [{ path: '/no-timestamp' }] } } });
    assert.equal(sent, false);
    assert.equal(sessions.notify(id, { method: 'ide/diffAccepted', params: { filePath: '/a' } }), false);
    await sleep(100);
    assert.equal(c.notifications.length, 1);
    assert.ok((await c.client.listTools()).tools.length > 0);
    await c.close();
  } finally {
    await h.cleanup();
  }
});

test("getActiveFile answers in the architecture doc's text format", async () => {
  const h = await startCompanion();
  try {
    const c = await connectClient(h.companion);
    const text = async () => ((await c.client.callTool({ name: 'getActiveFile', arguments: {} })) as any).content[0].text;
    assert.equal(await text(), 'No file is currently active');
    const f = path.join(h.workspace, 'active.ts');
    fs.writeFileSync(f, '');
    h.companion.context.focus(f);
    assert.equal(await text(), `Active file: ${f}`);
    h.companion.context.setCursor(f, { line: 10, character: 5 });
    assert.equal(await text(), `Active file: ${f} (line: 10, char: 5)`);
    await c.close();
  } finally {
    await h.cleanup();
  }
});

test('in a container the terminals get REMOTE_CONTAINERS=1 too: gemini there dials this companion on loopback (issue 39)', () => {
  const base = { port: 1, workspacePath: '/w', authToken: 't', idePid: 2 };
  assert.equal(buildTerminalEnv(base)['REMOTE_CONTAINERS'], undefined);
  assert.equal(buildTerminalEnv({ ...base, container: true })['REMOTE_CONTAINERS'], '1');
});

test('the terminal env ties a terminal to this instance', async () => {
  const h = await startCompanion({ idePid: 4242 });
  try {
    assert.deepEqual(h.companion.terminalEnv, {
      GEMINI_CLI_IDE_SERVER_PORT: String(h.companion.port),
      GEMINI_CLI_IDE_WORKSPACE_PATH: h.workspace,
      GEMINI_CLI_IDE_AUTH_TOKEN: h.companion.authToken,
      GEMINI_CLI_IDE_PID: '4242',
      // The Qwen face's (qwenFace.test.ts).
      QWEN_CODE_IDE_SERVER_PORT: String(h.companion.port),
      QWEN_CODE_IDE_WORKSPACE_PATH: h.workspace,
      // The Claude face's (claudeFace.test.ts): the port its WebSocket is on, and IDE integration on.
      CLAUDE_CODE_SSE_PORT: String(h.companion.port),
      ENABLE_IDE_INTEGRATION: 'true',
      CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL: 'true',
      // Factory Droid's (droidFace.test.ts): the port of its own, named by its lock file.
      FACTORY_VSCODE_MCP_PORT: path.basename(h.companion.lockFilePath('droid')!, '.lock'),
      // In a container (this machine is one) gemini there dials loopback, where this companion is (editorSeam.test.ts).
      ...(h.companion.containerHint !== undefined && { REMOTE_CONTAINERS: '1' }),
    });
    assert.match(h.companion.discoveryFilePath!, /gemini-ide-server-4242-\d+\.json$/);
    const other = path.join(h.tmp, 'other');
    fs.mkdirSync(other);
    h.companion.context.setRoots([h.workspace, other]);
    assert.equal(h.companion.terminalEnv['GEMINI_CLI_IDE_WORKSPACE_PATH'], `${h.workspace}${path.delimiter}${other}`);
    assert.equal(h.companion.terminalEnv['QWEN_CODE_IDE_WORKSPACE_PATH'], `${h.workspace}${path.delimiter}${other}`);
  } finally {
    await h.cleanup();
  }
});

test('logs never contain the token or file contents', async () => {
  const lines: string[] = [];
  const record = (level: string) => (message: string, fields?: Record<string, unknown>) => lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  const view = new RecordingEditor();
  const h = await startCompanion({ editor: view, logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') } });
  try {
    const secret = 'SECRET-FILE-CONTENT-1234';
    const c = await connectClient(h.companion);
    await c.client.callTool({ name: 'openDiff', arguments: { filePath: path.join(h.workspace, 's.txt'), newContent: secret } });
    h.companion.diffs.accept(view.shown.at(-1)!.id, secret + ' edited');
    await rawRequest(h.companion.port, { headers: mcpHeaders('wrong-' + h.companion.authToken, h.companion.port), body: INIT_BODY });
    await c.close();
  } finally {
    await h.cleanup();
  }
  const all = lines.join('\n');
  assert.ok(lines.length > 5, 'something was logged');
  assert.ok(!all.includes('SECRET-FILE-CONTENT'), 'no file contents');
  assert.ok(!all.includes(h.companion.authToken), 'no token');
});

test('the GET stream carries keep-alive comments, so an idle CLI connection is not timed out', async () => {
  const h = await startCompanion({ keepAliveMs: 50 });
  try {
    const headers = mcpHeaders(h.companion.authToken, h.companion.port);
    const init = await rawRequest(h.companion.port, { headers, body: INIT_BODY });
    const id = init.headers.get('mcp-session-id')!;
    const http = await import('node:http');
    const text = await new Promise<string>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: h.companion.port,
          path: '/mcp',
          method: 'GET',
          headers: { ...headers, Accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
        },
        (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          setTimeout(() => {
            req.destroy();
            resolve(data);
          }, 400);
        },
      );
      req.on('error', (err) => (err.message.includes('aborted') || (err as any).code === 'ECONNRESET' ? undefined : reject(err)));
      req.end();
    });
    assert.match(text, /^: /m, 'an SSE comment arrived');
  } finally {
    await h.cleanup();
  }
});
