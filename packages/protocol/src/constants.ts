/**
 * Numbers and names fixed by the contract (spec/ide-companion-spec.md) and by
 * the real Gemini CLI (interop-notes.md). One place, imported by both ends.
 */

/** The CLI keeps at most this many open files (newest first). */
export const MAX_OPEN_FILES = 10;
/** The CLI cuts `selectedText` to this many UTF-16 code units (16 KiB). */
export const MAX_SELECTED_TEXT_LENGTH = 16384;
/** The marker the CLI appends when it cuts `selectedText`. */
export const SELECTED_TEXT_TRUNCATION_MARKER = '... [TRUNCATED]';
/** Recommended coalescing window for `ide/contextUpdate`. */
export const CONTEXT_DEBOUNCE_MS = 50;
/** The CLI's timeout for `openDiff` / `closeDiff` requests. */
export const DIFF_REQUEST_TIMEOUT_MS = 10 * 60 * 1000;

/** The single MCP endpoint a companion serves. */
export const MCP_ENDPOINT_PATH = '/mcp';
/** Only loopback: the companion binds here and the CLI dials here. */
export const LOOPBACK_HOST = '127.0.0.1';
/** The hostname the CLI dials from inside a container (unless SSH / dev container). */
export const CONTAINER_HOST = 'host.docker.internal';
/** Well-known ports from the architecture doc; only tried with a token. */
export const WELL_KNOWN_PORTS: readonly number[] = [58767, 3000, 8080];

/** Environment variables a companion sets in its integrated terminals, and the CLI reads. */
export const ENV = {
  /** Port of the companion's MCP server; also the tie-break between discovery files. */
  SERVER_PORT: 'GEMINI_CLI_IDE_SERVER_PORT',
  /** Workspace roots, joined by the OS path delimiter. */
  WORKSPACE_PATH: 'GEMINI_CLI_IDE_WORKSPACE_PATH',
  /** Bearer token, used when no discovery file is found. */
  AUTH_TOKEN: 'GEMINI_CLI_IDE_AUTH_TOKEN',
  /** PID of the IDE: spares the CLI its process-tree walk. */
  IDE_PID: 'GEMINI_CLI_IDE_PID',
  /** A stdio companion: command to spawn. */
  STDIO_COMMAND: 'GEMINI_CLI_IDE_SERVER_STDIO_COMMAND',
  /** A stdio companion: JSON array of arguments. */
  STDIO_ARGS: 'GEMINI_CLI_IDE_SERVER_STDIO_ARGS',
} as const;

/** Environment variables the real CLI reads to decide it runs in a dev container / over SSH. */
export const CONTAINER_ENV = {
  SSH_CONNECTION: 'SSH_CONNECTION',
  REMOTE_CONTAINERS: 'REMOTE_CONTAINERS',
  VSCODE_REMOTE_CONTAINERS_SESSION: 'VSCODE_REMOTE_CONTAINERS_SESSION',
} as const;

/** Files whose existence tells the CLI it runs in a container. */
export const CONTAINER_MARKER_FILES: readonly string[] = ['/.dockerenv', '/run/.containerenv'];

/**
 * Zod's parse options for a schema checked once or rarely (a discovery file,
 * ideInfo, a handshake): without its eval-compiled fast path, which costs
 * milliseconds to build per schema in a fresh process and pays off only over
 * many parses. Same checks, same results.
 */
export const PARSE_ONCE = { jitless: true } as const;

/**
 * The largest message any of our readers takes, on every wire (an HTTP body,
 * a WebSocket frame, a JSON line on stdio, a msgpack message from Neovim):
 * a diff of tens of MiB, JSON-escaped, fits; a larger one is answered with an
 * error and the reader goes on with the next message.
 */
export const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;
