/**
 * A session's MCP transport, answering its POSTs on node:http itself. The SDK's
 * StreamableHTTPServerTransport goes through hono's adapter to web
 * Request/Response, which loads Node's fetch (undici), http2, tls and zlib:
 * ~8 MiB in every companion a CLI is connected to (docs/benchmarks.md).
 *
 * The checks and their refusals are the SDK transport's, word for word,
 * except where they break JSON-RPC 2.0 or MCP (batches, messages that are no
 * JSON-RPC, rpcConformance.ts; docs/divergences.md).
 * Replies to a POST go back as one JSON body (Streamable HTTP's JSON response
 * mode, which the SDK client reads like an SSE answer); everything else (the
 * companion's notifications) goes on the session's GET stream (eventStream.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';
import { loadSdk } from '../lazySdk.js';
import { RpcErrorCode, sendJsonRpcError, unsupportedVersion } from './jsonRpcError.js';
import { batchesAllowed, EMPTY_BATCH, faultReply, idOf, NOT_JSON_RPC, refuseEach, type RpcFault } from './rpcConformance.js';

export interface SessionTransportOptions {
  newSessionId: () => string;
  /** An initialize was accepted: the session has its id from now on. */
  onSessionInitialized: (sessionId: string) => void;
  /** A message tied to no request (a notification): the GET stream's. */
  toStream: (message: JSONRPCMessage) => void;
  /** An error to answer a request with instead of handing it to the SDK (rpcConformance.ts), or undefined. */
  vet?: (request: JSONRPCRequest) => RpcFault | undefined;
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
  private initializeId: string | number | undefined;
  /** The MCP version initialize settled on (batches depend on it). */
  private protocolVersion: string | undefined;

  constructor(private readonly options: SessionTransportOptions) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (isReply(message)) {
      if (message.id === this.initializeId && 'result' in message) {
        const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
        if (typeof version === 'string') this.protocolVersion = version;
      }
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

  /**
   * A POST on this session (or the initialize that opens it), its body
   * parsed. A batch is answered with an array, one answer per request in
   * order, where the negotiated version has batches (else each message gets
   * -32600); a message that is no JSON-RPC gets -32600, as does a request
   * reusing the id of one still in progress; what rpcConformance.ts answers
   * never reaches the SDK.
   */
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
    const batch = Array.isArray(body) ? (body as unknown[]) : undefined;
    if (batch?.length === 0) return refuse(400, EMPTY_BATCH.code, EMPTY_BATCH.message);
    if (batch && batch.length > MAX_BATCH_SIZE) {
      return refuse(400, RpcErrorCode.InvalidRequest, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    if (this.closed) return refuse(404, RpcErrorCode.ServerError, 'Session not found');
    const parsed = (batch ?? [body]).map((m) => JSONRPCMessageSchema.safeParse(m));
    const messages = parsed.flatMap((p) => (p.success ? [p.data] : []));
    if (!batch && messages.length === 0) return refuse(400, NOT_JSON_RPC.code, NOT_JSON_RPC.message);
    if (messages.some(isInitializeRequest)) {
      if (this.sessionId !== undefined) return refuse(400, RpcErrorCode.InvalidRequest, 'Invalid Request: Server already initialized');
      if (batch) return refuse(400, RpcErrorCode.InvalidRequest, 'Invalid Request: initialize must not be part of a JSON-RPC batch');
      this.sessionId = this.options.newSessionId();
      this.initializeId = (body as { id: string | number }).id;
      this.options.onSessionInitialized(this.sessionId);
    } else {
      const versionRefusal = unsupportedVersion(req, SUPPORTED_PROTOCOL_VERSIONS);
      if (versionRefusal) return refuse(400, RpcErrorCode.TransportError, versionRefusal);
    }
    const headers: Record<string, string> = this.sessionId === undefined ? {} : { 'mcp-session-id': this.sessionId };
    if (batch && !batchesAllowed(this.protocolVersion)) {
      const why = `Invalid Request: JSON-RPC batches are not part of MCP ${this.protocolVersion} (this session's version): send one message per request`;
      this.onerror?.(new Error(why));
      res.writeHead(400, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(refuseEach(batch, why)));
      return;
    }
    // Each message's answer, in order: an error given here, the SDK's reply to a request, or none (notifications, responses).
    const answers: Array<Promise<Reply | undefined> | JSONRPCMessage | undefined> = [];
    const handOn: JSONRPCMessage[] = [];
    parsed.forEach((p, i) => {
      if (!p.success) return answers.push(faultReply(idOf(batch?.[i]), NOT_JSON_RPC));
      const message = p.data;
      if (!isJSONRPCRequest(message)) {
        handOn.push(message);
        return answers.push(undefined);
      }
      const fault = this.waiting.has(message.id)
        ? { code: RpcErrorCode.InvalidRequest, message: `Invalid Request: id ${JSON.stringify(message.id)} is already used by a request in progress` }
        : this.options.vet?.(message);
      if (fault) return answers.push(faultReply(message.id, fault));
      answers.push(new Promise<Reply | undefined>((resolve) => this.waiting.set(message.id, resolve)));
      handOn.push(message);
    });
    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers } };
    for (const message of handOn) this.onmessage?.(message, extra);
    if (answers.every((a) => a === undefined)) {
      res.writeHead(202, headers).end();
      return;
    }
    const answered = await Promise.all(answers.filter((a) => a !== undefined));
    if (res.destroyed || res.writableEnded) return;
    // A session closed meanwhile (DELETE, expiry, stop) never answers: the request ends with it.
    if (answered.includes(undefined)) return sendJsonRpcError(res, 404, RpcErrorCode.ServerError, 'Session not found');
    res.writeHead(200, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(batch ? answered : answered[0]));
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
