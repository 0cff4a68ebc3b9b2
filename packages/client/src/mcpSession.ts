/**
 * The MCP SDK's side of a connection, imported only when one opens: the SDK
 * client, its schemas (classic zod) and Ajv are most of what a command would
 * load, and `status`, `list` or `doctor` with no companion to reach need none
 * of it (start time: docs/benchmarks.md).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ListToolsResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { MCP_ENDPOINT_PATH } from '@ide-companion/protocol';
import type { ConnectionTarget } from './discovery.js';
import { HttpClientTransport } from './httpTransport.js';
import { HTTP_CLIENT_NAME, STDIO_CLIENT_NAME } from './transport.js';
import { VERSION } from './version.js';

export { Client, HttpClientTransport, type CallToolResult, type Transport };

/**
 * The SDK's JSON Schema validator (Ajv), built on first use: the Client builds one
 * per instance by default, a few milliseconds at every start, and only needs it
 * for tool output schemas, which our plain requests never ask it to check.
 */
class LazyJsonSchemaValidator implements jsonSchemaValidator {
  private ajv: AjvJsonSchemaValidator | undefined;
  getValidator<T>(schema: Parameters<jsonSchemaValidator['getValidator']>[0]) {
    this.ajv ??= new AjvJsonSchemaValidator();
    return this.ajv.getValidator<T>(schema);
  }
}

export function createClient(target: ConnectionTarget): Client {
  return new Client(
    { name: target.kind === 'http' ? HTTP_CLIENT_NAME : STDIO_CLIENT_NAME, version: VERSION },
    { jsonSchemaValidator: new LazyJsonSchemaValidator() },
  );
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

/** tools/list as a plain request, as the CLI makes it: listTools() would also compile output validators. */
export async function listToolNames(client: Client): Promise<string[]> {
  return (await client.request({ method: 'tools/list', params: {} }, ListToolsResultSchema)).tools.map((t) => t.name);
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallToolResult> {
  return (await client.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema, { timeout: timeoutMs })) as CallToolResult;
}
