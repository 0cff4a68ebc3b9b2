/**
 * What the companion asks of an agent face that holds sessions of its own
 * (Claude Code's and Amp's WebSockets, Copilot CLI's socket): the companion
 * keeps a list of them and calls each the same way, naming none.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { CompanionNotification, IdeContext } from '@ide-companion/protocol';
import type { AgentName } from '@ide-companion/shared/agentPaths';
import type { SessionInfo } from '../sessions.js';

/** "Send to agent": a file, or lines of it (1-based, inclusive), with the workspace roots it lies under. */
export interface FileMention {
  filePath: string;
  startLine?: number;
  endLine?: number;
  roots: readonly string[];
}

export interface SessionFace {
  /** The agent its sessions are (by this name in a diff's words and in the logs). */
  readonly agent: AgentName;
  /** Whether the session is one of this face's. */
  owns(sessionId: string): boolean;
  /** A diff's outcome for one of its sessions (the answer to its waiting call, in its agent's words). */
  deliver(sessionId: string, notification: CompanionNotification): void;
  /** The context changed (coalesced): its sessions hear what they take of it. */
  contextChanged(context: IdeContext, selectionBackward: boolean): void;
  /** Tells its connected sessions of `mention`; returns how many heard it. */
  mention(mention: FileMention): number;
  list(): SessionInfo[];
  /** Ends its sessions (their waiting calls answered first) and its server. */
  close(): Promise<void>;
}

/**
 * Whether an upgrade is meant for a face: `marked` when it carries the face's
 * own mark (Amp's `?auth=`), `plain` when the face takes any unmarked one
 * (Claude Code's token comes in a header); undefined when not its.
 */
export type UpgradeClaim = 'marked' | 'plain' | undefined;

/** A face reached by a WebSocket upgrade on the companion's port. */
export interface WebSocketFace extends SessionFace {
  claimsUpgrade(req: IncomingMessage): UpgradeClaim;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export function isWebSocketFace(face: SessionFace): face is WebSocketFace {
  return typeof (face as Partial<WebSocketFace>).claimsUpgrade === 'function';
}

/** The companion's `upgrade` listener over its WebSocket faces: the face whose mark the request carries, else one that takes plain ones, else a 404. */
export function upgradeRouter(faces: readonly WebSocketFace[]): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    const claims = faces.map((f) => [f, f.claimsUpgrade(req)] as const);
    const face = (claims.find(([, c]) => c === 'marked') ?? claims.find(([, c]) => c === 'plain'))?.[0];
    if (face) face.handleUpgrade(req, socket, head);
    else socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\nNot Found: no WebSocket here for this request\n');
  };
}
