/** The GET stream's writer: a large content goes out in pieces, and reads back byte for byte. */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { EventStream, messageEvent } from '../src/http/eventStream.js';

/** A real loopback server whose one response is an EventStream cut in `pieceUnits` (past as many units); returns what a client read. */
async function roundTrip(messages: unknown[], pieceUnits: number): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    const stream = new EventStream(res, 60_000, pieceUnits, pieceUnits);
    // A string stands for a broadcast's event, encoded once for every stream.
    for (const m of messages)
      if (typeof m === 'string') stream.sendEncoded(m);
      else stream.send(m as never);
    stream.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<string>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        })
        .on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

function dataOf(text: string): unknown[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('event: message\ndata: '))
    .map((frame) => JSON.parse(frame.slice('event: message\ndata: '.length)));
}

test('a content longer than a piece reads back exactly: pairs, escapes, CRLF, no final newline', async () => {
  const content = '🚀a"b\\c\td\r\n€é🚀'.repeat(50) + '"content":"" 🚀';
  const message = { jsonrpc: '2.0', method: 'ide/diffAccepted', params: { filePath: '/w/"content":"".txt', content } };
  // Odd piece sizes put a piece boundary inside surrogate pairs and escapes.
  for (const pieceUnits of [1, 2, 3, 7, 64]) {
    const [back] = dataOf(await roundTrip([message], pieceUnits));
    assert.deepEqual(back, message, `piece of ${pieceUnits}`);
  }
});

test('small messages and messages without content go out as one JSON each', async () => {
  const messages = [
    { jsonrpc: '2.0', method: 'ide/contextUpdate', params: { workspaceState: { openFiles: [] } } },
    { jsonrpc: '2.0', method: 'ide/diffAccepted', params: { filePath: '/w/a.txt', content: 'short' } },
  ];
  assert.deepEqual(dataOf(await roundTrip(messages, 1024)), messages);
});

test('a large content goes out at the socket pace; what is sent meanwhile follows it, in order, and end waits for all', async () => {
  // Several MiB with pieces of 64 Ki units: the socket refuses more long before the end, so the writer waits for drain.
  const big = (n: number) => 'é€🚀 "q" \\ \t\n'.repeat(n);
  const messages = [
    { jsonrpc: '2.0', method: 'ide/diffAccepted', params: { filePath: '/w/a.txt', content: big(300_000) } },
    { jsonrpc: '2.0', method: 'ide/contextUpdate', params: { workspaceState: { openFiles: [] } } },
    { jsonrpc: '2.0', method: 'ide/diffAccepted', params: { filePath: '/w/b.txt', content: big(200_000) } },
    { jsonrpc: '2.0', method: 'ide/diffRejected', params: { filePath: '/w/c.txt' } },
  ];
  assert.deepEqual(dataOf(await roundTrip(messages, 1 << 16)), messages);
});

test('a broadcast event sent during a large content waits behind it too, in order', async () => {
  const update = { jsonrpc: '2.0', method: 'ide/contextUpdate', params: { workspaceState: { openFiles: [] } } } as const;
  const accepted = { jsonrpc: '2.0', method: 'ide/diffAccepted', params: { filePath: '/w/a.txt', content: 'x"é'.repeat(1_500_000) } };
  const rejected = { jsonrpc: '2.0', method: 'ide/diffRejected', params: { filePath: '/w/b.txt' } };
  assert.deepEqual(dataOf(await roundTrip([accepted, messageEvent(update as never), rejected], 1 << 16)), [accepted, update, rejected]);
});
