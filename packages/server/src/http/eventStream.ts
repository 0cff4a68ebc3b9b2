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

export class EventStream {
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    keepAliveMs: number,
  ) {
    // A comment line every so often, so an idle CLI connection is not timed out by anything in between.
    this.keepAlive = setInterval(() => res.write(': keepalive\n\n'), keepAliveMs);
    this.keepAlive.unref();
    res.once('close', () => clearInterval(this.keepAlive));
  }

  /** One `message` event; the JSON is written as one string, not copied again into a frame. */
  send(message: JSONRPCMessage): void {
    if (this.res.writableEnded || this.res.destroyed) return;
    const json = JSON.stringify(message);
    this.res.cork();
    this.res.write('event: message\ndata: ');
    this.res.write(json);
    this.res.write('\n\n');
    this.res.uncork(); // one writev for the three pieces
  }

  end(): void {
    clearInterval(this.keepAlive);
    if (!this.res.writableEnded) this.res.end();
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
