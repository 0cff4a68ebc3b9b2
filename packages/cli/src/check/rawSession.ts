/**
 * An MCP session opened by hand (initialize + initialized), for probes that
 * need a session id but must not disturb the SDK client's own session, and
 * the headers such hand-made requests carry.
 */
import { rawRequest, type RawResponse } from './rawHttp.js';

export const CLI_PROTOCOL_VERSION = '2025-06-18';

export function initializeBody(clientName = 'ide-companion-check'): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: CLI_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: clientName, version: '0' } },
  });
}

/** A JSON-RPC POST as an MCP client sends it; with the bearer token when one is given. */
export function postHeaders(token?: string): Record<string, string> {
  return {
    ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
    Accept: 'application/json, text/event-stream',
    'Content-Type': 'application/json',
  };
}

/** The headers naming session `id`. */
export function sessionHeaders(id: string): Record<string, string> {
  return { 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': CLI_PROTOCOL_VERSION };
}

export interface RawSession {
  id: string;
  headers(extra?: Record<string, string>): Record<string, string>;
  /** DELETE with the token; never throws. */
  close(): Promise<void>;
}

export async function openRawSession(port: number, token: string, timeoutMs: number): Promise<RawSession> {
  const init = await rawRequest({ method: 'POST', port, headers: postHeaders(token), body: initializeBody(), timeoutMs });
  const id = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof id !== 'string') {
    throw new Error(`initialize answered HTTP ${init.status}${typeof id === 'string' ? '' : ' without an Mcp-Session-Id'}`);
  }
  const headers = (extra: Record<string, string> = {}) => ({ ...postHeaders(token), ...sessionHeaders(id), ...extra });
  await rawRequest({ method: 'POST', port, headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), timeoutMs });
  return { id, headers, close: () => deleteSession(port, token, id, timeoutMs) };
}

/** A session a probe created by accident (an attack that worked): close it again. */
export async function closeIfSessionCreated(res: RawResponse, port: number, token: string, timeoutMs: number): Promise<void> {
  const id = res.headers['mcp-session-id'];
  if (res.status >= 200 && res.status < 300 && typeof id === 'string') await deleteSession(port, token, id, timeoutMs);
}

/** DELETE of session `id` with the token; never throws. */
async function deleteSession(port: number, token: string, id: string, timeoutMs: number): Promise<void> {
  await rawRequest({ method: 'DELETE', port, headers: { Authorization: `Bearer ${token}`, ...sessionHeaders(id) }, timeoutMs }).catch(() => undefined);
}
