/**
 * MCP over stdio for `ide-companion mcp`, read with the one line reader every
 * stdio process shares (LineReader: at most MAX_MESSAGE_BYTES a line). The
 * SDK's StdioServerTransport caps its buffer at 10 MiB and, past it, closes
 * itself: the server then exited 0 on an 11 MiB request, without a word. Here
 * an oversized line is answered with a JSON-RPC error and logged, a line that
 * is not JSON-RPC is answered with a parse error, and the next line is read.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineReader, MAX_MESSAGE_BYTES, oversizeMessage } from '@ide-companion/protocol';
import { RpcErrorCode } from '@ide-companion/server/http/jsonRpcError';
import { faultReply, idOf, NOT_JSON_RPC } from '@ide-companion/server/http/rpcConformance';

export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private readonly lines: LineReader;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    /** One line per refused message; never its content. */
    private readonly log: (line: string) => void,
  ) {
    this.lines = new LineReader({
      maxBytes: MAX_MESSAGE_BYTES,
      onLine: (line) => this.receive(line),
      onOversize: (max) => {
        this.log(`refused a message from the agent: ${oversizeMessage(max)}`);
        void this.send(faultReply(null, { code: RpcErrorCode.InvalidRequest, message: `Invalid Request: ${oversizeMessage(max)}` }));
      },
    });
  }

  private readonly onData = (chunk: Buffer | string) => this.lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onError = (err: Error) => this.onerror?.(err);

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onError);
    this.onclose?.();
  }

  private receive(line: Buffer): void {
    const text = line.toString('utf8');
    if (text.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      this.log(`refused a line from the agent: not JSON (${(err as Error).message.slice(0, 200)})`);
      void this.send(faultReply(null, { code: RpcErrorCode.ParseError, message: 'Parse error: not JSON' }));
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      void this.send(faultReply(idOf(json), NOT_JSON_RPC));
      return;
    }
    this.onmessage?.(parsed.data);
  }
}
