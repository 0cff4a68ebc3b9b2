/**
 * What every editor end's socket test asserts (issue 18): the companion named
 * by a discovery file also serves MCP on its Unix socket, privately, with the
 * same token. Raw HTTP on node:http (the SDK's client transport cannot dial a
 * socket): initialize, initialized, tools/list, DELETE.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { parseDiscoveryFile } from '@ide-companion/protocol';

interface Answer {
  status: number;
  sessionId: string | undefined;
  json: any;
}

function post(socketPath: string, token: string, body: unknown, sessionId?: string, method = 'POST'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        path: '/mcp',
        method,
        headers: {
          Host: 'localhost',
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
        },
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          // A reply comes as JSON, or as one SSE event from companions that stream it.
          const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
          let json: any;
          try {
            json = data ? JSON.parse(data) : undefined;
          } catch {
            json = undefined;
          }
          const id = res.headers['mcp-session-id'];
          resolve({ status: res.statusCode ?? 0, sessionId: Array.isArray(id) ? id[0] : id, json });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer on ${socketPath} within 10 s`)));
    req.on('error', reject);
    req.end(method === 'DELETE' ? undefined : JSON.stringify(body));
  });
}

/**
 * Asserts the companion behind `discoveryFile` serves its socket: a private
 * folder (0700), the socket and the token file 0600, the token the file's,
 * a wrong token refused, and an MCP session that lists the tools. Returns the
 * tool names.
 */
export async function assertServesSocket(discoveryFile: string): Promise<string[]> {
  const file = parseDiscoveryFile(fs.readFileSync(discoveryFile, 'utf8'));
  const socketPath = file.socketPath;
  assert.ok(socketPath, `${discoveryFile} names no socketPath`);
  const dir = path.dirname(socketPath);
  assert.equal(fs.lstatSync(dir).mode & 0o777, 0o700, `${dir} is private`);
  const st = fs.lstatSync(socketPath);
  assert.ok(st.isSocket(), `${socketPath} is a socket`);
  assert.equal(st.mode & 0o777, 0o600, `${socketPath} is 0600`);
  assert.equal(fs.readFileSync(path.join(dir, 'token'), 'utf8'), file.authToken, 'the token file holds the companion token');

  const refused = await post(socketPath, 'wrong', { jsonrpc: '2.0', id: 0, method: 'ping' });
  assert.equal(refused.status, 401, 'a wrong token is refused on the socket');

  const init = await post(socketPath, file.authToken, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'socket-probe', version: '0' } },
  });
  assert.equal(init.status, 200, `initialize over ${socketPath}`);
  assert.ok(init.sessionId, 'a session id');
  const initialized = await post(socketPath, file.authToken, { jsonrpc: '2.0', method: 'notifications/initialized' }, init.sessionId);
  assert.equal(initialized.status, 202);
  const list = await post(socketPath, file.authToken, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, init.sessionId);
  assert.equal(list.status, 200);
  const tools: string[] = list.json.result.tools.map((t: { name: string }) => t.name);
  const closed = await post(socketPath, file.authToken, undefined, init.sessionId, 'DELETE');
  assert.equal(closed.status, 200);
  return tools;
}
