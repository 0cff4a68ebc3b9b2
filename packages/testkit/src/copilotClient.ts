/**
 * Copilot CLI's side of its IDE protocol (1.0.102), for tests of the Copilot
 * face: the MCP SDK's Streamable HTTP client at `http://localhost/mcp`, its
 * fetch over the lock file's Unix socket sending the lock file's headers
 * (and the CLI's own X-Copilot-*), as the CLI's cli-main.js does.
 */
import * as http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** A fetch whose requests go to `socketPath` (the URL's host is only the Host header). */
export function unixSocketFetch(socketPath: string, extraHeaders: Record<string, string>): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers: Record<string, string> = { ...extraHeaders };
    new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
    return new Promise<Response>((resolve, reject) => {
      const req = http.request({ socketPath, path: url.pathname + url.search, method: init?.method ?? 'GET', headers }, (res) => {
        const responseHeaders = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders.set(k, Array.isArray(v) ? v.join(', ') : v);
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            res.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
            res.once('end', () => controller.close());
            res.once('error', (err) => controller.error(err));
          },
          cancel() {
            res.destroy();
          },
        });
        const nullBody = res.statusCode === 202 || res.statusCode === 204;
        resolve(new Response(nullBody ? null : body, { status: res.statusCode ?? 200, headers: responseHeaders }));
      });
      req.once('error', reject);
      init?.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
      if (typeof init?.body === 'string') req.write(init.body);
      req.end();
    });
  }) as typeof fetch;
}

export interface CopilotTestClient {
  client: Client;
  /** Notifications heard (selection_changed, add_file_reference, add_selection). */
  notifications: Array<{ method: string; params: any }>;
  close(): Promise<void>;
}

/** Connects as Copilot CLI does, with the lock file's socket and headers. */
export async function connectCopilotClient(lock: { socketPath: string; headers: Record<string, string> }): Promise<CopilotTestClient> {
  const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
    fetch: unixSocketFetch(lock.socketPath, { ...lock.headers, 'X-Copilot-Session-Id': 'test-session', 'X-Copilot-PID': String(process.pid) }),
  });
  const client = new Client({ name: 'copilot-cli', version: '1.0.102' });
  const notifications: CopilotTestClient['notifications'] = [];
  client.fallbackNotificationHandler = async (n) => {
    notifications.push({ method: n.method, params: n.params });
  };
  await client.connect(transport);
  return { client, notifications, close: () => client.close() };
}
