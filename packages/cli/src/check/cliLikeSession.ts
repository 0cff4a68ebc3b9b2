/**
 * An MCP session opened the way Gemini CLI 0.61 opens one: the real SDK
 * client, clientInfo `streamable-http-client`, protocolVersion 2025-06-18,
 * the bearer token on every request, then the standalone GET stream. Every
 * HTTP exchange and every notification is recorded for the checks.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, isInitializeRequest, McpError, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { HTTP_CLIENT_NAME } from '@ide-companion/client/transport';
import { LOOPBACK_HOST, MCP_ENDPOINT_PATH } from '@ide-companion/protocol';
import { CLI_PROTOCOL_VERSION } from './rawSession.js';
import { CHECK_PROBE_HEADER, checkProbeProof } from '@ide-companion/server/http/checkProbe';

export interface WireExchange {
  method: string;
  status: number;
  contentType: string;
  allowOrigin: string | null;
  at: number;
}

export interface ReceivedNotification {
  session: string;
  method: string;
  params: unknown;
  at: number;
}

/** The SDK client offers its own newest version; the CLI's SDK (1.23) offers 2025-06-18. */
class CliLikeTransport extends StreamableHTTPClientTransport {
  override send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (isInitializeRequest(message)) {
      message = { ...message, params: { ...message.params, protocolVersion: CLI_PROTOCOL_VERSION } } as JSONRPCMessage;
    }
    return super.send(message, options);
  }
}

export class CliLikeSession {
  /** When the standalone GET stream answered 200 text/event-stream. */
  streamOpenedAt: number | undefined;
  private closed = false;

  private constructor(
    readonly label: string,
    readonly client: Client,
    readonly transport: StreamableHTTPClientTransport,
    /** Every HTTP exchange of this session, in order. */
    readonly wire: WireExchange[],
  ) {}

  /** Connects (initialize + initialized + GET stream); throws ConnectError on failure. */
  static async open(options: {
    label: string;
    port: number;
    token: string;
    timeoutMs: number;
    notifications: ReceivedNotification[];
  }): Promise<CliLikeSession> {
    let session: CliLikeSession | undefined;
    const wire: WireExchange[] = [];
    const recordingFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const response = await fetch(url, init);
      const exchange: WireExchange = {
        method: init?.method ?? 'GET',
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        allowOrigin: response.headers.get('access-control-allow-origin'),
        at: Date.now(),
      };
      wire.push(exchange);
      if (session && exchange.method === 'GET' && response.ok && exchange.contentType.includes('text/event-stream')) {
        session.streamOpenedAt ??= exchange.at;
      }
      return response;
    };
    const transport = new CliLikeTransport(new URL(`http://${LOOPBACK_HOST}:${options.port}${MCP_ENDPOINT_PATH}`), {
      fetch: recordingFetch,
      // Marked as check's (a proof under the token): the companion logs this session's deliberate bad calls below the warnings.
      requestInit: { headers: { Authorization: `Bearer ${options.token}`, [CHECK_PROBE_HEADER]: checkProbeProof(options.token) } },
    });
    const client = new Client({ name: HTTP_CLIENT_NAME, version: 'ide-companion-check' });
    session = new CliLikeSession(options.label, client, transport, wire);
    client.fallbackNotificationHandler = async (n) => {
      options.notifications.push({ session: options.label, method: n.method, params: n.params, at: Date.now() });
    };
    client.onerror = () => {
      // Stream hiccups and stray replies are judged by the checks, not thrown here.
    };
    try {
      await client.connect(transport, { timeout: options.timeoutMs });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new ConnectError(err);
    }
    return session;
  }

  get negotiatedVersion(): string | undefined {
    return this.transport.protocolVersion;
  }

  /** Waits up to `timeoutMs` for the GET stream; true if it opened. */
  async waitForStream(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.streamOpenedAt === undefined && Date.now() < deadline) await sleep(20);
    return this.streamOpenedAt !== undefined;
  }

  callTool(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallToolResult> {
    return this.client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs }) as Promise<CallToolResult>;
  }

  /** Ends the session (DELETE, then the client); never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.transport.terminateSession().catch(() => undefined);
    await this.client.close().catch(() => undefined);
  }
}

/** Connecting failed; `status` is the HTTP status when there was one. */
export class ConnectError extends Error {
  readonly status: number | undefined;
  constructor(cause: unknown) {
    super(describeCallError(cause));
    this.status = httpStatusOf(cause);
  }
}

/** A short description of a failed request: HTTP status, timeout or network error. */
export function describeCallError(err: unknown): string {
  if (err instanceof StreamableHTTPError) return `HTTP ${err.code ?? '?'}: ${err.message.replace(/^Streamable HTTP error: /, '').slice(0, 160)}`;
  if (err instanceof Error) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return cause?.code ? `${err.message} (${cause.code})` : err.message;
  }
  return String(err);
}

export function httpStatusOf(err: unknown): number | undefined {
  return err instanceof StreamableHTTPError ? err.code : undefined;
}

/** The request got no answer in time: the companion may still have acted on it. */
export function timedOut(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.RequestTimeout;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
