/**
 * An MCP transport over one accepted WebSocket (Claude Code's face): each
 * text message is one JSON-RPC message. What does not parse as JSON is
 * answered -32700, what is no JSON-RPC message (a batch included) -32600,
 * and both change nothing; the MCP lifecycle is kept (mcpLifecycle.ts) and
 * what the SDK answers wrongly is answered here (rpcConformance.ts). The
 * socket's size limit is set where it is accepted.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RawData, WebSocket } from 'ws';
import { EMPTY_BATCH, faultReply, idOf, NOT_JSON_RPC, refuseEach, type RpcFault } from '../http/rpcConformance.js';
import { loadSdk } from '../lazySdk.js';
import { McpLifecycle } from './mcpLifecycle.js';

export interface WebSocketTransportOptions {
  /** An error to answer a request with instead of handing it to the SDK (rpcConformance.ts), or undefined. */
  vet?: (request: JSONRPCRequest) => RpcFault | undefined;
}

const BATCH_REFUSED = 'Invalid Request: JSON-RPC batches are not accepted on this WebSocket; send one message per frame';

export class WebSocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  /** What arrived before start(): the CLI sends initialize as soon as the socket opens, while the session is still being made. */
  private early: Array<[RawData, boolean]> | undefined = [];
  private readonly lifecycle = new McpLifecycle();

  constructor(
    private readonly socket: WebSocket,
    readonly sessionId: string,
    private readonly options: WebSocketTransportOptions = {},
  ) {
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (this.early) this.early.push([data, isBinary]);
      else this.receive?.(data, isBinary);
    });
  }

  private receive: ((data: RawData, isBinary: boolean) => void) | undefined;

  async start(): Promise<void> {
    const { JSONRPCMessageSchema, isJSONRPCRequest } = await loadSdk();
    this.receive = (data: RawData, isBinary: boolean) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(isBinary ? '' : rawText(data));
      } catch {
        this.reply(faultReply(null, { code: -32700, message: 'Parse error: a message must be one JSON-RPC text frame' }));
        return;
      }
      if (Array.isArray(parsed)) {
        // Claude Code's transport sends one message per frame; MCP since 2025-06-18 has no batches (docs/protocol.md).
        this.reply(parsed.length === 0 ? faultReply(null, EMPTY_BATCH) : refuseEach(parsed, BATCH_REFUSED));
        return;
      }
      const message = JSONRPCMessageSchema.safeParse(parsed);
      if (!message.success) {
        this.reply(faultReply(idOf(parsed), NOT_JSON_RPC));
        return;
      }
      const admission = this.lifecycle.admit(message.data);
      if (admission === 'drop') return;
      const fault = admission !== 'pass' ? admission : isJSONRPCRequest(message.data) ? this.options.vet?.(message.data) : undefined;
      if (fault) this.reply(faultReply(idOf(message.data), fault));
      else this.onmessage?.(message.data);
    };
    const early = this.early ?? [];
    this.early = undefined;
    for (const [data, isBinary] of early) this.receive(data, isBinary);
    this.socket.on('close', () => this.finish());
    this.socket.on('error', (err) => this.onerror?.(err));
  }

  /** Whether the client's initialize has been answered: until then nothing of ours but that answer goes out. */
  get initialized(): boolean {
    return this.lifecycle.ready;
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.lifecycle.replied(message);
    return new Promise((resolve, reject) => {
      if (this.socket.readyState !== this.socket.OPEN) return reject(new Error('the WebSocket is closed'));
      this.socket.send(JSON.stringify(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  async close(): Promise<void> {
    this.socket.close(1000, 'companion closing');
    this.finish();
  }

  private reply(message: unknown): void {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}
