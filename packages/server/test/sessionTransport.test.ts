/**
 * The session transport answers POSTs on node:http itself (no web
 * Request/Response, so no undici): its refusals are the SDK transport's, word
 * for word, each changes nothing, and replies come back as JSON.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sleep, waitFor } from '@ide-companion/testkit';
import { INIT_BODY, mcpHeaders, rawRequest, RecordingEditor, startCompanion, type Harness } from './helpers.js';

describe('session transport', () => {
  let h: Harness;
  let headers: Record<string, string>;
  let session: Record<string, string>;
  const listTools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

  before(async () => {
    h = await startCompanion();
    headers = mcpHeaders(h.companion.authToken, h.companion.port);
    const init = await rawRequest(h.companion.port, { headers, body: INIT_BODY });
    assert.equal(init.status, 200);
    assert.match(init.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(init.json.result.protocolVersion, '2025-06-18');
    const id = init.headers.get('mcp-session-id');
    assert.ok(id);
    session = { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    const initialized = await rawRequest(h.companion.port, { headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    assert.equal(initialized.status, 202);
    assert.equal(initialized.headers.get('mcp-session-id'), id);
  });
  after(() => h.cleanup());

  /** The session still answers after a refusal. */
  async function stillServes(): Promise<void> {
    const res = await rawRequest(h.companion.port, { headers: session, body: JSON.stringify(listTools(99)) });
    assert.equal(res.status, 200);
    assert.equal(res.json.id, 99);
    assert.ok(res.json.result.tools.some((t: { name: string }) => t.name === 'openDiff'));
  }

  test('a request gets its reply as one JSON body; a batch of two, an array of both', async () => {
    await stillServes();
    const res = await rawRequest(h.companion.port, { headers: session, body: JSON.stringify([listTools(1), listTools(2)]) });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.json.map((r: { id: number }) => r.id),
      [1, 2],
    );
  });

  const refusals: Array<{
    what: string;
    edit: (h: Record<string, string>) => Record<string, string>;
    body: string;
    status: number;
    code: number;
    message: string;
  }> = [
    {
      what: 'an Accept without text/event-stream',
      edit: (s) => ({ ...s, Accept: 'application/json' }),
      body: JSON.stringify(listTools(3)),
      status: 406,
      code: -32000,
      message: 'Not Acceptable: Client must accept both application/json and text/event-stream',
    },
    {
      what: 'a Content-Type that is not application/json',
      edit: (s) => ({ ...s, 'Content-Type': 'text/plain' }),
      body: JSON.stringify(listTools(4)),
      status: 415,
      code: -32000,
      message: 'Unsupported Media Type: Content-Type must be application/json',
    },
    {
      what: 'JSON that is no JSON-RPC message',
      edit: (s) => s,
      body: '{"hello":"world"}',
      status: 400,
      code: -32700,
      message: 'Parse error: Invalid JSON-RPC message',
    },
    {
      what: 'a second initialize on a live session',
      edit: (s) => s,
      body: INIT_BODY,
      status: 400,
      code: -32600,
      message: 'Invalid Request: Server already initialized',
    },
    {
      what: 'a batch over 100 messages',
      edit: (s) => s,
      body: JSON.stringify(Array.from({ length: 101 }, (_, i) => listTools(100 + i))),
      status: 400,
      code: -32600,
      message: 'Invalid Request: Batch must not exceed 100 messages',
    },
    {
      what: 'an unsupported MCP-Protocol-Version',
      edit: (s) => ({ ...s, 'mcp-protocol-version': '1999-01-01' }),
      body: JSON.stringify(listTools(5)),
      status: 400,
      code: -32000,
      message: 'Bad Request: Unsupported protocol version: 1999-01-01',
    },
  ];
  for (const r of refusals) {
    test(`${r.what}: ${r.status}, the SDK's words, and the session still serves`, async () => {
      const res = await rawRequest(h.companion.port, { headers: r.edit(session), body: r.body });
      assert.equal(res.status, r.status);
      assert.equal(res.json.error.code, r.code);
      assert.ok(res.json.error.message.startsWith(r.message), res.json.error.message);
      await stillServes();
    });
  }

  test('two initializes in one batch are refused and open no session', async () => {
    const before = h.companion.sessionList.length;
    const res = await rawRequest(h.companion.port, { headers, body: `[${INIT_BODY},${INIT_BODY}]` });
    assert.equal(res.status, 400);
    assert.ok(res.json.error.message);
    assert.equal(h.companion.sessionList.length, before);
  });
});

// Regression: a request waiting for the editor when its session closed was never answered (the POST hung until its client gave up).
test('a request still waiting when its session is deleted is answered 404 at once', async () => {
  const editor = new RecordingEditor();
  const h = await startCompanion({ editor: Object.assign(editor, { getSelection: () => new Promise<never>(() => {}) }), editorTimeoutMs: 60_000 });
  try {
    const headers = mcpHeaders(h.companion.authToken, h.companion.port);
    const init = await rawRequest(h.companion.port, { headers, body: INIT_BODY });
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
    await rawRequest(h.companion.port, { headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const pending = rawRequest(h.companion.port, {
      headers: session,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'getSelection', arguments: {} } }),
    });
    await waitFor(() => h.companion.sessionList.length === 1 || undefined, 'the session');
    await sleep(200); // the call is with the editor
    const deleted = await rawRequest(h.companion.port, { method: 'DELETE', headers: session });
    assert.equal(deleted.status, 200);
    const answer = await pending;
    assert.equal(answer.status, 404);
    assert.equal(answer.json.error.message, 'Session not found');
  } finally {
    await h.cleanup();
  }
});
