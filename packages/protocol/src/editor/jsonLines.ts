/**
 * The JSON-lines wire of `ide-companion bridge` (docs/editor-protocol.md): the
 * editor vocabulary, one JSON object per line, plus a handshake and
 * request/response framing for actions.
 */
import type { HostGoneWords } from './diffWords.js';
import * as z from 'zod/mini';
import { lazySchema } from '../lazySchema.js';
import { AbsolutePathSchema } from '../editorTypes.js';
import { IdeInfoSchema } from '../discovery.js';
import { AMP_EDIT_MODES } from '../amp.js';
import { CapabilitySchema, type EditorActionName, type ActionParams } from './actions.js';
import { EditorEventSchema } from './events.js';

/** This page's version; `hello.protocol`. */
export const EDITOR_PROTOCOL_VERSION = 1;

/** The editor's first line. */
export const HelloSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    type: z.literal('hello'),
    protocol: z.optional(z.int()),
    ide: z.optional(IdeInfoSchema),
    pid: z.optional(z.int().check(z.positive())),
    roots: z.optional(z.array(AbsolutePathSchema)),
    trusted: z.optional(z.boolean()),
    /** The folders the editor trusts as the user set them (Emacs 30's trusted-content): `all`, or absolute entries, a folder ending in `/`; the host decides `trusted` from them (server/workspaceTrust.ts). */
    trustedFolders: z.optional(z.union([z.literal('all'), z.array(z.string())])),
    /** Unknown names are ignored (an editor newer than its host), not refused. */
    capabilities: z.optional(z.array(z.string())),
    /** A file the host also logs to (Neovim's `:GeminiLog`). */
    logFile: z.optional(z.string().check(z.minLength(1))),
    /** The agents served, of gemini, qwen, claude, copilot, codex, amp, opencode (the user's choice; default $IDE_COMPANION_AGENTS, else all the user has). */
    agents: z.optional(z.array(z.string())),
    /** How Amp's editFile reaches the file: `review` (the diff view) or `buffer` (written under the buffer: server bufferWrites.ts); default $IDE_COMPANION_AMP_EDIT, else review. */
    ampEditFile: z.optional(z.enum(AMP_EDIT_MODES)),
  }),
);
export type Hello = z.infer<typeof HelloSchema>;

/** The editor's answer to a host request. */
export const ResponseSchema = /* @__PURE__ */ lazySchema(() =>
  z.union([
    z.object({ type: z.literal('response'), id: z.int(), result: z.unknown() }),
    z.object({ type: z.literal('response'), id: z.int(), error: z.string() }),
  ]),
);
export type Response = z.infer<typeof ResponseSchema>;

/** The editor's health check asks for the host's health lines made now; the host answers a `health` line. */
export const HealthAskSchema = /* @__PURE__ */ lazySchema(() => z.object({ type: z.literal('health') }));

/** Any line the editor may send. */
export const EditorLineSchema = /* @__PURE__ */ lazySchema(() => z.union([HelloSchema, ResponseSchema, HealthAskSchema, EditorEventSchema]));
export type EditorLine = z.infer<typeof EditorLineSchema>;

export interface Ready {
  type: 'ready';
  port: number;
  discoveryFile: string;
  workspacePath: string;
  /** GEMINI_CLI_IDE_* for the editor's terminals. */
  env: Record<string, string>;
  capabilities: z.infer<typeof CapabilitySchema>[];
  version: string;
  /** Present when a gemini started beside the editor would dial host.docker.internal: what to export (for the editor's health check). */
  containerHint?: string;
  /** Present with containerHint: `env` then carries REMOTE_CONTAINERS=1 for the editor's terminals, and this says so (containerWords.ts), shown as the agent's terminal opens. */
  containerSaid?: string;
  /** How the end's terminal runs an ACP agent: `argv` (`ide-companion agent --`, the agent's command goes after it), or why not (`missing`). */
  acp: { argv?: string[]; missing?: string };
  /** The companion's Unix socket, for gemini in a container, its --sandbox or over SSH (docs/remote.md); shown by the health check. */
  socketPath?: string;
  /** The agents served, as the user reads them ("Claude Code"); shown by the health check. */
  agents: string[];
  /** The words to show once this host is gone (diffWords.ts): the end keeps them. */
  words: HostGoneWords;
  /** The shared health report (server/healthLines.ts) as lines, made now: the end shows them in its health check; `sessions` brings them anew. */
  health: string[];
  /** The agents served and the sessions connected, in a line and in a word (sessionsWords); `sessions` brings them anew. */
  summary: string;
  label: string;
}

export type Request = { [N in EditorActionName]: { type: 'request'; id: number; action: N; params: ActionParams<N> } }[EditorActionName];

/** Any line the host may send. */
export type HostLine =
  | Ready
  | Request
  | {
      type: 'sessions';
      count: number;
      agents: string[];
      /** What to show for the change (sessionWords.ts). */
      said: string[];
      health: string[];
      summary: string;
      label: string;
    }
  | { type: 'health'; health: string[] }
  /** A line to show as it is: a host started again after a death says so (`warning`), or that it gives up (`error`, then it exits 75). */
  | { type: 'say'; level: 'warning' | 'error'; message: string }
  | { type: 'error'; message: string };
