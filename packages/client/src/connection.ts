/**
 * One MCP session with one companion: the handshake the real CLI performs
 * (initialize, initialized, the GET stream, tools/list), incoming
 * notifications checked against the protocol schemas, tool calls, and a
 * `lost` signal when the companion goes away. Reconnecting is the caller's job.
 */
import {
  ActiveFileNotification,
  ActiveFileNotificationParamsSchema,
  CloseDiffTool,
  COMPANION_NOTIFICATIONS,
  GetActiveFileTool,
  OpenDiffTool,
  type CompanionNotification,
  PARSE_ONCE,
} from '@ide-companion/protocol';
import * as z from 'zod/mini';
import type { ConnectionTarget } from './discovery.js';
import type { CallToolResult, Client, Transport } from './mcpSession.js';
import { describeTarget } from './transport.js';

/** A notification whose params passed the schema of its method: a union over the literal methods. */
export type IncomingNotification =
  CompanionNotification | { method: typeof ActiveFileNotification.method; params: z.infer<typeof ActiveFileNotificationParamsSchema> };

/** A companion that does not answer the DELETE quickly must not delay the caller's exit. */
const SESSION_END_TIMEOUT_MS = 1_000;

export interface ConnectionHandlers {
  onNotification(notification: IncomingNotification): void;
  /** A notification that fails its schema: ignored, reported here. */
  onInvalidNotification?(method: string, error: string): void;
  /** The session ended (companion gone, stream dropped, closed by us). Called once. */
  onLost(reason: string): void;
}

export interface ConnectOptions {
  /** Whole handshake must finish in this time. */
  timeoutMs: number;
  /** How often to ping to notice a silent drop; 0 disables. */
  heartbeatMs?: number;
}

const byMethod = new Map<string, z.ZodMiniType>(
  [...COMPANION_NOTIFICATIONS, ActiveFileNotification].map((n) => [n.method, n.params] as [string, z.ZodMiniType]),
);

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
      timer.unref?.();
    }),
  ]).finally(() => clearTimeout(timer));
}

export class CompanionConnection {
  private closed = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private checking = false;

  private constructor(
    readonly target: ConnectionTarget,
    private readonly sdk: typeof import('./mcpSession.js'),
    private readonly client: Client,
    private readonly transport: Transport,
    readonly tools: string[],
    readonly serverName: string | undefined,
    private readonly handlers: ConnectionHandlers,
  ) {}

  /** Connects and lists tools; throws with a message naming the target on failure. */
  static async open(target: ConnectionTarget, handlers: ConnectionHandlers, options: ConnectOptions): Promise<CompanionConnection> {
    const sdk = await import('./mcpSession.js');
    const client = sdk.createClient(target);
    const transport = sdk.createTransport(target);
    let connection: CompanionConnection | undefined;
    // Until open() returns, errors surface as open()'s rejection.
    client.onerror = (err) => connection?.onTransportError(err);
    client.onclose = () => connection?.markLost('the connection closed');
    // The companion pushes context as soon as the GET stream opens, before tools/list answers: keep it.
    const early: Array<{ method: string; params: unknown }> = [];
    client.fallbackNotificationHandler = async (n) => {
      if (connection) connection.dispatch(n.method, n.params);
      else early.push({ method: n.method, params: n.params });
    };
    try {
      const tools = await withTimeout(
        (async () => {
          await client.connect(transport);
          try {
            return await sdk.listToolNames(client);
          } catch (err) {
            // The CLI tolerates a server without tools/list: no diffing, still connected.
            if (/Method not found/i.test((err as Error).message)) return [];
            throw err;
          }
        })(),
        options.timeoutMs,
        `connecting to ${describeTarget(target)}`,
      );
      if (target.requireIdentification && !looksLikeCompanion(tools)) {
        throw new Error(`${describeTarget(target)} answers MCP but is not an IDE companion (tools: ${tools.join(', ') || 'none'})`);
      }
      connection = new CompanionConnection(target, sdk, client, transport, tools, client.getServerVersion()?.name, handlers);
      connection.startHeartbeat(options.heartbeatMs ?? 0);
      const opened = connection;
      // Delivered after open() returns, so the caller has registered the connection first.
      if (early.length > 0) setImmediate(() => early.forEach((n) => opened.dispatch(n.method, n.params)));
      return connection;
    } catch (err) {
      await client.close().catch(() => undefined);
      throw err instanceof Error ? err : new Error(String(err));
    }
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Calls a tool; rejects when the connection is lost before the answer. */
  async callTool(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallToolResult> {
    if (this.closed) throw new Error('not connected to an IDE companion');
    return this.sdk.callTool(this.client, name, args, timeoutMs);
  }

  /** Sends a notification to the companion (architecture doc's sendNotification). */
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    if (this.closed) throw new Error('not connected to an IDE companion');
    await this.client.notification({ method, params });
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.client.ping({ timeout: timeoutMs });
  }

  /**
   * Ends the session: over HTTP a DELETE first (unlike the real CLI), so the
   * companion drops it at once instead of counting it until its grace ends.
   */
  async close(): Promise<void> {
    const wasOpen = !this.closed;
    this.markLost('closed by the client');
    if (wasOpen && this.transport instanceof this.sdk.HttpClientTransport) {
      await withTimeout(this.transport.terminateSession(), SESSION_END_TIMEOUT_MS, 'ending the session').catch(() => undefined);
    }
    await this.client.close().catch(() => undefined);
  }

  private dispatch(method: string, params: unknown): void {
    // A lost session's stragglers must not reach a client that has moved on.
    if (this.closed) return;
    const schema = byMethod.get(method);
    if (!schema) return; // Unknown notifications are not ours to judge.
    const parsed = schema.safeParse(params ?? {}, PARSE_ONCE);
    if (!parsed.success) {
      this.handlers.onInvalidNotification?.(method, z.prettifyError(parsed.error));
      return;
    }
    try {
      // The schema was chosen by this very method, so the pair is one member of the union.
      this.handlers.onNotification({ method, params: parsed.data } as IncomingNotification);
    } catch {
      // A handler's bug must not reach the SDK (it would call onerror).
    }
  }

  /** Transport errors may be transient (the SDK retries the stream): confirm with a ping. */
  private onTransportError(_err: Error): void {
    if (this.closed || this.checking) return;
    this.checking = true;
    this.ping(3000)
      .catch((err: Error) => this.lose(`the companion stopped answering (${err.message})`))
      .finally(() => {
        this.checking = false;
      });
  }

  private startHeartbeat(ms: number): void {
    if (ms <= 0) return;
    this.heartbeat = setInterval(() => {
      if (this.checking || this.closed) return;
      this.checking = true;
      this.ping(Math.min(ms, 5000))
        .catch((err: Error) => this.lose(`heartbeat failed (${err.message})`))
        .finally(() => {
          this.checking = false;
        });
    }, ms);
    this.heartbeat.unref?.();
  }

  private lose(reason: string): void {
    if (this.closed) return;
    this.markLost(reason);
    this.client.close().catch(() => undefined);
  }

  private markLost(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.handlers.onLost(reason);
  }
}

/** As the CLI: diffs need both openDiff and closeDiff. */
export function offersDiffs(tools: readonly string[]): boolean {
  return tools.includes(OpenDiffTool.name) && tools.includes(CloseDiffTool.name);
}

/** A well-known port only counts if it offers a companion's tools. */
export function looksLikeCompanion(tools: readonly string[]): boolean {
  return offersDiffs(tools) || tools.includes(GetActiveFileTool.name);
}
