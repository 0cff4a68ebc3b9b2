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

  test('a request gets its reply as one JSON body', async () => {
    await stillServes();
  });

  // Regression (issue 27): a batch at 2025-06-18 (which has no batches) was run, and a batch of one answered with one object.
  test('a batch on a session at 2025-06-18 or later: one -32600 per message, each with its id, and nothing run', async () => {
    const ping = { jsonrpc: '2.0', id: 'p', method: 'ping' };
    const notification = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0 } };
    for (const batch of [[listTools(1)], [listTools(1), ping, notification]]) {
      const res = await rawRequest(h.companion.port, { headers: session, body: JSON.stringify(batch) });
      assert.equal(res.status, 400);
      assert.ok(Array.isArray(res.json), res.text);
      assert.deepEqual(
        res.json.map((r: { id: unknown; error: { code: number } }) => [r.id, r.error.code]),
        batch.map((m) => ['id' in m ? m.id : null, -32600]),
      );
      assert.match(res.json[0].error.message, /batches are not part of MCP 2025-06-18/);
    }
    await stillServes();
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
    // Regression (issue 27): the SDK answers -32700 (Parse error), which JSON-RPC keeps for JSON that does not parse.
    {
      what: 'JSON that is no JSON-RPC message',
      edit: (s) => s,
      body: '{"hello":"world"}',
      status: 400,
      code: -32600,
      message: 'Invalid Request: not a JSON-RPC 2.0 message',
    },
    {
      what: 'a JSON-RPC message of the wrong shape (an id but no method, a string params)',
      edit: (s) => s,
      body: '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"x"}',
      status: 400,
      code: -32600,
      message: 'Invalid Request: not a JSON-RPC 2.0 message',
    },
    // Regression (issue 27): an empty batch was answered 202 Accepted, as if it held notifications.
    {
      what: 'an empty batch',
      edit: (s) => s,
      body: '[]',
      status: 400,
      code: -32600,
      message: 'Invalid Request: an empty batch',
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
    test(`${r.what}: ${r.status} ${r.code}, a clear message, and the session still serves`, async () => {
      const res = await rawRequest(h.companion.port, { headers: r.edit(session), body: r.body });
      assert.equal(res.status, r.status);
      assert.equal(res.json.error.code, r.code);
      assert.ok(res.json.error.message.startsWith(r.message), res.json.error.message);
      await stillServes();
    });
  }

  test('a batch on a session at 2025-03-26 (which has batches) is answered with an array in order: replies, and -32600 for each message that is no JSON-RPC', async () => {
    const init = await rawRequest(h.companion.port, { headers, body: INIT_BODY.replace('2025-06-18', '2025-03-26') });
    assert.equal(init.json.result.protocolVersion, '2025-03-26');
    const old = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-03-26' };
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const one = await rawRequest(h.companion.port, { headers: old, body: JSON.stringify([listTools(1)]) });
    assert.equal(one.status, 200);
    assert.ok(Array.isArray(one.json), 'a batch of one is answered with an array of one');
    assert.deepEqual(
      one.json.map((r: { id: number }) => r.id),
      [1],
    );
    const mixed = await rawRequest(h.companion.port, {
      headers: old,
      body: JSON.stringify([listTools(2), 42, notification, { id: 9, hello: 1 }, listTools(3)]),
    });
    assert.equal(mixed.status, 200);
    assert.deepEqual(
      mixed.json.map((r: { id: unknown; result?: unknown; error?: { code: number } }) => [r.id, r.error?.code ?? 'result']),
      [
        [2, 'result'],
        [null, -32600],
        [9, -32600],
        [3, 'result'],
      ],
    );
    const notificationsOnly = await rawRequest(h.companion.port, { headers: old, body: JSON.stringify([notification]) });
    assert.equal(notificationsOnly.status, 202);
  });

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
