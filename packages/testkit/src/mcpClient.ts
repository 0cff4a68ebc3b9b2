/** A real MCP SDK client, connected the way Gemini CLI connects, that records every ide/* notification. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as z from 'zod/mini';
import { COMPANION_NOTIFICATIONS } from '@ide-companion/protocol';

export interface RecordingClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Every ide/* notification received, in order. */
  notifications: Array<{ method: string; params: any }>;
  close: () => Promise<void>;
}

/** Connects to `127.0.0.1:port/mcp` with `Authorization: Bearer token` (clientInfo as the CLI sends it). */
export async function connectRecordingClient(target: { port: number; token: string }): Promise<RecordingClient> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${target.port}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${target.token}` } },
  });
  const client = new Client({ name: 'streamable-http-client', version: 'test' });
  const notifications = recordNotifications(client);
  await client.connect(transport);
  return { client, transport, notifications, close: () => client.close() };
}

/** Every ide/* notification `client` receives from now on, in order (set up before it connects). */
export function recordNotifications(client: Client): RecordingClient['notifications'] {
  const notifications: RecordingClient['notifications'] = [];
  for (const { method } of COMPANION_NOTIFICATIONS) {
    client.setNotificationHandler(z.object({ method: z.literal(method), params: z.any() }), (n) => {
      notifications.push({ method: n.method, params: n.params });
    });
  }
  return notifications;
}
