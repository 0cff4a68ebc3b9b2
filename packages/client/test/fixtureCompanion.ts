/**
 * Broken and odd companions for the client tests: a node:http server with the
 * real MCP SDK server behind it, whose tools and notifications the test
 * scripts (invalid notifications, legacy ide/diffClosed, raw-text closeDiff,
 * openDiff errors, no companion tools at all).
 */
import * as http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';

export type ToolHandler = (args: Record<string, unknown>) => CallToolResult | Promise<CallToolResult>;

export interface FixtureOptions {
  token?: string;
  tools: Record<string, ToolHandler>;
  /** Bind this port (default: any). */
  port?: number;
}

export class FixtureCompanion {
  private server: http.Server;
  private readonly sessions = new Map<string, { transport: StreamableHTTPServerTransport; mcp: McpServer }>();
  readonly token: string;
  calls: Array<{ name: string; args: Record<string, unknown> }> = [];

  constructor(private readonly options: FixtureOptions) {
    this.token = options.token ?? randomUUID();
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port ?? 0, '127.0.0.1', () => resolve());
    });
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sessions.values()) await s.transport.close().catch(() => undefined);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Forgets every session and closes its streams: the client's next request gets 404. */
  async dropSessions(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of all) await s.transport.close().catch(() => undefined);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Sends to every session's standalone stream (dropped by the SDK if none is open yet). */
  async notify(method: string, params: Record<string, unknown>): Promise<void> {
    for (const s of this.sessions.values()) await s.mcp.server.notification({ method, params }).catch(() => undefined);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      res.writeHead(401).end('unauthorized');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const id = req.headers['mcp-session-id'] as string | undefined;
    let session = id ? this.sessions.get(id) : undefined;
    if (!session) {
      if (req.method !== 'POST' || body?.method !== 'initialize') {
        res.writeHead(404).end();
        return;
      }
      const mcp = new McpServer({ name: 'fixture', version: '0' });
      for (const [name, handler] of Object.entries(this.options.tools)) {
        mcp.registerTool(
          name,
          { inputSchema: { filePath: z.optional(z.string()), newContent: z.optional(z.string()), suppressNotification: z.optional(z.boolean()) } },
          async (args) => {
            this.calls.push({ name, args });
            return handler(args);
          },
        );
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          this.sessions.set(sid, { transport, mcp });
        },
      });
      await mcp.connect(transport);
      session = { transport, mcp };
    }
    await session.transport.handleRequest(req, res, body);
  }
}

/** Tools a companion offers; the diff tools answer `content: []` like ours. */
export const companionTools = (overrides: Record<string, ToolHandler> = {}): Record<string, ToolHandler> => ({
  openDiff: () => ({ content: [] }),
  closeDiff: () => ({ content: [{ type: 'text', text: JSON.stringify({ content: null }) }] }),
  ...overrides,
});
