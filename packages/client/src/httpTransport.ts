/**
 * MCP Streamable HTTP, client side, on node:http: what the SDK's
 * StreamableHTTPClientTransport does for a companion (POST each message, JSON
 * or SSE answers, the session id and protocol version headers, the GET stream
 * opened after `notifications/initialized` and resumed after a drop, DELETE to
 * end the session), without global fetch. Node loads its fetch (undici) on the
 * first use of fetch or Headers, which costs tens of milliseconds in a fresh
 * process: more than the whole handshake with a local companion, and paid by
 * every `status`, `context` and `mcp`.
 *
 * Errors read as the SDK's (`Streamable HTTP error: Error POSTing to endpoint: ...`),
 * except that network failures keep their cause (`connect ECONNREFUSED ...`)
 * where fetch says `fetch failed`. Redirects are not followed (a companion has
 * no reason to send one).
 */
import * as http from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_MESSAGE_BYTES, oversizeMessage } from '@ide-companion/protocol';

export interface HttpReconnectionOptions {
  initialReconnectionDelay: number;
  maxReconnectionDelay: number;
  reconnectionDelayGrowFactor: number;
  maxRetries: number;
}

export interface HttpClientTransportOptions {
  /** Sent with every request (e.g. Authorization). */
  headers?: Record<string, string>;
  /** How the GET stream is resumed after a drop (the SDK's option of the same name). */
  reconnectionOptions?: HttpReconnectionOptions;
  /** A Unix socket to dial instead of the URL's host and port (the URL's host is still the Host header). */
  socketPath?: string;
  /**
   * Offered each incoming message's JSON text before it is parsed; returning
   * true takes it (a relay that need not read it writes it on as it came), and
   * the transport neither parses nor delivers it.
   */
  passThrough?: (text: string) => boolean;
  /**
   * Asked right before each new connection is dialled (not for one kept alive): an error refuses the dial, and
   * the request fails with it. The relay checks its socket there (shared/privateSocket.ts), so the GET stream's
   * and each reconnect's dial are checked as the first one was.
   */
  beforeDial?: () => Error | undefined;
}

/** Same message shape as the SDK's StreamableHTTPError. */
export class HttpTransportError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`Streamable HTTP error: ${message}`);
  }
}

const DEFAULT_RECONNECTION: HttpReconnectionOptions = {
  initialReconnectionDelay: 1000,
  maxReconnectionDelay: 30000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 2,
};

function isRequest(m: JSONRPCMessage): boolean {
  return 'method' in m && 'id' in m && m.id !== undefined;
}

function isResultOrError(m: JSONRPCMessage): boolean {
  return 'id' in m && !('method' in m) && ('result' in m || 'error' in m);
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export class HttpClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly agent: http.Agent;
  private readonly requests = new Set<http.ClientRequest>();
  private readonly reconnection: HttpReconnectionOptions;
  private started = false;
  private closed = false;
  private session: string | undefined;
  private protocol: string | undefined;
  private serverRetryMs: number | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: URL,
    private readonly options: HttpClientTransportOptions = {},
  ) {
    this.reconnection = options.reconnectionOptions ?? DEFAULT_RECONNECTION;
    this.agent = new http.Agent({ keepAlive: true });
    const beforeDial = options.beforeDial;
    if (beforeDial) {
      // The agent dials through createConnection; a refusal reaches the request as its error (no socket made).
      type Dial = (o: object, cb: (err: Error | null, s?: unknown) => void) => unknown;
      const agent = this.agent as unknown as { createConnection: Dial };
      const dial = agent.createConnection.bind(agent);
      agent.createConnection = (o, cb) => {
        const refused = beforeDial();
        if (!refused) return dial(o, cb);
        cb(refused);
        return undefined;
      };
    }
  }

  get sessionId(): string | undefined {
    return this.session;
  }

  setProtocolVersion(version: string): void {
    this.protocol = version;
  }

  get protocolVersion(): string | undefined {
    return this.protocol;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('HttpClientTransport already started! If using Client class, note that connect() calls start() automatically.');
    this.started = true;
  }

  async close(): Promise<void> {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    if (!this.closed) {
      this.closed = true;
      for (const r of this.requests) r.destroy();
      this.requests.clear();
      this.agent.destroy();
    }
    this.onclose?.();
  }

  /**
   * Event ids and resumption (Last-Event-ID) are left out: a companion keeps no
   * event store (ours sends a fresh context when the stream reopens), so
   * `resumptionToken` is never asked for.
   */
  async send(message: JSONRPCMessage | JSONRPCMessage[], _options?: TransportSendOptions): Promise<void> {
    return this.sendText(message, JSON.stringify(message));
  }

  /**
   * `send`, with the message already serialized as `text` (a relay forwards a
   * large message without a second copy); `message` need only hold its
   * `method` and `id`, which say whether an answer is awaited.
   */
  async sendText(message: JSONRPCMessage | JSONRPCMessage[], text: string | Buffer): Promise<void> {
    try {
      const headers = this.headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
      const response = await this.request('POST', headers, text);
      const sessionId = response.headers['mcp-session-id'];
      if (typeof sessionId === 'string' && sessionId) this.session = sessionId;
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        const text = await readBody(response).catch(() => null);
        throw new HttpTransportError(status, `Error POSTing to endpoint: ${redirectNote(response) ?? text}`);
      }
      if (status === 202) {
        response.resume();
        if (!Array.isArray(message) && 'method' in message && message.method === 'notifications/initialized') {
          this.openStream().catch((err: Error) => this.error(err));
        }
        return;
      }
      const messages = Array.isArray(message) ? message : [message];
      if (!messages.some(isRequest)) {
        response.resume();
        return;
      }
      const type = mediaType(response.headers['content-type']);
      if (type === 'text/event-stream') {
        const request = messages.find(isRequest);
        this.readStream(response, false, request && 'id' in request ? request.id : undefined);
      } else if (type === 'application/json') {
        const text = await readBody(response);
        if (this.options.passThrough?.(text)) return;
        const data: unknown = JSON.parse(text);
        const parsed = Array.isArray(data) ? data.map((m) => JSONRPCMessageSchema.parse(m)) : [JSONRPCMessageSchema.parse(data)];
        for (const m of parsed) this.onmessage?.(m);
      } else {
        response.resume();
        throw new HttpTransportError(-1, `Unexpected content type: ${response.headers['content-type']}`);
      }
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.error(error);
      throw error;
    }
  }

  /** DELETE for the session; a 405 (the server keeps sessions itself) is fine. */
  async terminateSession(): Promise<void> {
    if (!this.session) return;
    try {
      const response = await this.request('DELETE', this.headers({}));
      response.resume();
      const status = response.statusCode ?? 0;
      if ((status < 200 || status > 299) && status !== 405) {
        throw new HttpTransportError(status, `Failed to terminate session: ${redirectNote(response) ?? response.statusMessage ?? ''}`);
      }
      this.session = undefined;
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.error(error);
      throw error;
    }
  }

  private error(err: Error): void {
    // After close, failures are the close's own doing (requests destroyed).
    if (!this.closed) this.onerror?.(err);
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = {};
    if (this.session) h['mcp-session-id'] = this.session;
    if (this.protocol) h['mcp-protocol-version'] = this.protocol;
    return { ...h, ...this.options.headers, ...extra };
  }

  /** One request; resolves with the response head (the body is the caller's). */
  private request(method: string, headers: Record<string, string>, body?: string | Buffer): Promise<http.IncomingMessage> {
    if (this.closed) return Promise.reject(new Error('This operation was aborted'));
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      if (payload) headers['content-length'] = String(payload.length);
      let answered = false;
      const req = http.request(this.url, { method, headers, agent: this.agent, socketPath: this.options.socketPath }, (res) => {
        answered = true;
        res.on('close', () => this.requests.delete(req));
        resolve(res);
      });
      this.requests.add(req);
      req.on('error', (err) => {
        this.requests.delete(req);
        reject(this.closed ? new Error('This operation was aborted') : err);
      });
      req.on('close', () => {
        if (!answered) this.requests.delete(req);
      });
      req.end(payload);
    });
  }

  /** The GET stream for the server's own messages (optional for servers: 405 means none). */
  private async openStream(): Promise<void> {
    try {
      const headers = this.headers({ accept: 'text/event-stream' });
      const response = await this.request('GET', headers);
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        response.resume();
        if (status === 405) return;
        throw new HttpTransportError(status, `Failed to open SSE stream: ${redirectNote(response) ?? response.statusMessage ?? ''}`);
      }
      this.readStream(response, true);
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      this.error(error);
      throw error;
    }
  }

  /**
   * Reads an event stream; the GET stream (`reconnectable`) is reopened when it drops. An event
   * over MAX_MESSAGE_BYTES ends the stream, and the request it answers (`requestId`) gets an error.
   */
  private readStream(response: http.IncomingMessage, reconnectable: boolean, requestId?: string | number): void {
    let answered = false;
    let done = false;
    /** Bytes since the last event: what the parser holds. */
    let pending = 0;
    // The text/event-stream format (BOM, CR/LF/CRLF lines, comments, retry) is eventsource-parser's, as in the SDK.
    const parser = createParser({
      onEvent: (event) => {
        pending = 0;
        if (!event.data || (event.event && event.event !== 'message')) return;
        if (this.options.passThrough?.(event.data)) return;
        try {
          const message = JSONRPCMessageSchema.parse(JSON.parse(event.data));
          if (isResultOrError(message) && 'result' in message) answered = true;
          this.onmessage?.(message);
        } catch (err) {
          this.error(err instanceof Error ? err : new Error(String(err)));
        }
      },
      onRetry: (ms) => (this.serverRetryMs = ms),
    });
    const decoder = new StringDecoder('utf8');
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      if (err) this.error(new Error(`SSE stream disconnected: ${err}`));
      if (reconnectable && !answered && !this.closed) this.scheduleReconnection(0);
    };
    response.on('data', (chunk: Buffer) => {
      if (done) return;
      pending += chunk.length;
      if (pending > MAX_MESSAGE_BYTES) {
        response.destroy();
        if (requestId !== undefined) {
          answered = true;
          this.onmessage?.({
            jsonrpc: '2.0',
            id: requestId,
            error: { code: -32000, message: `The companion's answer: ${oversizeMessage(MAX_MESSAGE_BYTES)}` },
          });
        }
        finish(new Error(oversizeMessage(MAX_MESSAGE_BYTES)));
        return;
      }
      parser.feed(decoder.write(chunk));
    });
    response.on('end', () => {
      parser.feed(decoder.end());
      finish();
    });
    response.on('error', (err) => finish(err));
    response.on('close', () => {
      if (!response.complete) finish(new Error('terminated'));
    });
  }

  private scheduleReconnection(attempt: number): void {
    const { maxRetries, initialReconnectionDelay, reconnectionDelayGrowFactor, maxReconnectionDelay } = this.reconnection;
    if (attempt >= maxRetries) {
      this.error(new Error(`Maximum reconnection attempts (${maxRetries}) exceeded.`));
      return;
    }
    const delay = this.serverRetryMs ?? Math.min(initialReconnectionDelay * Math.pow(reconnectionDelayGrowFactor, attempt), maxReconnectionDelay);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.closed) return;
      this.openStream().catch((err: Error) => {
        this.error(new Error(`Failed to reconnect SSE stream: ${err.message}`));
        this.scheduleReconnection(attempt + 1);
      });
    }, delay);
  }
}

/** The body as text, at most MAX_MESSAGE_BYTES (else rejected, the response dropped). */
function readBody(response: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_MESSAGE_BYTES) {
        chunks = [];
        response.destroy();
        reject(new Error(`The companion's answer: ${oversizeMessage(MAX_MESSAGE_BYTES)}`));
        return;
      }
      chunks.push(c);
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('close', () => {
      if (!response.complete) reject(new Error('terminated'));
    });
  });
}

/** A redirect is answered as an error naming it (the SDK follows same-origin ones; a companion sends none). */
function redirectNote(response: http.IncomingMessage): string | undefined {
  const status = response.statusCode ?? 0;
  if (status < 300 || status > 399) return undefined;
  const location = response.headers.location;
  return `Redirect (${status}${location ? ` to ${location}` : ''}) not followed`;
}
