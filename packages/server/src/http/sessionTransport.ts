/**
 * A session's MCP transport, answering its POSTs on node:http itself. The SDK's
 * StreamableHTTPServerTransport goes through hono's adapter to web
 * Request/Response, which loads Node's fetch (undici), http2, tls and zlib:
 * ~8 MiB in every companion a CLI is connected to (docs/benchmarks.md).
 *
 * The checks and their refusals are the SDK transport's, word for word.
 * Replies to a POST go back as one JSON body (Streamable HTTP's JSON response
 * mode, which the SDK client reads like an SSE answer); everything else (the
 * companion's notifications) goes on the session's GET stream (eventStream.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { loadSdk } from '../lazySdk.js';
import { RpcErrorCode, sendJsonRpcError, unsupportedVersion } from './jsonRpcError.js';

export interface SessionTransportOptions {
  newSessionId: () => string;
  /** An initialize was accepted: the session has its id from now on. */
  onSessionInitialized: (sessionId: string) => void;
  /** A message tied to no request (a notification): the GET stream's. */
  toStream: (message: JSONRPCMessage) => void;
}

type Reply = JSONRPCMessage & { id: string | number };

function isReply(message: JSONRPCMessage): message is Reply {
  return 'id' in message && ('result' in message || 'error' in message);
}

export class SessionTransport implements Transport {
  sessionId: string | undefined;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Requests of open POSTs, by id: the reply each waits for (undefined: the session closed first). */
  private readonly waiting = new Map<string | number, (reply: Reply | undefined) => void>();
  private closed = false;

  constructor(private readonly options: SessionTransportOptions) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (isReply(message)) {
      const reply = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      reply?.(message);
      return;
    }
    this.options.toStream(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const settle of waiting) settle(undefined);
    this.onclose?.();
  }

  /** A POST on this session (or the initialize that opens it), its body parsed. */
  async handlePost(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const refuse = (status: number, code: number, message: string) => {
      this.onerror?.(new Error(message));
      sendJsonRpcError(res, status, code, message);
    };
    const { JSONRPCMessageSchema, isInitializeRequest, isJSONRPCRequest, isJsonContentType, MAX_BATCH_SIZE, SUPPORTED_PROTOCOL_VERSIONS } = await loadSdk();
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return refuse(406, RpcErrorCode.TransportError, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      return refuse(415, RpcErrorCode.TransportError, 'Unsupported Media Type: Content-Type must be application/json');
    }
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
      return refuse(400, RpcErrorCode.InvalidRequest, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    let messages: JSONRPCMessage[];
    try {
      messages = (Array.isArray(body) ? body : [body]).map((m) => JSONRPCMessageSchema.parse(m));
    } catch {
      return refuse(400, RpcErrorCode.ParseError, 'Parse error: Invalid JSON-RPC message');
    }
    if (this.closed) return refuse(404, RpcErrorCode.ServerError, 'Session not found');
    if (messages.some(isInitializeRequest)) {
      if (this.sessionId !== undefined) return refuse(400, RpcErrorCode.InvalidRequest, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return refuse(400, RpcErrorCode.InvalidRequest, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.options.newSessionId();
      this.options.onSessionInitialized(this.sessionId);
    } else {
      const versionRefusal = unsupportedVersion(req, SUPPORTED_PROTOCOL_VERSIONS);
      if (versionRefusal) return refuse(400, RpcErrorCode.TransportError, versionRefusal);
    }
    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers } };
    const requests = messages.filter(isJSONRPCRequest);
    const replies = requests.map((r) => new Promise<Reply | undefined>((resolve) => this.waiting.set(r.id, resolve)));
    for (const message of messages) this.onmessage?.(message, extra);
    const headers: Record<string, string> = this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId };
    if (requests.length === 0) {
      res.writeHead(202, headers).end();
      return;
    }
    const answered = await Promise.all(replies);
    if (res.destroyed || res.writableEnded) return;
    // A session closed meanwhile (DELETE, expiry, stop) never answers: the request ends with it.
    if (answered.includes(undefined)) return sendJsonRpcError(res, 404, RpcErrorCode.ServerError, 'Session not found');
    res.writeHead(200, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(answered.length === 1 ? answered[0] : answered));
  }

  /** DELETE: the CLI ends its session. */
  async handleDelete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const versionRefusal = unsupportedVersion(req, (await loadSdk()).SUPPORTED_PROTOCOL_VERSIONS);
    if (versionRefusal) {
      sendJsonRpcError(res, 400, RpcErrorCode.TransportError, versionRefusal);
      return;
    }
    res.writeHead(200).end();
    await this.close();
  }
}
