/**
 * What an end hands `new Companion(...)`, and the defaults of what it leaves
 * out: the limits every listener and every face's sessions keep.
 */
import { MAX_MESSAGE_BYTES, type IdeInfo } from '@ide-companion/protocol';
import type { AgentName } from '@ide-companion/shared/agentPaths';
import type { ContextTrackerOptions } from './contextTracker.js';
import type { EditorActions } from './editorActions.js';
import type { FaceLimits } from './faces/agentFace.js';
import type { FaceSettings } from './faces/registry.js';
import type { Logger } from './logger.js';

/** Large enough for real files (a 32 MiB openDiff, JSON-escaped) and no larger: the cap on every wire (protocol constants). */
export const DEFAULT_MAX_BODY_BYTES = MAX_MESSAGE_BYTES;
export const DEFAULT_SESSION_GRACE_MS = 30_000;
/** Twice the MCP SDK's 1 s delay before it reopens a dropped GET stream. */
export const DEFAULT_STREAM_GRACE_MS = 2_000;
export const DEFAULT_MAX_SESSIONS = 64;
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

export interface CompanionOptions {
  /** Name and display name: `/ide status` shows the display name. */
  ideInfo: IdeInfo;
  /** Absolute workspace roots; more can be set later with `context.setRoots`. */
  workspaceRoots?: readonly string[];
  /** The editor's PID, named in the discovery file and the terminals' variables; default this process. */
  idePid?: number;
  /**
   * What the companion can ask of the editor: diffs, and the optional
   * capabilities it implements (each offered as an MCP tool). Without one,
   * only the context tools are offered.
   */
  editor?: EditorActions;
  logger?: Logger;
  /**
   * A context seed still under way when `start()` is called (serve's git
   * status): the discovery file need not wait for it, and a session whose
   * stream opens meanwhile gets its first ide/contextUpdate once the seed is
   * in (at most CONTEXT_SEED_WAIT_MS later), not an empty one first.
   */
  contextSeed?: Promise<unknown>;
  /** Workspace trust as the editor reports it; omitted from context when undefined. */
  trusted?: boolean;
  context?: ContextTrackerOptions;
  maxBodyBytes?: number;
  /** How long a session that never opened its GET stream lives without requests. */
  sessionGraceMs?: number;
  /** How long a session whose GET stream closed waits for it to reopen. */
  streamGraceMs?: number;
  /** Concurrent sessions allowed; one more initialize gets a JSON-RPC error. */
  maxSessions?: number;
  keepAliveMs?: number;
  /** How long a tool waits for the editor's answer; default each action's own timeout. For tests. */
  editorTimeoutMs?: number;
  /** Base for the discovery file's folder; default `os.tmpdir()`. For tests. */
  tmpdir?: string;
  /** Remove the discovery file on SIGINT/SIGTERM/SIGHUP (default true; an in-process extension host passes false). */
  handleSignals?: boolean;
  /**
   * Remove the discovery and lock files and the socket folder even when this
   * process is killed with -9 (default false): a small `sh` waits on a pipe
   * from it (reaper.ts). Where no editor cleans up after this process:
   * `serve`, `bridge`, VS Code's extension host, Neovim's host.
   */
  reapOnKill?: boolean;
  /**
   * Also listen on a private Unix socket (default true, not on Windows), for
   * a CLI elsewhere through the relay: docs/remote.md.
   */
  unixSocket?: boolean;
  /**
   * The agents served (default: every agent the user has; unset,
   * IDE_COMPANION_AGENTS). The core agent's face is the companion's own and
   * always on (agentChoice.ts); each other agent's is a line of faces/registry.ts.
   */
  agents?: readonly AgentName[];
  /**
   * Where each face's discovery goes instead of the agent's own folder (its
   * lock files' folder, or its socket). For tests: a path given counts
   * as the agent named, its folders made.
   */
  facePaths?: Partial<Record<AgentName, string>>;
  /** The user's choices for the faces that take some. */
  faceSettings?: FaceSettings;
}

/** The limits the core's sessions and every face's keep alike, the defaults filled in. */
export function limitsOf(options: CompanionOptions): FaceLimits {
  return {
    graceMs: options.sessionGraceMs ?? DEFAULT_SESSION_GRACE_MS,
    streamGraceMs: options.streamGraceMs ?? DEFAULT_STREAM_GRACE_MS,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  };
}
