/**
 * A WebSocket face's text frames written whole to the socket (textFrames.ts):
 * a real `ws` client reads each as the message sent, at every length
 * encoding's edge, multibyte text included, in order beside `ws`'s own sends
 * on the same connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { LOOPBACK_HOST } from '@ide-companion/protocol';
import { adoptSocket, sendText } from '../src/faces/textFrames.js';

test('a real ws client reads every frame sent directly, in order with ws.send on the same connection', async (t) => {
  const server = http.createServer();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const accepted = new Promise<WebSocket>((resolve) => {
    server.on('upgrade', (req, socket, head) =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        adoptSocket(ws, socket);
        resolve(ws);
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK_HOST, resolve));
  const port = (server.address() as { port: number }).port;
  // Its default asks for compression; the server declines it, as ours do.
  const client = new WebSocket(`ws://${LOOPBACK_HOST}:${port}`);
  const received: string[] = [];
  const texts = ['', 'a', 'é€😀', 'y'.repeat(125), 'y'.repeat(126), 'z'.repeat(65_535), 'z'.repeat(65_536), '€'.repeat(30_000)];
  const all = new Promise<void>((resolve, reject) => {
    client.on('message', (data, isBinary) => {
      if (isBinary) reject(new Error('a binary frame'));
      received.push(String(data));
      if (received.length === texts.length * 2) resolve();
    });
    client.on('error', reject);
    client.once('close', (code) => reject(new Error(`closed ${code}`)));
  });
  const ws = await accepted;
  t.after(async () => {
    client.terminate();
    ws.terminate();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  for (const text of texts) {
    sendText(ws, text);
    ws.send(`ws ${text.length}`);
  }
  await all;
  assert.deepEqual(
    received,
    texts.flatMap((text) => [text, `ws ${text.length}`]),
  );
});
