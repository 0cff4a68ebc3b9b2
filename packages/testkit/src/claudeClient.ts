/**
 * Claude Code's side of its IDE protocol, for tests of the Claude face: a
 * WebSocket to the companion's port (subprotocol `mcp`, the token in
 * `x-claude-code-ide-authorization`), JSON-RPC requests, and the
 * notifications the companion sends (selection_changed, at_mentioned). The
 * real CLI is driven in the agent tests; this is what the server's own tests
 * use to reach every branch (refusals, blocking openDiff, malformed frames).
 */
import WebSocket from 'ws';
import { CLAUDE_NOTIFICATION } from '@ide-companion/protocol';

export interface ClaudeTestClient {
  /** Sends a request and resolves with its `result` (rejects with its `error`: an Error with its `code`). */
  request(method: string, params?: unknown): Promise<any>;
  /** A tool call's result: `{content, isError?}`. */
  callTool(name: string, args?: Record<string, unknown>): Promise<{ content: Array<{ type: string; text: string }>; isError?: boolean }>;
  /** Sends raw text as one frame. */
  sendRaw(text: string): void;
  /** Notifications received so far, and every message that was no answer to a request of ours. */
  notifications: Array<{ method: string; params: any }>;
  unanswered: any[];
  socket: WebSocket;
  close(): Promise<void>;
}

export interface ClaudeConnectOptions {
  port: number;
  token?: string;
  /** Extra upgrade headers (Origin, Host) for the refusal tests. */
  headers?: Record<string, string>;
  /** Default `mcp`; null asks for none. */
  protocol?: string | null;
  /** Skip initialize (for refusal tests). */
  initialize?: boolean;
  /** The request path; default `/`, where Claude Code dials (`ws://127.0.0.1:PORT`). */
  path?: string;
  /** initialize's clientInfo.name; default `claude-code` (opencode sends `opencode`). */
  clientName?: string;
}

/** Connects and, unless told not to, initializes as the CLI does (initialize, initialized, ide_connected). */
export async function connectClaudeClient(options: ClaudeConnectOptions): Promise<ClaudeTestClient> {
  const headers: Record<string, string> = { ...(options.token !== undefined && { 'x-claude-code-ide-authorization': options.token }), ...options.headers };
  const protocol = options.protocol === undefined ? 'mcp' : options.protocol;
  const socket = new WebSocket(`ws://127.0.0.1:${options.port}${options.path ?? ''}`, protocol === null ? [] : [protocol], { headers });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_req, res) => reject(new Error(`refused: HTTP ${res.statusCode}`)));
    socket.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  const client: ClaudeTestClient = {
    notifications: [],
    unanswered: [],
    socket,
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) }));
      });
    },
    callTool(name, args = {}) {
      return client.request('tools/call', { name, arguments: args });
    },
    sendRaw(text) {
      socket.send(text);
    },
    close() {
      return new Promise((resolve) => {
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once('close', () => resolve());
        socket.close();
      });
    },
  };
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as {
      id?: number;
      method?: string;
      params?: unknown;
      result?: unknown;
      error?: { code: number; message: string };
    };
    const waiter = typeof message.id === 'number' ? pending.get(message.id) : undefined;
    if (waiter && message.method === undefined) {
      pending.delete(message.id!);
      if (message.error) waiter.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else waiter.resolve(message.result);
    } else if (message.method !== undefined && message.id === undefined) {
      client.notifications.push({ method: message.method, params: message.params });
    } else {
      client.unanswered.push(message);
    }
  });
  if (options.initialize ?? true) {
    await client.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: options.clientName ?? 'claude-code', version: 'test' },
    });
    socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    socket.send(JSON.stringify({ jsonrpc: '2.0', method: CLAUDE_NOTIFICATION.ideConnected, params: { pid: process.pid } }));
  }
  return client;
}
