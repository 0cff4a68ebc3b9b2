/**
 * The discovery file: `os.tmpdir()/gemini/ide/gemini-ide-server-${PID}-${PORT}.json`.
 * Pure helpers only: callers pass in the temp dir and the path module.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';

/**
 * Why a companion does not serve an agent: the user's choice left it out, its
 * folder is not there yet (served once it appears), or what it needs was refused.
 */
export const AGENT_NOT_SERVED_REASONS = ['not chosen', 'folder missing', 'refused'] as const;
export type AgentNotServedReason = (typeof AGENT_NOT_SERVED_REASONS)[number];

export const IdeInfoSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    /** Short lowercase identifier, e.g. `neovim`. */
    name: z.string().check(z.minLength(1)),
    /** What `/ide status` shows, e.g. `Neovim`. */
    displayName: z.string().check(z.minLength(1)),
  }),
);
export type IdeInfo = z.infer<typeof IdeInfoSchema>;

export const DiscoveryFileSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    port: z.int().check(z.minimum(1), z.maximum(65535)),
    /** Every workspace root, joined by the OS path delimiter. */
    workspacePath: z.string(),
    authToken: z.string().check(z.minLength(1)),
    ideInfo: IdeInfoSchema,
    /**
     * Ours, not the spec's: the companion's Unix socket, for a CLI elsewhere
     * through the relay (docs/remote.md). The CLI ignores fields it does not know.
     */
    socketPath: z.optional(z.string().check(z.minLength(1))),
    /**
     * Ours too: the agents served (faces: gemini, qwen, claude, ...) and, for
     * each other, why not, for `list` and `doctor` (docs/agents.md).
     */
    agents: z.optional(
      z.object({
        served: z.array(z.string()),
        notServed: z.record(z.string(), z.object({ why: z.enum(AGENT_NOT_SERVED_REASONS), folder: z.optional(z.string()), detail: z.optional(z.string()) })),
      }),
    ),
  }),
);
export type DiscoveryFile = z.infer<typeof DiscoveryFileSchema>;

/**
 * The discovery file a CLI elsewhere reads (a container, --sandbox, SSH:
 * docs/remote.md): no port and no token, the relay as a stdio command, which
 * the CLI dials when a file has no port. `ideInfo` lets it in, as for any editor.
 */
export const RelayDiscoveryFileSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    workspacePath: z.string(),
    ideInfo: IdeInfoSchema,
    stdio: z.object({ command: z.string().check(z.minLength(1)), args: z.array(z.string()) }),
  }),
);
export type RelayDiscoveryFile = z.infer<typeof RelayDiscoveryFileSchema>;

/** Path segments under `os.tmpdir()`. */
export const DISCOVERY_DIR_SEGMENTS: readonly string[] = ['gemini', 'ide'];
export const DISCOVERY_FILE_PREFIX = 'gemini-ide-server-';
/** The pattern the real CLI matches (it reads the PID from group 1). */
export const DISCOVERY_FILE_PATTERN = /^gemini-ide-server-(\d+)-(\d+)\.json$/;

export interface PathJoiner {
  join(...segments: string[]): string;
}

/** `tmpdir/gemini/ide`, joined with the given path module. */
export function discoveryDir(tmpdir: string, path: PathJoiner): string {
  return path.join(tmpdir, ...DISCOVERY_DIR_SEGMENTS);
}

export function discoveryFileName(pid: number, port: number): string {
  assertPositiveInt('pid', pid);
  assertPositiveInt('port', port);
  return `${DISCOVERY_FILE_PREFIX}${pid}-${port}.json`;
}

/** `{pid, port}` for a discovery file name, or undefined for any other name. */
export function parseDiscoveryFileName(name: string): { pid: number; port: number } | undefined {
  const match = DISCOVERY_FILE_PATTERN.exec(name);
  if (!match) return undefined;
  return { pid: Number(match[1]), port: Number(match[2]) };
}

/** Joins workspace roots the way the CLI splits them. */
export function joinWorkspacePaths(roots: readonly string[], delimiter: string): string {
  return roots.join(delimiter);
}

export function splitWorkspacePath(workspacePath: string, delimiter: string): string[] {
  return workspacePath.split(delimiter).filter((p) => p.length > 0);
}

/** Parses discovery file text; throws an Error that names what is wrong. */
export function parseDiscoveryFile(text: string): DiscoveryFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`discovery file is not JSON: ${(err as Error).message}`);
  }
  const parsed = DiscoveryFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`discovery file does not match the contract: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

function assertPositiveInt(what: string, n: number): void {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer, got ${n}`);
}
