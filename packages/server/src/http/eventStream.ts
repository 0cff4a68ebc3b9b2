/**
 * A session's standalone GET stream (Server-Sent Events), written straight to
 * the node response. The SDK's transport routes it through a web
 * ReadableStream and a TextEncoder: a few promise hops per notification and,
 * for a 32 MiB diff outcome, another full copy. Only the GET stream is ours;
 * POST requests and their answers stay with the SDK's transport.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { sendJsonRpcError } from './jsonRpcError.js';

/** The SDK's code for transport-level refusals (406, 409, 400 on a version). */
const TRANSPORT_ERROR = -32000;

/** A `content` string longer than this (UTF-16 units) is written in pieces of this size. */
export const CONTENT_PIECE_UNITS = 1 << 20;
const CONTENT_KEY = '"content":""';

/** A message as one SSE `message` event (whole: for messages without large content). */
export function messageEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

export class EventStream {
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    keepAliveMs: number,
    private readonly pieceUnits = CONTENT_PIECE_UNITS,
  ) {
    // A comment line every so often, so an idle CLI connection is not timed out by anything in between.
    this.keepAlive = setInterval(() => res.write(': keepalive\n\n'), keepAliveMs);
    this.keepAlive.unref();
    res.once('close', () => clearInterval(this.keepAlive));
  }

  /**
   * One `message` event. A usual one is one write: one HTTP chunk, so the
   * client's SSE parser gets it whole in one read (pieces cost it a read each).
   */
  send(message: JSONRPCMessage): void {
    const res = this.res;
    if (res.writableEnded || res.destroyed) return;
    if (!this.hasLargeContent(message)) {
      res.write(messageEvent(message));
      return;
    }
    res.cork();
    res.write('event: message\ndata: ');
    this.writeLargeContent(message);
    res.write('\n\n');
    res.uncork();
  }

  /** One event already encoded by `messageEvent` (a broadcast encodes once for every stream). */
  sendEncoded(event: string): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(event);
  }

  end(): void {
    clearInterval(this.keepAlive);
    if (!this.res.writableEnded) this.res.end();
  }

  private hasLargeContent(message: JSONRPCMessage): boolean {
    const content = 'params' in message ? (message.params as Record<string, unknown> | undefined)?.['content'] : undefined;
    return typeof content === 'string' && content.length > this.pieceUnits;
  }

  /**
   * A diff outcome's `content` (up to the body limit) is
   * escaped piece by piece straight to the socket: one JSON string of it would
   * be another copy twice its size (two bytes a unit once it has any non-Latin-1
   * character), on top of the content and the bytes written.
   */
  private writeLargeContent(message: JSONRPCMessage): void {
    const params = (message as { params: Record<string, unknown> }).params;
    const content = params['content'] as string;
    const json = JSON.stringify({ ...message, params: { ...params, content: '' } });
    // Quotes inside JSON strings are escaped, so this key-and-empty-value occurs once: where content goes.
    const open = json.indexOf(CONTENT_KEY) + CONTENT_KEY.length - 1;
    this.res.write(json.slice(0, open));
    for (let start = 0; start < content.length;) {
      let end = Math.min(content.length, start + this.pieceUnits);
      // Never split a surrogate pair: each half alone would be escaped as \udXXX.
      const last = content.charCodeAt(end - 1);
      if (end < content.length && last >= 0xd800 && last <= 0xdbff) end += end - 1 > start ? -1 : 1;
      this.res.write(JSON.stringify(content.slice(start, end)).slice(1, -1));
      start = end;
    }
    this.res.write(json.slice(open));
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
    sendJsonRpcError(res, 406, TRANSPORT_ERROR, 'Not Acceptable: Client must accept text/event-stream');
    return undefined;
  }
  const version = req.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !versions.includes(version)) {
    const supported = versions.join(', ');
    sendJsonRpcError(res, 400, TRANSPORT_ERROR, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`);
    return undefined;
  }
  if (alreadyOpen) {
    sendJsonRpcError(res, 409, TRANSPORT_ERROR, 'Conflict: Only one SSE stream is allowed per session');
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
