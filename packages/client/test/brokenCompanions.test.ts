import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { waitFor } from '@ide-companion/testkit';
import { CompanionClient } from '../src/index.js';
import { advertise, cleanEnv, client, place } from './helpers.js';
import { companionTools, FixtureCompanion } from './fixtureCompanion.js';

/** Sends a valid context until the client has it: the stream is open from then on. */
async function primeStream(f: FixtureCompanion, c: CompanionClient): Promise<void> {
  await waitFor(
    async () => {
      await f.notify('ide/contextUpdate', { workspaceState: { openFiles: [{ path: '/prime', timestamp: 1 }] } });
      return c.context.get() !== undefined;
    },
    'the standalone stream',
    20_000,
    100,
  );
}

/**
 * A connected client on a fixture companion with `tools`; `prime` waits until its
 * standalone stream is open. Everything is stopped and removed afterwards.
 */
async function withConnectedFixture(
  tools: ConstructorParameters<typeof FixtureCompanion>[0]['tools'],
  body: (f: FixtureCompanion, c: CompanionClient) => Promise<void>,
  options: { prime?: boolean; beforeConnect?: (c: CompanionClient) => void } = {},
): Promise<void> {
  const p = place('ide-broken-');
  const f = await new FixtureCompanion({ tools }).start();
  advertise(p, f.port, f.token);
  const c = client(p);
  options.beforeConnect?.(c);
  try {
    assert.ok(await c.connect());
    if (options.prime) await primeStream(f, c);
    await body(f, c);
  } finally {
    await c.stop();
    await f.stop();
    p.cleanup();
  }
}

test('a server that accepts TCP but never answers fails within the availability timeout', { timeout: 9_000 }, async () => {
  const p = place('ide-broken-');
  const silent = net.createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  const port = (silent.address() as net.AddressInfo).port;
  advertise(p, port, 't');
  const c = client(p, { availabilityTimeoutMs: 500 });
  try {
    assert.equal(await c.connect(), false);
    assert.match(c.status.details ?? '', /timed out after 500 ms/);
  } finally {
    await c.stop();
    silent.close();
    p.cleanup();
  }
});

test('a server answering HTML with 500 is a clean failure, not a crash', async () => {
  const p = place('ide-broken-');
  const bad = http.createServer((_req, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>oops</h1>'));
  await new Promise<void>((r) => bad.listen(0, '127.0.0.1', () => r()));
  advertise(p, (bad.address() as net.AddressInfo).port, 't');
  const c = client(p);
  try {
    assert.equal(await c.connect(), false);
    assert.equal(c.status.status, 'disconnected');
    assert.match(c.status.details ?? '', /Failed to connect to IDE companion extension in Fixture/);
  } finally {
    await c.stop();
    bad.close();
    p.cleanup();
  }
});

test('invalid notifications are ignored and reported; the connection stays up', async () => {
  // The real CLI drops the connection on a notification failing its schema; we validate
  // with the protocol schemas, report, and carry on.
  const invalid: string[] = [];
  await withConnectedFixture(
    companionTools(),
    async (f, c) => {
      await f.notify('ide/contextUpdate', { workspaceState: { openFiles: [{ path: '/no-timestamp' }] } });
      await f.notify('ide/diffAccepted', { filePath: '/x' });
      await f.notify('ide/contextUpdate', { workspaceState: { openFiles: [{ path: '/good', timestamp: 2 }] } });
      await waitFor(() => c.context.get()?.workspaceState?.openFiles?.[0]?.path === '/good', 'the valid update after the invalid ones');
      assert.deepEqual(invalid, ['ide/contextUpdate', 'ide/diffAccepted']);
      assert.equal(c.status.status, 'connected');
    },
    { prime: true, beforeConnect: (c) => c.onInvalidNotification((method) => invalid.push(method)) },
  );
});

test('context is normalised as the CLI does: newest first, one active file, 10 files, 16 KiB selection', async () => {
  await withConnectedFixture(
    companionTools(),
    async (f, c) => {
      const files = Array.from({ length: 12 }, (_, i) => ({
        path: `/f${i}`,
        timestamp: 100 + i,
        isActive: true,
        cursor: { line: 1, character: 1 },
        selectedText: 's'.repeat(20_000),
      }));
      await f.notify('ide/contextUpdate', { workspaceState: { openFiles: files, isTrusted: true } });
      const ctx = await waitFor(() => c.context.get()?.workspaceState?.openFiles?.length === 10 && c.context.get(), 'the normalised context');
      const open = ctx.workspaceState!.openFiles!;
      assert.deepEqual(
        open.map((x) => x.path),
        ['/f11', '/f10', '/f9', '/f8', '/f7', '/f6', '/f5', '/f4', '/f3', '/f2'],
      );
      assert.equal(open[0]!.isActive, true);
      assert.equal(open[0]!.selectedText, 's'.repeat(16384) + '... [TRUNCATED]');
      assert.ok(open.slice(1).every((x) => x.isActive === false && x.cursor === undefined && x.selectedText === undefined));
      assert.deepEqual(
        await c.getActiveFile(),
        { filePath: '/f11', cursor: { line: 1, character: 1 } },
        'without the tool, the active file comes from context',
      );
    },
    { prime: true },
  );
});

test('legacy ide/diffClosed settles a pending diff as rejected', async () => {
  await withConnectedFixture(
    companionTools(),
    async (f, c) => {
      const outcome = c.openDiff('/w/file.txt', 'new');
      await waitFor(() => f.calls.some((x) => x.name === 'openDiff'), 'openDiff call');
      await f.notify('ide/diffClosed', { filePath: '/w/file.txt', content: 'ignored' });
      assert.deepEqual(await outcome, { status: 'rejected' });
    },
    { prime: true },
  );
});

test("openDiff answered with isError rejects with the companion's message", async () => {
  await withConnectedFixture(companionTools({ openDiff: () => ({ isError: true, content: [{ type: 'text', text: 'disk on fire' }] }) }), async (f, c) => {
    await assert.rejects(c.openDiff('/w/a.txt', 'x'), /disk on fire/);
    assert.deepEqual(c.pendingDiffs(), []);
  });
});

test('closeDiff answering raw text (not JSON) yields no content; accepting from the CLI keeps the proposal', async () => {
  await withConnectedFixture(companionTools({ closeDiff: () => ({ content: [{ type: 'text', text: 'raw final text' }] }) }), async (f, c) => {
    assert.equal(await c.closeDiff('/w/a.txt'), undefined);
    const outcome = c.openDiff('/w/b.txt', 'proposal');
    await waitFor(() => f.calls.some((x) => x.name === 'openDiff'), 'openDiff call');
    assert.deepEqual(await c.resolveDiffFromCli('/w/b.txt', 'accepted'), { status: 'accepted', content: 'proposal' });
    assert.deepEqual(await outcome, { status: 'accepted', content: 'proposal' });
    assert.deepEqual(f.calls.at(-1), { name: 'closeDiff', args: { filePath: '/w/b.txt', suppressNotification: true } });
  });
});

test('a well-known port is used only if the server there identifies as a companion', async () => {
  const p = place('ide-broken-');
  const impostor = await new FixtureCompanion({ token: 'tok', tools: { echo: () => ({ content: [] }) } }).start();
  const real = await new FixtureCompanion({ token: 'tok', tools: companionTools() }).start();
  // No discovery file, no workspace: only the well-known ports, with the env token.
  const env = cleanEnv({ GEMINI_CLI_IDE_AUTH_TOKEN: 'tok' });
  const c = client(p, { env, wellKnownPorts: [impostor.port, real.port] });
  try {
    assert.ok(await c.connect());
    assert.equal(c.target?.kind === 'http' && c.target.port, real.port);
    assert.match(c.attempts[0]!.error ?? '', /not an IDE companion/);
  } finally {
    await c.stop();
    await impostor.stop();
    await real.stop();
    p.cleanup();
  }
});

test('a stdio companion from GEMINI_CLI_IDE_SERVER_STDIO_COMMAND connects and serves diffs', async () => {
  const p = place('ide-broken-');
  const mcpUrl = import.meta.resolve('@modelcontextprotocol/sdk/server/mcp.js');
  const stdioUrl = import.meta.resolve('@modelcontextprotocol/sdk/server/stdio.js');
  const zodUrl = import.meta.resolve('zod');
  const script = path.join(p.tmp, 'stdio-companion.mjs');
  fs.writeFileSync(
    script,
    `import { McpServer } from ${JSON.stringify(mcpUrl)};
     import { StdioServerTransport } from ${JSON.stringify(stdioUrl)};
     import { z } from ${JSON.stringify(zodUrl)};
     const mcp = new McpServer({ name: 'stdio-fixture', version: '0' });
     mcp.registerTool('openDiff', { inputSchema: { filePath: z.string(), newContent: z.string() } }, async ({ filePath, newContent }) => {
       setTimeout(() => mcp.server.notification({ method: 'ide/diffAccepted', params: { filePath, content: newContent.toUpperCase() } }), 50);
       return { content: [] };
     });
     mcp.registerTool('closeDiff', { inputSchema: { filePath: z.string() } }, async () => ({ content: [{ type: 'text', text: '{"content":null}' }] }));
     await mcp.connect(new StdioServerTransport());`,
  );
  const env = cleanEnv({
    GEMINI_CLI_IDE_SERVER_STDIO_COMMAND: process.execPath,
    GEMINI_CLI_IDE_SERVER_STDIO_ARGS: JSON.stringify([script]),
    GEMINI_CLI_IDE_WORKSPACE_PATH: p.workspace,
  });
  const c = client(p, { env });
  try {
    assert.ok(await c.connect(), c.status.details);
    assert.equal(c.target?.kind, 'stdio');
    assert.ok(c.isDiffingEnabled());
    assert.deepEqual(await c.openDiff('/w/s.txt', 'shout'), { status: 'accepted', content: 'SHOUT' });
  } finally {
    await c.stop();
    p.cleanup();
  }
});

test('when the companion drops the session and its stream, the client opens a new session by itself', async () => {
  const p = place('ide-broken-');
  const f = await new FixtureCompanion({ tools: companionTools() }).start();
  advertise(p, f.port, f.token);
  const c = client(p, { reconnect: { initialDelayMs: 100, maxDelayMs: 400 }, heartbeatMs: 1000 });
  const states: string[] = [];
  c.onStatusChange((s) => states.push(s.status));
  try {
    assert.ok(await c.connect());
    await primeStream(f, c);
    await f.dropSessions();
    await waitFor(() => states.includes('disconnected'), 'the drop to be noticed', 30_000);
    await waitFor(() => c.status.status === 'connected' && f.sessionCount === 1, 'a new session', 30_000);
    await waitFor(
      async () => {
        await f.notify('ide/contextUpdate', { workspaceState: { openFiles: [{ path: '/after-drop', timestamp: 5 }] } });
        return c.context.get()?.workspaceState?.openFiles?.[0]?.path === '/after-drop';
      },
      'context on the new session',
      20_000,
      100,
    );
  } finally {
    await c.stop();
    await f.stop();
    p.cleanup();
  }
});

test('the initialisation budget bounds all targets together', async () => {
  const p = place('ide-broken-');
  const silent = net.createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  const port = (silent.address() as net.AddressInfo).port;
  advertise(p, port, 't');
  // A second silent target from the env port: the budget runs out before it is tried.
  const c = client(p, { env: cleanEnv({ GEMINI_CLI_IDE_SERVER_PORT: String(port) }), availabilityTimeoutMs: 5_000, initTimeoutMs: 600 });
  try {
    // The second target is cut by the budget, not tried for its own 5 s: the errors say which limit ended each.
    assert.equal(await c.connect(), false);
    assert.match(c.attempts[0]!.error ?? '', /timed out after \d+ ms/);
    assert.match(c.attempts[1]!.error ?? '', /initialization timeout reached/);
  } finally {
    await c.stop();
    silent.close();
    p.cleanup();
  }
});
