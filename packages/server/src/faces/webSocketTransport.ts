/**
 * An MCP transport over one accepted WebSocket (Claude Code's face): each
 * text message is one JSON-RPC message. What does not parse as JSON-RPC is
 * answered with a parse error and changes nothing; the socket's size limit
 * is set where it is accepted.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { RawData, WebSocket } from 'ws';
import { loadSdk } from '../lazySdk.js';

export class WebSocketTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;
  /** What arrived before start(): the CLI sends initialize as soon as the socket opens, while the session is still being made. */
  private early: Array<[RawData, boolean]> | undefined = [];

  constructor(
    private readonly socket: WebSocket,
    readonly sessionId: string,
  ) {
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (this.early) this.early.push([data, isBinary]);
      else this.receive?.(data, isBinary);
    });
  }

  private receive: ((data: RawData, isBinary: boolean) => void) | undefined;

  async start(): Promise<void> {
    const { JSONRPCMessageSchema } = await loadSdk();
    this.receive = (data: RawData, isBinary: boolean) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(isBinary ? '' : rawText(data));
      } catch {
        this.reply({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: a message must be one JSON-RPC text frame' } });
        return;
      }
      const message = JSONRPCMessageSchema.safeParse(parsed);
      if (!message.success) {
        const id = typeof parsed === 'object' && parsed !== null && 'id' in parsed ? (parsed as { id: unknown }).id : null;
        this.reply({
          jsonrpc: '2.0',
          id: typeof id === 'string' || typeof id === 'number' ? id : null,
          error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' },
        });
        return;
      }
      this.onmessage?.(message.data);
    };
    const early = this.early ?? [];
    this.early = undefined;
    for (const [data, isBinary] of early) this.receive(data, isBinary);
    this.socket.on('close', () => this.finish());
    this.socket.on('error', (err) => this.onerror?.(err));
  }

  send(message: JSONRPCMessage): Promise<void> {
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
