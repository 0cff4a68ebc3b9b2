/**
 * Issue 27, Claude Code's WebSocket: the upgrade is taken only where the CLI
 * dials (`ws://127.0.0.1:PORT`, path `/`) and only with the subprotocol
 * `mcp` (any subprotocol or none was accepted, on any path); the MCP
 * lifecycle is kept (tools/list was answered before initialize, a second
 * initialize accepted, selection_changed sent before initialize); and errors
 * are JSON-RPC's and MCP's (an unknown tool -32602, not an isError result;
 * bad tools/call params -32602, not -32603 and a zod dump; batches refused
 * one -32600 per message, an empty one -32600). Real WebSocket, real companion.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { connectClaudeClient, sleep, waitFor, type ClaudeTestClient } from '@ide-companion/testkit';
import { startCompanion, type Harness } from './helpers.js';

async function withCompanion(t: import('node:test').TestContext): Promise<{ h: Harness; token: string }> {
  const h = await startCompanion();
  t.after(() => h.cleanup());
  const token = (JSON.parse(fs.readFileSync(h.companion.lockFilePath('claude')!, 'utf8')) as { authToken: string }).authToken;
  return { h, token };
}

/** The JSON-RPC error code a request was answered with. */
async function codeOf(call: Promise<unknown>): Promise<number> {
  const error = await call.then(
    (result) => assert.fail(`an error, not ${JSON.stringify(result)}`),
    (err: Error & { code?: number }) => err,
  );
  assert.equal(typeof error.code, 'number', error.message);
  return error.code!;
}

const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: 'test' } };

test('the upgrade is taken only on `/` and only with the subprotocol mcp or none (opencode): another path 404, another subprotocol 400, before any upgrade', async (t) => {
  const { h, token } = await withCompanion(t);
  const port = h.companion.port;
  await assert.rejects(connectClaudeClient({ port, token, path: '/mcp', initialize: false }), /HTTP 404/);
  await assert.rejects(connectClaudeClient({ port, token, path: '/anything', initialize: false }), /HTTP 404/);
  // opencode 1.18.33 offers no subprotocol (issue 31): taken, and answered without one.
  const bare = await connectClaudeClient({ port, token, protocol: null });
  assert.equal(bare.socket.protocol, '');
  await bare.close();
  await waitFor(() => h.companion.sessionList.length === 0, 'the bare session gone');
  await assert.rejects(connectClaudeClient({ port, token, protocol: 'not-mcp', initialize: false }), /HTTP 400/);
  // The token is still checked first: a wrong path without it says 401, not where the socket is.
  await assert.rejects(connectClaudeClient({ port, path: '/mcp', initialize: false }), /HTTP 401/);
  assert.equal(h.companion.sessionList.length, 0, 'no session from any refused upgrade');
  const claude = await connectClaudeClient({ port, token, path: '/' });
  t.after(() => claude.close());
  assert.equal(claude.socket.protocol, 'mcp');
});

test('the MCP lifecycle: before initialize only ping is answered (others -32600, notifications dropped); initialize once (a second is -32600)', async (t) => {
  const { h, token } = await withCompanion(t);
  const claude = await connectClaudeClient({ port: h.companion.port, token, initialize: false });
  t.after(() => claude.close());
  assert.equal(await codeOf(claude.request('tools/list')), -32600);
  assert.equal(await codeOf(claude.callTool('getWorkspaceFolders')), -32600);
  assert.deepEqual(await claude.request('ping'), {});
  // An `initialized` out of turn opens nothing: tools/list is still refused.
  claude.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  assert.equal(await codeOf(claude.request('tools/list')), -32600);
  // A failed initialize (no protocolVersion) may be retried.
  await assert.rejects(claude.request('initialize', { capabilities: {} }));
  const result = await claude.request('initialize', INITIALIZE);
  assert.equal(result.protocolVersion, '2025-06-18');
  assert.equal(await codeOf(claude.request('initialize', INITIALIZE)), -32600);
  claude.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const { tools } = (await claude.request('tools/list')) as { tools: unknown[] };
  assert.ok(tools.length > 0);
});

test('no selection_changed (nor at_mentioned) before the client’s initialized; the selection of that moment comes right after it', async (t) => {
  const { h, token } = await withCompanion(t);
  const file = path.join(h.workspace, 'sel.ts');
  fs.writeFileSync(file, 'one\ntwo\n');
  h.companion.context.focus(file, { cursor: { line: 1, character: 1 } });
  const claude: ClaudeTestClient = await connectClaudeClient({ port: h.companion.port, token, initialize: false });
  t.after(() => claude.close());
  await waitFor(() => h.companion.sessionList.length === 1 || undefined, 'the connection');
  h.companion.context.setCursor(file, { line: 2, character: 3 }, 'two');
  assert.equal(h.companion.mention(file, 1, 1), 0, 'no initialized session to mention to');
  await claude.request('initialize', INITIALIZE);
  h.companion.context.setCursor(file, { line: 1, character: 3 }, 'one');
  await sleep(300);
  assert.deepEqual(claude.notifications, [], 'nothing before initialized');
  claude.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const first = await waitFor(() => claude.notifications.find((n) => n.method === 'selection_changed'), 'selection_changed after initialized');
  assert.equal(first.params.text, 'one');
  assert.equal(claude.notifications.length, 1);
});

test('errors as MCP says: an unknown tool -32602; tools/call without params or with array arguments -32602 in one line; a batch one -32600 per message; an empty one -32600', async (t) => {
  const { h, token } = await withCompanion(t);
  const claude = await connectClaudeClient({ port: h.companion.port, token });
  t.after(() => claude.close());
  const unknown = await claude.callTool('noSuchTool').catch((err: Error & { code: number }) => err);
  assert.ok(unknown instanceof Error, `an error, not ${JSON.stringify(unknown)}`);
  assert.equal((unknown as Error & { code: number }).code, -32602);
  assert.equal(unknown.message, 'Unknown tool: "noSuchTool"');
  for (const params of [undefined, { name: 'getWorkspaceFolders', arguments: [] }, { arguments: {} }]) {
    const error = await claude.request('tools/call', params).catch((err: Error & { code: number }) => err);
    assert.ok(error instanceof Error);
    assert.equal((error as Error & { code: number }).code, -32602, JSON.stringify(params));
    assert.doesNotMatch(error.message, /\n|invalid_type/);
  }
  claude.sendRaw(
    JSON.stringify([
      { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
      { jsonrpc: '2.0', method: 'notifications/x' },
    ]),
  );
  claude.sendRaw('[]');
  await waitFor(() => claude.unanswered.length === 2 || undefined, 'the batch answers');
  const [batch, empty] = claude.unanswered;
  assert.deepEqual(
    batch.map((r: { id: unknown; error: { code: number } }) => [r.id, r.error.code]),
    [
      ['a', -32600],
      [null, -32600],
    ],
  );
  assert.equal(empty.error.code, -32600);
  assert.equal(empty.id, null);
  const folders = await claude.callTool('getWorkspaceFolders');
  assert.notEqual(folders.isError, true, 'the connection serves on');
});
