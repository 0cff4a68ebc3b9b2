/**
 * The face seam: what an agent's face declares, and what the companion lends
 * it. A face is its discovery (who is served, its lock file), its transport
 * (sessions of its own, or a token on the companion's port), its tools in its
 * agent's words and its notifications from the context. The companion holds
 * the list (registry.ts) and names no agent; the roster serves each face by
 * the same rules (agentRoster.ts).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { IdeInfo } from '@ide-companion/protocol';
import type { AgentName } from '@ide-companion/shared/agentPaths';
import type { ContextTracker } from '../contextTracker.js';
import type { DiffCoordinator } from '../diffCoordinator.js';
import type { HealthItem } from '../healthLines.js';
import type { HostRule } from '../http/requestGuard.js';
import type { Logger } from '../logger.js';
import type { ToolDefinition, ToolEnvironment } from '../tools/toolDefinition.js';
import type { SessionFace } from './sessionFace.js';

/** The limits every face's sessions keep (the companion's options). */
export interface FaceLimits {
  maxBodyBytes: number;
  keepAliveMs: number;
  /** How long a session that never opened its stream lives without requests. */
  graceMs: number;
  /** How long a session whose stream closed waits for it to reopen. */
  streamGraceMs: number;
  maxSessions: number;
}

/** What the companion lends a face: its context, diffs, tools and limits; nothing of another face. */
export interface FaceHost {
  readonly logger: Logger;
  readonly ideInfo: IdeInfo;
  readonly idePid: number;
  readonly context: ContextTracker;
  readonly diffs: DiffCoordinator;
  readonly tools: readonly ToolDefinition[];
  readonly limits: FaceLimits;
  /** Workspace trust as the editor reported it at start; undefined when it did not. */
  readonly trusted: boolean | undefined;
  /** Where the companion's files in TMP go. */
  readonly tmpdir: string;
  /** Whether the companion listens on Unix sockets here (not on Windows, not when turned off). */
  readonly unixSockets: boolean;
  /** The Host values the companion's port accepts. */
  readonly portHosts: HostRule;
  port(): number;
  /** The companion's private socket folder; undefined without one. */
  socketDir(): string | undefined;
  workspacePath(): string;
  toolEnvironment(): ToolEnvironment;
  /** An McpServer named for this companion, with no tool yet. */
  mcpServer(): Promise<McpServer>;
  /** One of the face's sessions went away: its diffs close as a Gemini session's do. */
  sessionClosed(id: string): void;
  sessionsChanged(): void;
}

/** Who is served: a user who has the agent, or named it. */
export interface FaceDiscovery {
  /** The agent's own folder: a user who has it is served; while missing (the agent not named), it is watched. */
  readonly home: string;
  /** Whether the user named the agent by its own variables (QWEN_HOME, CODEX_HOME...): its folders are made then. */
  readonly namedByEnv: boolean;
  /** The agents that use this face (opencode, Claude Code's) and their folders: one there is a user of it too. */
  readonly borrowers?: readonly { name: string; home: string }[];
}

/** A face's lock file, `<dir>/<name>`, written with the discovery file. */
export interface FaceLock {
  readonly dir: string;
  /** Its name for the port; default `<PORT>.lock`. */
  readonly fileName?: (port: number) => string;
  /** Removes the lock files of dead IDEs in `dir`; returns their names. */
  sweep(dir: string): string[];
  /** What it holds now. */
  contents(): unknown;
  /** Before a named agent's lock file is first written: folders above its home made (Amp's data home). */
  prepare?(): void;
  /**
   * Once its lock file is held (the face served): a way to write it again now with `contents()`, for a face whose
   * contents change on their own (Amp's rotated token); it returns false when the file could not be written.
   */
  rewriter?(rewrite: () => boolean): void;
}

export interface AgentFace {
  readonly agent: AgentName;
  readonly discovery: FaceDiscovery;
  readonly lock?: FaceLock;
  /** Its sessions, when it holds its own (a WebSocket, a socket of its own). */
  readonly sessions?: SessionFace;
  /** A token the companion's port takes for this agent, whose sessions are then the core's (Qwen Code's). */
  readonly portToken?: string;
  /** Starts serving once the companion listens (its socket, its router); throws, saying why, when it cannot. */
  serve?(): Promise<void>;
  /** Why it is not served now though it started (Codex CLI's router socket refused); undefined while served. */
  refusal?(): string | undefined;
  stop?(): Promise<void>;
  /** Variables the editor's terminals get while it is served. */
  terminalEnv?(): Readonly<Record<string, string>>;
  /** Where it is, for tests and tools (Codex CLI's router). */
  state?(): object;
  /** What the ends' health checks say of it. */
  health?(): HealthItem[];
}

/** One registry line: the agent and how its face is made. */
export interface FaceDefinition<S extends object = object> {
  readonly agent: AgentName;
  /** How the agent, run in another terminal of the folder, finds the companion: one clause for serve's banner ("amp there connects with --ide"). */
  readonly connectHint: string;
  /** `path`: where its discovery goes instead of the agent's own folder (tests); `settings`: the user's choices for it. */
  create(host: FaceHost, given: { path?: string | undefined; settings?: S | undefined }): AgentFace;
}
