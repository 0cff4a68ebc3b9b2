/**
 * Issue 27: the HTTP faces (Gemini's and Qwen's port, and the Unix socket)
 * answer as JSON-RPC 2.0 and MCP say, where the MCP SDK 1.32.2 did not: an
 * unknown tool is JSON-RPC -32602 (the SDK made it an isError result),
 * tools/call without params or with array arguments -32602 in one line (the
 * SDK: -32603 and a zod dump), a body that is JSON but no JSON-RPC -32600
 * (the SDK: -32700), an empty batch -32600 (the SDK: 202). And a session
 * answers only the token that opened it: Qwen's token drove a session opened
 * with Gemini's. Real HTTP, the real MCP SDK client.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectRecordingClient, sleep } from '@ide-companion/testkit';
import { INIT_BODY, RecordingEditor, connectClient, mcpHeaders, rawRequest, startCompanion, type Harness } from './helpers.js';

/** The error a call ended with (the SDK client throws McpError for a JSON-RPC error, and returns an isError result otherwise). */
async function errorOf(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  const outcome = await call.then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  assert.ok('error' in outcome, `a JSON-RPC error, not a result: ${JSON.stringify('result' in outcome ? outcome.result : undefined)}`);
  assert.ok(outcome.error instanceof McpError, String(outcome.error));
  return { code: outcome.error.code, message: outcome.error.message };
}

describe('JSON-RPC and MCP errors on the HTTP faces', () => {
  let h: Harness;
  let qwenToken: string;

  before(async () => {
    h = await startCompanion();
    qwenToken = (JSON.parse(fs.readFileSync(h.companion.lockFilePath('qwen')!, 'utf8')) as { authToken: string }).authToken;
  });
  after(() => h.cleanup());

  test('an unknown tool is JSON-RPC -32602 naming it (MCP: "Unknown tool"), on Gemini’s and Qwen’s token; the session goes on', async () => {
    for (const token of [h.companion.authToken, qwenToken]) {
      const c = await connectRecordingClient({ port: h.companion.port, token });
      const error = await errorOf(c.client.callTool({ name: 'rm -rf\u001b[2J', arguments: {} }));
      assert.equal(error.code, -32602);
      assert.match(error.message, /Unknown tool: "rm -rf\\u001b\[2J"/);
      assert.ok((await c.client.listTools()).tools.length >= 3, 'the session still serves');
      await c.close();
    }
  });

  test('tools/call without params, without a name, or with arguments that are no object: -32602 in one clear line, not -32603 and a zod dump', async () => {
    const c = await connectClient(h.companion);
    const cases: Array<[unknown, RegExp]> = [
      [undefined, /tools\/call needs params/],
      [{ arguments: {} }, /needs the tool name/],
      [{ name: 'getActiveFile', arguments: [1, 2] }, /arguments must be an object of named arguments, not an array/],
      [{ name: 'getActiveFile', arguments: 'x' }, /not a string/],
      [{ name: 'getActiveFile', arguments: null }, /not null/],
    ];
    for (const [params, expected] of cases) {
      const request = { method: 'tools/call', ...(params !== undefined && { params }) } as { method: 'tools/call'; params: { name: string } };
      const error = await errorOf(c.client.request(request, CallToolResultSchema));
      assert.equal(error.code, -32602, JSON.stringify(params));
      assert.match(error.message, expected);
      assert.doesNotMatch(error.message, /\n|"code":|invalid_type/, 'one line, no zod issue list');
    }
    // A good call still works on the same session.
    const ok = await c.client.callTool({ name: 'getWorkspaceFolders', arguments: {} });
    assert.notEqual(ok.isError, true);
    await c.close();
  });

  // Regression (issue 27): Qwen's token drove a session opened with Gemini's, and the other way round.
  test('a session answers only the token that opened it: another face’s token is refused 403 on POST, GET and DELETE, and changes nothing', async () => {
    const port = h.companion.port;
    for (const [opener, other] of [
      [h.companion.authToken, qwenToken],
      [qwenToken, h.companion.authToken],
    ] as const) {
      const init = await rawRequest(port, { headers: mcpHeaders(opener, port), body: INIT_BODY });
      assert.equal(init.status, 200);
      const id = init.headers.get('mcp-session-id')!;
      const own = { ...mcpHeaders(opener, port), 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
      const foreign = { ...own, Authorization: `Bearer ${other}` };
      for (const method of ['POST', 'GET', 'DELETE']) {
        const res = await rawRequest(port, {
          method,
          headers: foreign,
          body: method === 'POST' ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) : undefined,
        });
        assert.equal(res.status, 403, method);
        assert.match(res.json.error.message, /opened with (Gemini CLI|Qwen Code)'s token/);
      }
      assert.ok(
        h.companion.sessionList.some((s) => s.id === id),
        'the DELETE with the other token ended nothing',
      );
      const still = await rawRequest(port, { headers: own, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
      assert.equal(still.status, 200);
      assert.equal((await rawRequest(port, { method: 'DELETE', headers: own })).status, 200);
    }
  });

  test('on the Unix socket: JSON that is no JSON-RPC -32600 (not -32700), an empty batch -32600 (not 202), an unknown tool -32602', async () => {
    const socket = { socketPath: h.companion.socketPath! };
    const headers = { ...mcpHeaders(h.companion.authToken, h.companion.port), Host: 'localhost' };
    const init = await rawRequest(socket, { headers, body: INIT_BODY });
    assert.equal(init.status, 200);
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    for (const [body, message] of [
      ['{"hello":"world"}', /not a JSON-RPC 2.0 message/],
      ['42', /not a JSON-RPC 2.0 message/],
      ['[]', /empty batch/],
    ] as const) {
      const res = await rawRequest(socket, { headers: session, body });
      assert.equal(res.status, 400, body);
      assert.equal(res.json.error.code, -32600, body);
      assert.match(res.json.error.message, message);
    }
    // Without a session, too: an empty batch is named, not answered 202 nor "no session".
    const sessionless = await rawRequest(socket, { headers, body: '[]' });
    assert.equal(sessionless.json.error.code, -32600);
    assert.match(sessionless.json.error.message, /empty batch/);
    const unknown = await rawRequest(socket, {
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'nope', arguments: {} } }),
    });
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.json, { jsonrpc: '2.0', id: 5, error: { code: -32602, message: 'Unknown tool: "nope"' } });
  });
});

// Regression (issue 27): a request reusing the id of one still in progress took over its waiter: the first POST was never answered.
test('a request reusing the id of one in progress gets -32600 at once; the first still gets its answer', async () => {
  let release: (() => void) | undefined;
  const editor = Object.assign(new RecordingEditor(), {
    getSelection: () => new Promise<{ selection: null }>((resolve) => (release = () => resolve({ selection: null }))),
  });
  const h = await startCompanion({ editor, editorTimeoutMs: 30_000 });
  try {
    const port = h.companion.port;
    const headers = mcpHeaders(h.companion.authToken, port);
    const init = await rawRequest(port, { headers, body: INIT_BODY });
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    const first = rawRequest(port, {
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id: 'same', method: 'tools/call', params: { name: 'getSelection', arguments: {} } }),
    });
    for (let i = 0; i < 50 && !release; i++) await sleep(20);
    assert.ok(release, 'the first call reached the editor');
    const second = await rawRequest(port, { headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 'same', method: 'tools/list' }) });
    assert.equal(second.json.error.code, -32600);
    assert.match(second.json.error.message, /already used by a request in progress/);
    release!();
    const answered = await Promise.race([first, sleep(3000).then(() => undefined)]);
    assert.ok(answered, 'the first request is answered');
    assert.equal(answered.status, 200);
    assert.equal(answered.json.id, 'same');
    assert.ok(answered.json.result, answered.text);
  } finally {
    await h.cleanup();
  }
});
