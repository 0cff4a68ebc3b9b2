/** HTTP error answers in the JSON-RPC error shape MCP clients expect. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The JSON-RPC error codes we answer with (HTTP-level refusals, rpcConformance.ts, mcpLifecycle.ts). */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  InvalidParams: -32602,
  /** Used by the MCP SDK for unknown sessions and auth failures. */
  ServerError: -32001,
  RequestTooLarge: -32002,
  TooManySessions: -32003,
  /** The MCP SDK's code for transport-level refusals (406, 409, 415, 400 on a version). */
  TransportError: -32000,
} as const;

export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/**
 * The MCP SDK transport's refusal of a request whose MCP-Protocol-Version it
 * does not support, or undefined (no header is fine: the SDK assumes its default).
 */
export function unsupportedVersion(req: IncomingMessage, versions: readonly string[]): string | undefined {
  const version = req.headers['mcp-protocol-version'];
  if (typeof version !== 'string' || versions.includes(version)) return undefined;
  return `Bad Request: Unsupported protocol version: ${version} (supported versions: ${versions.join(', ')})`;
}
