/** Bad input gets a clear error, changes nothing, and never takes the companion down. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { waitFor } from '@ide-companion/testkit';
import { INIT_BODY, RecordingEditor, connectClient, mcpHeaders, rawRequest, startCompanion, type Harness } from './helpers.js';

describe('hostile and malformed input', () => {
  let h: Harness;
  let view: RecordingEditor;
  let headers: Record<string, string>;

  before(async () => {
    view = new RecordingEditor();
    h = await startCompanion({ editor: view, maxBodyBytes: 40 * 1024 * 1024 });
    headers = mcpHeaders(h.companion.authToken, h.companion.port);
  });
  after(() => h.cleanup());

  async function stillServes(): Promise<void> {
    const c = await connectClient(h.companion);
    const tools = await c.client.listTools();
    assert.ok(tools.tools.length >= 3);
    await c.close();
  }

  test('malformed JSON gets a JSON-RPC parse error (400)', async () => {
    const res = await rawRequest(h.companion.port, { headers, body: '{"jsonrpc": "2.0", "method": ' });
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, -32700);
    await stillServes();
  });

  test('a large malformed body (past the large-string parse threshold) gets the same parse error as JSON.parse gives', async () => {
    const big = 'é🚀 \\" '.repeat(1024 * 1024);
    for (const body of [`{"jsonrpc":"2.0","method":"x","params":{"s":"${big}\u0001"}}`, `{"jsonrpc":"2.0","method":"x","params":{"s":"${big}"},}`]) {
      let expected = '';
      try {
        JSON.parse(body);
      } catch (err) {
        expected = (err as Error).message;
      }
      assert.ok(expected, 'the body is malformed');
      const res = await rawRequest(h.companion.port, { headers, body });
      assert.equal(res.status, 400);
      assert.equal(res.json.error.code, -32700);
      assert.ok(res.json.error.message.includes(expected), res.json.error.message);
    }
    await stillServes();
  });

  test('a request that is not initialize, without a session, gets 400', async () => {
    const res = await rawRequest(h.companion.port, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.equal(res.status, 400);
    assert.match(res.json.error.message, /Mcp-Session-Id/);
  });

  test('JSON that is not JSON-RPC gets a clear error', async () => {
    for (const body of ['42', '[]', '{"hello":"world"}', 'null']) {
      const res = await rawRequest(h.companion.port, { headers, body });
      assert.equal(res.status, 400, body);
      assert.ok(res.json.error.message, body);
    }
    await stillServes();
  });

  test('an unknown session id gets 404 on POST, GET and DELETE', async () => {
    for (const method of ['POST', 'GET', 'DELETE']) {
      const res = await rawRequest(h.companion.port, {
        method,
        headers: { ...headers, 'mcp-session-id': 'no-such-session' },
        body: method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) : undefined,
      });
      assert.equal(res.status, 404, method);
      assert.match(res.json.error.message, /Session not found/);
    }
  });

  test('other paths get 404 and other methods 405', async () => {
    assert.equal((await rawRequest(h.companion.port, { path: '/', headers, body: INIT_BODY })).status, 404);
    assert.equal((await rawRequest(h.companion.port, { method: 'PUT', headers, body: INIT_BODY })).status, 405);
  });

  test('a body over the limit gets 413 with a JSON-RPC error naming the limit, and the server keeps serving', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' }, pad: 'x'.repeat(41 * 1024 * 1024) },
    });
    const res = await rawRequest(h.companion.port, { headers, body: big });
    assert.equal(res.status, 413);
    assert.match(res.json.error.message, /40 MiB/);
    await stillServes();
  });

  test('openDiff with a relative path answers isError with a text block and opens nothing', async () => {
    const c = await connectClient(h.companion);
    const before = view.shown.length;
    const r: any = await c.client.callTool({ name: 'openDiff', arguments: { filePath: 'relative/a.txt', newContent: 'x' } });
    assert.equal(r.isError, true);
    assert.equal(r.content[0].type, 'text');
    assert.match(r.content[0].text, /absolute/);
    assert.equal(view.shown.length, before);
    await c.close();
  });

  test('openDiff with wrong types or missing arguments answers isError', async () => {
    const c = await connectClient(h.companion);
    for (const args of [{ filePath: 42, newContent: 'x' }, { filePath: '/a' }, {}, { filePath: '/a', newContent: null }]) {
      const r: any = await c.client
        .callTool({ name: 'openDiff', arguments: args as any })
        .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.ok(r.content[0].text.length > 0);
    }
    const r: any = await c.client
      .callTool({ name: 'closeDiff', arguments: { filePath: 7 } as any })
      .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
    assert.equal(r.isError, true);
    await c.close();
  });

  test('an unknown tool answers an error, and the session goes on', async () => {
    const c = await connectClient(h.companion);
    const r: any = await c.client
      .callTool({ name: 'rm -rf', arguments: {} })
      .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
    assert.equal(r.isError, true);
    assert.ok((await c.client.listTools()).tools.length >= 3);
    await c.close();
  });

  test('a 32 MiB newContent round-trips byte for byte', async () => {
    const file = path.join(h.workspace, 'big.txt');
    const line = 'ünïcödé 🚀 "quoted" \\ back\tslash\r\n';
    const content = line.repeat(Math.ceil((32 * 1024 * 1024) / Buffer.byteLength(line)));
    assert.ok(Buffer.byteLength(content) >= 32 * 1024 * 1024);
    const c = await connectClient(h.companion);
    const r: any = await c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: content } }, undefined, { timeout: 120_000 });
    assert.deepEqual(r.content, []);
    const diff = view.shown.at(-1)!;
    assert.equal(diff.newContent === content, true);
    h.companion.diffs.accept(diff.id);
    const accepted = await waitFor(() => c.notifications.find((n) => n.method === 'ide/diffAccepted'), 'diffAccepted', 60_000);
    assert.equal(accepted.params.content === content, true, 'accepted content equals the proposal');
    assert.equal(fs.existsSync(file), false, 'the companion never writes the file itself');
    await c.close();
  });
});
