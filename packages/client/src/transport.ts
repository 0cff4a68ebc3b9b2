/**
 * The two ways to reach a companion, as the real CLI dials them: Streamable
 * HTTP to `http://HOST:PORT/mcp` with `Authorization: Bearer`, or a stdio
 * child process. Both give an MCP SDK transport (`createTransport`, in
 * mcpSession.ts with the rest of the SDK); nothing here knows the tools.
 */
import { MCP_ENDPOINT_PATH } from '@ide-companion/protocol';
import type { ConnectionTarget } from './discovery.js';

/** The client names the real CLI announces, so companions treat us the same. */
export const HTTP_CLIENT_NAME = 'streamable-http-client';
export const STDIO_CLIENT_NAME = 'stdio-client';

export function describeTarget(target: ConnectionTarget): string {
  return target.kind === 'http'
    ? `http://${target.host}:${target.port}${MCP_ENDPOINT_PATH} (${target.source})`
    : `stdio '${target.command}' (${target.source})`;
}
