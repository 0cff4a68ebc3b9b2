/** Shared by the server tests: a companion in a private tmpdir, and real MCP SDK clients connected to it over loopback. */
import * as http from 'node:http';
import { connectRecordingClient, type RecordingClient } from '@ide-companion/testkit';
import type { Companion } from '../src/index.js';
import type { CodexFaceState } from '../src/faces/codexEntry.js';

/** A started companion for `ws` in a private temp dir, with a RecordingEditor unless told otherwise. */
export { RecordingEditor, startTestCompanion as startCompanion, type TestCompanion as Harness } from '../src/testing.js';

export type ConnectedClient = RecordingClient;

/** A real MCP SDK client over HTTP with the bearer token, recording ide/* notifications. */
export function connectClient(companion: Companion, token = companion.authToken): Promise<ConnectedClient> {
  return connectRecordingClient({ port: companion.port, token });
}

/**
 * A raw HTTP request to the companion (its port or its Unix socket), for the
 * hostile-input tests. node:http,
 * not fetch: fetch silently drops a Host header set by the caller.
 */
export function rawRequest(
  to: number | { socketPath: string },
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string },
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const target = typeof to === 'number' ? { host: '127.0.0.1', port: to } : { socketPath: to.socketPath };
  return new Promise((resolve, reject) => {
    const req = http.request(
      { ...target, path: init.path ?? '/mcp', method: init.method ?? 'POST', headers: init.headers, setHost: !init.headers?.['Host'] },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    // A GET that opens an SSE stream would never end: the head is all a test needs.
    req.on('response', (res) => {
      if (res.headers['content-type']?.includes('text/event-stream')) {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers, text: '', json: undefined });
        req.destroy();
      }
    });
    req.end(init.body);
  });
}

export const INIT_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

export function mcpHeaders(token: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    Authorization: `Bearer ${token}`,
    Host: `127.0.0.1:${port}`,
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...extra,
  };
}

/** Where a companion's Codex CLI face is (Companion.faceState); undefined when Codex CLI was not asked for. */
export function codexState(companion: Companion): CodexFaceState | undefined {
  return companion.faceState('codex') as CodexFaceState | undefined;
}
