/** HTTP error answers in the JSON-RPC error shape MCP clients expect. */
import type { ServerResponse } from 'node:http';

/** JSON-RPC error codes used in HTTP-level refusals. */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  /** Used by the MCP SDK for unknown sessions and auth failures. */
  ServerError: -32001,
  RequestTooLarge: -32002,
  TooManySessions: -32003,
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
