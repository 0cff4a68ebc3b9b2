/**
 * A session's standalone GET stream (Server-Sent Events), written straight to
 * the node response. The SDK's transport routes it through a web
 * ReadableStream and a TextEncoder: a few promise hops per notification and,
 * for a 32 MiB diff outcome, another full copy. Only the GET stream is ours;
 * POST requests and their answers stay with the SDK's transport.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RpcErrorCode, sendJsonRpcError, unsupportedVersion } from './jsonRpcError.js';

/** A `content` string longer than this (UTF-16 units) is written in pieces; a shorter one in the message's one write. */
export const LARGE_CONTENT_UNITS = 1 << 20;
/**
 * The pieces' size (UTF-16 units): small enough that each piece's escaped
 * string and bytes are young-generation garbage, freed at the next scavenge.
 */
export const CONTENT_PIECE_UNITS = 1 << 15;
/** While more than this is queued on the response, the next piece waits for 'drain'. */
const QUEUED_BYTES = 1 << 20;
const CONTENT_KEY = '"content":""';

/** A message as one SSE `message` event (whole: for messages without large content). */
export function messageEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

export class EventStream {
  private readonly keepAlive: NodeJS.Timeout;
  /** Messages (or encoded events) waiting while a large one is written: events go out whole and in order. */
  private backlog: Array<JSONRPCMessage | string> | undefined;
  private endWhenDone = false;

  constructor(
    private readonly res: ServerResponse,
    keepAliveMs: number,
    private readonly pieceUnits = CONTENT_PIECE_UNITS,
    private readonly largeUnits = LARGE_CONTENT_UNITS,
  ) {
    // A comment line every so often, so an idle CLI connection is not timed out by anything in between.
    this.keepAlive = setInterval(() => {
      if (!this.backlog) res.write(': keepalive\n\n');
    }, keepAliveMs);
    this.keepAlive.unref();
    res.once('close', () => clearInterval(this.keepAlive));
  }

  /**
   * One `message` event. A usual one is one write: one HTTP chunk, so the
   * client's SSE parser gets it whole in one read (pieces cost it a read each).
   */
  send(message: JSONRPCMessage): void {
    if (this.closed) return;
    if (this.backlog) {
      this.backlog.push(message);
      return;
    }
    if (!this.hasLargeContent(message)) {
      this.res.write(messageEvent(message));
      return;
    }
    this.backlog = [];
    void this.writeLarge(message);
  }

  /** One event already encoded by `messageEvent` (a broadcast encodes once for every stream). */
  sendEncoded(event: string): void {
    if (this.closed) return;
    if (this.backlog) this.backlog.push(event);
    else this.res.write(event);
  }

  /** Ends the response, after the message being written and those waiting for it. */
  end(): void {
    clearInterval(this.keepAlive);
    if (this.backlog) this.endWhenDone = true;
    else if (!this.res.writableEnded) this.res.end();
  }

  private get closed(): boolean {
    return this.res.writableEnded || this.res.destroyed;
  }

  private hasLargeContent(message: JSONRPCMessage): boolean {
    const content = 'params' in message ? (message.params as Record<string, unknown> | undefined)?.['content'] : undefined;
    return typeof content === 'string' && content.length > this.largeUnits;
  }

  /**
   * A diff outcome's `content` (up to the body limit) is escaped and encoded
   * piece by piece, each piece written once the socket took the one before:
   * one JSON string of it would be another copy twice its size (two bytes a
   * unit once it has any non-Latin-1 character), and pieces queued all at once
   * are encoded together into one more buffer (three bytes a unit reserved).
   * The content itself is the only full copy held.
   */
  private async writeLarge(message: JSONRPCMessage): Promise<void> {
    const params = (message as { params: Record<string, unknown> }).params;
    const content = params['content'] as string;
    const json = JSON.stringify({ ...message, params: { ...params, content: '' } });
    // Quotes inside JSON strings are escaped, so this key-and-empty-value occurs once: where content goes.
    const open = json.indexOf(CONTENT_KEY) + CONTENT_KEY.length - 1;
    try {
      await this.write(`event: message\ndata: ${json.slice(0, open)}`);
      for (let start = 0; start < content.length && !this.closed;) {
        let end = Math.min(content.length, start + this.pieceUnits);
        // Never split a surrogate pair: each half alone would be escaped as \udXXX.
        const last = content.charCodeAt(end - 1);
        if (end < content.length && last >= 0xd800 && last <= 0xdbff) end += end - 1 > start ? -1 : 1;
        await this.write(Buffer.from(JSON.stringify(content.slice(start, end)).slice(1, -1), 'utf8'));
        start = end;
      }
      await this.write(`${json.slice(open)}\n\n`);
    } finally {
      this.afterLarge();
    }
  }

  /** Writes, and resolves once the response can take more (or is gone). */
  private write(chunk: string | Buffer): Promise<void> {
    if (this.closed || this.res.write(chunk) || this.res.writableLength < QUEUED_BYTES) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  private afterLarge(): void {
    const waiting = this.backlog ?? [];
    this.backlog = undefined;
    for (let i = 0; i < waiting.length; i++) {
      const next = waiting[i]!;
      if (typeof next === 'string') this.sendEncoded(next);
      else this.send(next);
      const started = this.backlog as Array<JSONRPCMessage | string> | undefined;
      if (started) {
        // Another large one: the rest waits behind it, in order.
        started.push(...waiting.slice(i + 1));
        return;
      }
    }
    if (this.endWhenDone) this.end();
  }
}

/**
 * Answers a GET on a live session: the refusals the SDK's transport would give
 * (no text/event-stream in Accept, an unsupported MCP-Protocol-Version, a second
 * stream), or the stream's head and the stream.
 */
export function openEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  { sessionId, alreadyOpen, keepAliveMs, versions }: { sessionId: string; alreadyOpen: boolean; keepAliveMs: number; versions: readonly string[] },
): EventStream | undefined {
  if (!(req.headers.accept ?? '').includes('text/event-stream')) {
    sendJsonRpcError(res, 406, RpcErrorCode.TransportError, 'Not Acceptable: Client must accept text/event-stream');
    return undefined;
  }
  const versionRefusal = unsupportedVersion(req, versions);
  if (versionRefusal) {
    sendJsonRpcError(res, 400, RpcErrorCode.TransportError, versionRefusal);
    return undefined;
  }
  if (alreadyOpen) {
    sendJsonRpcError(res, 409, RpcErrorCode.TransportError, 'Conflict: Only one SSE stream is allowed per session');
    return undefined;
  }
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'mcp-session-id': sessionId,
  });
  res.flushHeaders();
  return new EventStream(res, keepAliveMs);
}
