/**
 * One CLI session of a SessionRegistry (sessions.ts): its transport and
 * McpServer, the GET stream notifications travel on, and its expiry timer,
 * which the registry arms while no stream is open.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { CompanionNotification } from '@ide-companion/protocol';
import type { AgentName, SessionAgent } from '@ide-companion/shared/agentPaths';
import type { EventStream } from './http/eventStream.js';
import type { SessionTransport } from './http/sessionTransport.js';

/** What the SDK's `notification()` would send: the notification and `jsonrpc`. */
export function toJsonRpc(notification: CompanionNotification): JSONRPCMessage {
  return { ...notification, jsonrpc: '2.0' } as JSONRPCMessage;
}

export interface SessionInfo {
  id: string;
  /** clientInfo.name from initialize (`streamable-http-client` for Gemini CLI). */
  clientName: string | undefined;
  clientVersion: string | undefined;
  /** Whether the standalone GET stream, the one notifications travel on, is open. */
  streamOpen: boolean;
  connectedAt: number;
  /** Which agent: told by the token it connected with (each face's own), its transport (Claude Code's WebSocket), or its clientInfo (opencode). */
  agent: SessionAgent;
}

export class CliSession {
  /** The GET stream, written by us (http/eventStream.ts), not by the SDK's transport. */
  stream: EventStream | undefined;
  /** Whether a GET stream was ever open: then its closing means the CLI is likely gone. */
  hadStream = false;
  /** The client ended it with DELETE (our `diff`, `context`): it took what it was told, nothing of it is left to keep. */
  endedByClient = false;
  expiry: NodeJS.Timeout | undefined;
  readonly connectedAt = Date.now();
  constructor(
    readonly id: string,
    readonly transport: SessionTransport,
    readonly server: McpServer,
    readonly agent: AgentName,
    /** Opened by `ide-companion check` (http/checkProbe.ts): its deliberate bad calls are no warnings. */
    readonly checkProbe: boolean,
    /** Opened on one of the companion's Unix sockets (the relay's way in), not its port. */
    readonly onSocket: boolean,
  ) {}

  info(): SessionInfo {
    const client = this.server.server.getClientVersion();
    return {
      id: this.id,
      clientName: client?.name,
      clientVersion: client?.version,
      streamOpen: this.stream !== undefined,
      connectedAt: this.connectedAt,
      agent: this.agent,
    };
  }
}
