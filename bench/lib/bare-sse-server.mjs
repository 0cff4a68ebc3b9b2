/**
 * The limit for "event → notification": a bare node:http server speaking just
 * enough of MCP's streamable HTTP for the SDK client to connect (initialize as
 * JSON, 202 for notifications, one GET SSE stream), that writes a notification
 * the moment `notify` is called: no session layer, no validation, no coalescing.
 * Same loopback, same client, same JSON: what is left is node and the client.
 */
import * as http from 'node:http';
import { randomUUID } from 'node:crypto';
import { ContextUpdateNotification } from '@ide-companion/protocol';

export async function startBareSseServer() {
  const streams = new Set();
  const sessionId = randomUUID();
  let initialParams = { workspaceState: { openFiles: [], isTrusted: true } };
  const frame = (method, params) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method, params })}\n\n`;

  const server = http.createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': sessionId });
      res.flushHeaders();
      streams.add(res);
      res.on('close', () => streams.delete(res));
      res.write(frame(ContextUpdateNotification.method, initialParams));
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let message;
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202, { 'mcp-session-id': sessionId }).end();
        return;
      }
      const result =
        message.method === 'initialize'
          ? { protocolVersion: message.params.protocolVersion, capabilities: {}, serverInfo: { name: 'bare', version: '0' } }
          : {};
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sessionId });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    token: 'bare',
    setInitial(params) {
      initialParams = params;
    },
    /** Writes `ide/contextUpdate` with `params` to every open stream, now. */
    notify(params) {
      const text = frame(ContextUpdateNotification.method, params);
      for (const res of streams) res.write(text);
    },
    async close() {
      for (const res of streams) res.end();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
