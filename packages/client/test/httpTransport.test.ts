/**
 * Our Streamable HTTP client (httpTransport.ts) against a hand-written server on
 * node:http: event streams cut at awkward places, JSON answers, the headers a
 * companion relies on, and the errors a user reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { advertise, client, place } from './helpers.js';

const TOKEN = 'secret-token';
const SESSION = 'session-1';
/** A multi-byte character, to be cut between two chunks. */
const FILE = '/work/caf\u00e9 \u{1F600}.ts';

interface Seen {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes `parts` one by one with pauses, so the client reads them as separate chunks. */
async function writeInParts(res: http.ServerResponse, parts: Array<string | Buffer>): Promise<void> {
  for (const p of parts) {
    res.write(p);
    await delay(5);
  }
}

function utf8Split(text: string, at: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  // Inside the character: one byte after it starts.
  const i = Buffer.from(text.slice(0, text.indexOf(at)), 'utf8').length + 1;
  return [bytes.subarray(0, i), bytes.subarray(i)];
}

/** A minimal companion: initialize over SSE, tools/list as JSON, 202 for notifications, a GET stream with the context. */
function startServer(seen: Seen[]): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', headers: req.headers, body });
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        res.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized: bad token');
        return;
      }
      void (async () => {
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const context = JSON.stringify({
            jsonrpc: '2.0',
            method: 'ide/contextUpdate',
            params: { workspaceState: { openFiles: [{ path: FILE, timestamp: 1, isActive: true }], isTrusted: true } },
          });
          // A comment, a retry, an id, then the event on two data lines, cut inside a UTF-8
          // character and between the CR and LF that end its first line.
          const half = context.indexOf(',"params"');
          const event = `id: 1\r\ndata: ${context.slice(0, half)}\r\ndata: ${context.slice(half)}\r\n\r\n`;
          const [a, b] = utf8Split(event, '\u00e9');
          const cr = a!.indexOf('\r\ndata: ,') + 1;
          await writeInParts(res, [': keep-alive\n', 'retry: 100\n\n', a!.subarray(0, cr), a!.subarray(cr), b!]);
          return; // Left open, as a companion keeps it.
        }
        if (req.method === 'DELETE') {
          res.writeHead(200).end();
          return;
        }
        const message = JSON.parse(body) as { id?: number; method: string };
        if (message.id === undefined) {
          res.writeHead(202).end();
          return;
        }
        if (message.method === 'initialize') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': SESSION });
          const result = JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'hand-written', version: '1' } },
          });
          // A byte-order mark, an `event: message`, and the JSON spread over two data lines.
          const half = result.indexOf(',"result"');
          await writeInParts(res, ['\uFEFFevent: message\n', `data: ${result.slice(0, half)}\n`, `data: ${result.slice(half)}\n`, '\n']);
          res.end();
          return;
        }
        if (message.method === 'tools/list') {
          const tools = ['openDiff', 'closeDiff'].map((name) => ({ name, inputSchema: { type: 'object' } }));
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
      })();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as net.AddressInfo).port })));
}

test('event streams cut anywhere (BOM, CR LF split, UTF-8 split, multi-line data) and JSON answers are read whole', async () => {
  const seen: Seen[] = [];
  const { server, port } = await startServer(seen);
  const p = place('ide-http-');
  advertise(p, port, TOKEN);
  const c = client(p);
  try {
    assert.equal(await c.connect(), true, JSON.stringify(c.attempts));
    assert.deepEqual(c.tools, ['openDiff', 'closeDiff']);
    const ctx = await c.waitForContext(5_000);
    assert.equal(ctx?.workspaceState?.openFiles?.[0]?.path, FILE);
    assert.equal(ctx?.workspaceState?.isTrusted, true);
  } finally {
    await c.stop();
    server.closeAllConnections();
    server.close();
    p.cleanup();
  }
  const [init, ...after] = seen;
  assert.equal(init!.method, 'POST');
  assert.equal(init!.headers['content-type'], 'application/json');
  assert.equal(init!.headers.accept, 'application/json, text/event-stream');
  assert.equal(init!.headers['mcp-session-id'], undefined);
  assert.equal(JSON.parse(init!.body).params.clientInfo.name, 'streamable-http-client');
  const get = after.find((s) => s.method === 'GET');
  assert.equal(get?.headers.accept, 'text/event-stream');
  for (const s of after) {
    assert.equal(s.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(s.headers['mcp-session-id'], SESSION, `${s.method} ${s.body}`);
    assert.equal(s.headers['mcp-protocol-version'], '2025-06-18');
  }
  // Stopping ends the session, as before.
  assert.ok(after.some((s) => s.method === 'DELETE'));
});

test('a refused token reads as the SDK wrote it: status and body', async () => {
  const seen: Seen[] = [];
  const { server, port } = await startServer(seen);
  const p = place('ide-http-');
  advertise(p, port, 'wrong-token');
  const c = client(p);
  try {
    assert.equal(await c.connect(), false);
    assert.match(c.attempts[0]?.error ?? '', /Streamable HTTP error: Error POSTing to endpoint: Unauthorized: bad token/);
  } finally {
    await c.stop();
    server.close();
    p.cleanup();
  }
});

test('nothing listening: the error names the refused connection (doctor advises on it)', async () => {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const p = place('ide-http-');
  advertise(p, port, TOKEN);
  const c = client(p);
  try {
    assert.equal(await c.connect(), false);
    assert.match(c.attempts[0]?.error ?? '', /ECONNREFUSED/);
  } finally {
    await c.stop();
    p.cleanup();
  }
});
