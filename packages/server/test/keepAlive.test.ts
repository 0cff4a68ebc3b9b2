/**
 * The faces' keep-alive (faces/keepAlive.ts) over a real `ws` server: a
 * client that answers pings stays; one that never does is ended at the
 * second tick and its face told once; the timer stops with the last socket.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket, WebSocketServer } from 'ws';
import { waitFor } from '@ide-companion/testkit';
import { KeepAlive } from '../src/faces/keepAlive.js';

test('a silent WebSocket is ended and its face told once; one that answers pings stays; the timer stops with the last', async (t) => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  t.after(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  const keepAlive = new KeepAlive(40);
  t.after(() => keepAlive.stop());
  const dead: string[] = [];
  wss.on('connection', (ws, req) => keepAlive.watch(ws, () => dead.push(req.url ?? '')));
  const url = `ws://127.0.0.1:${(wss.address() as { port: number }).port}`;
  const answering = new WebSocket(`${url}/answering`);
  const silent = new WebSocket(`${url}/silent`, { autoPong: false });
  t.after(() => answering.terminate());
  await Promise.all([answering, silent].map((ws) => new Promise((resolve) => ws.once('open', resolve))));
  const silentClosed = new Promise((resolve) => silent.once('close', resolve));

  await silentClosed;
  assert.deepEqual(dead, ['/silent']);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(answering.readyState, WebSocket.OPEN, 'a client that answers pings stays');
  assert.deepEqual(dead, ['/silent'], 'told once');

  const [serverSide] = wss.clients;
  keepAlive.forget(serverSide!);
  answering.close();
  await waitFor(() => wss.clients.size === 0, 'the last socket gone');
  assert.equal((keepAlive as unknown as { timer: unknown }).timer, undefined, 'the timer stops with the last socket');
});
