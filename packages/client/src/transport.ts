/**
 * The two ways to reach a companion, as the real CLI dials them: Streamable
 * HTTP to `http://HOST:PORT/mcp` with `Authorization: Bearer`, or a stdio
 * child process. Both give an MCP SDK transport; nothing here knows the tools.
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MCP_ENDPOINT_PATH } from '@ide-companion/protocol';
import type { ConnectionTarget } from './discovery.js';
import { HttpClientTransport } from './httpTransport.js';

/** The client names the real CLI announces, so companions treat us the same. */
export const HTTP_CLIENT_NAME = 'streamable-http-client';
export const STDIO_CLIENT_NAME = 'stdio-client';

export function describeTarget(target: ConnectionTarget): string {
  return target.kind === 'http'
    ? `http://${target.host}:${target.port}${MCP_ENDPOINT_PATH} (${target.source})`
    : `stdio '${target.command}' (${target.source})`;
}

export function createTransport(target: ConnectionTarget): Transport {
  if (target.kind === 'http') {
    // Our own Streamable HTTP client on node:http: global fetch would load undici, slower than the whole handshake.
    return new HttpClientTransport(new URL(`http://${target.host}:${target.port}${MCP_ENDPOINT_PATH}`), {
      headers: target.authToken ? { Authorization: `Bearer ${target.authToken}` } : {},
      // Our own reconnect re-reads discovery; the SDK's only retries the same stream.
      reconnectionOptions: { initialReconnectionDelay: 500, maxReconnectionDelay: 2000, reconnectionDelayGrowFactor: 2, maxRetries: 1 },
    });
  }
  return new StdioClientTransport({ command: target.command, args: target.args, stderr: 'ignore' });
}
