/** The bundled relay (`ide-companion connect`) started by a real MCP SDK client over stdio, as the CLI starts it (env reduced to the SDK's default). */
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { recordNotifications } from '@ide-companion/testkit';
import { RELAY_BUNDLE_PATH } from '../../src/connect/build/bundle.js';

export interface RelayClient {
  client: Client;
  transport: StdioClientTransport;
  /** The relay's process, to kill or watch. */
  child: ChildProcess;
  /** Every ide/* notification the relay passed on, in order. */
  notifications: Array<{ method: string; params: any }>;
  close: () => Promise<void>;
}

/** Starts the relay with `args` (`--socket`, `--map`, `--reconnect`...) and connects to it. */
export async function relayClient(args: string[]): Promise<RelayClient> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [RELAY_BUNDLE_PATH, ...args], stderr: 'pipe' });
  const client = new Client({ name: 'stdio-client', version: 'test' });
  const notifications = recordNotifications(client);
  await client.connect(transport);
  // The SDK keeps its child private; the tests kill it and wait for its exit.
  return { client, transport, child: (transport as any)._process as ChildProcess, notifications, close: () => client.close() };
}
