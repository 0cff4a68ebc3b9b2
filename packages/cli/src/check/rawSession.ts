/**
 * An MCP session opened by hand (initialize + initialized), for probes that
 * need a session id but must not disturb the SDK client's own session.
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

export const POST_ACCEPT = 'application/json, text/event-stream';

export interface RawSession {
  id: string;
  headers(extra?: Record<string, string>): Record<string, string>;
  /** DELETE with the token; never throws. */
  close(): Promise<void>;
}

export async function openRawSession(port: number, token: string, timeoutMs: number): Promise<RawSession> {
  const base = { Authorization: `Bearer ${token}`, Accept: POST_ACCEPT, 'Content-Type': 'application/json' };
  const init = await rawRequest({ method: 'POST', port, headers: base, body: initializeBody(), timeoutMs });
  const id = init.headers['mcp-session-id'];
  if (init.status !== 200 || typeof id !== 'string') {
    throw new Error(`initialize answered HTTP ${init.status}${typeof id === 'string' ? '' : ' without an Mcp-Session-Id'}`);
  }
  const headers = (extra: Record<string, string> = {}) => ({
    ...base,
    'Mcp-Session-Id': id,
    'Mcp-Protocol-Version': CLI_PROTOCOL_VERSION,
    ...extra,
  });
  await rawRequest({ method: 'POST', port, headers: headers(), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), timeoutMs });
  return {
    id,
    headers,
    close: async () => {
      await rawRequest({ method: 'DELETE', port, headers: headers(), timeoutMs }).catch(() => undefined);
    },
  };
}

/** A session a probe created by accident (an attack that worked): close it again. */
export async function closeIfSessionCreated(res: RawResponse, port: number, token: string, timeoutMs: number): Promise<void> {
  const id = res.headers['mcp-session-id'];
  if (res.status >= 200 && res.status < 300 && typeof id === 'string') {
    await rawRequest({
      method: 'DELETE',
      port,
      headers: { Authorization: `Bearer ${token}`, 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': CLI_PROTOCOL_VERSION },
      timeoutMs,
    }).catch(() => undefined);
  }
}
