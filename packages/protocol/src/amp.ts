/**
 * Amp's IDE protocol (issue 31), as the CLI `@ampcode/cli`
 * 0.0.1790142911-g7618fb speaks it (its IDE client read from the JavaScript
 * its Bun-compiled binary carries; sourcegraph/amp.nvim serves the same):
 * the editor writes `<$XDG_DATA_HOME or ~/.local/share>/amp/ide/<PORT>.json`
 * and hosts a WebSocket the CLI opens as `ws://localhost:PORT?auth=TOKEN`.
 * Each text frame is one JSON envelope: the CLI sends `{clientRequest: {id,
 * <method>: {...}}}` (ids "1", "2", ...; only ping, getDiagnostics and
 * openURI), the editor answers `{serverResponse: {id, <method>: {...}}}` (or
 * `{serverResponse: {id, error: {code, message}}}`) and tells
 * `{serverNotification: {<name>: {...}}}`, one per envelope.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';

export const AMP_ENV = {
  /** amp.nvim's override of the data folder (tests, debugging): the lock files go in `<it>/amp/ide`. */
  DATA_HOME: 'AMP_DATA_HOME',
  /** Linux's data folder, read when AMP_DATA_HOME is unset. */
  XDG_DATA_HOME: 'XDG_DATA_HOME',
  /** The CLI's access token: set, the user has Amp (only its presence is read, never its value). */
  API_KEY: 'AMP_API_KEY',
} as const;

/**
 * How Amp's `editFile` reaches the file, the user's choice (the companion's
 * `ampEditFile` option, else this variable): `review` (the default) opens the
 * diff view and answers once the user decides; `buffer` writes under the
 * editor's buffer as one change the user can undo (amp.nvim's way), where the
 * editor can (server/src/bufferWrites.ts; elsewhere: review).
 */
export const AMP_EDIT_ENV = 'IDE_COMPANION_AMP_EDIT';
export const AMP_EDIT_MODES = ['review', 'buffer'] as const;
export type AmpEditMode = (typeof AMP_EDIT_MODES)[number];

/** The query parameter carrying the lock file's token on the upgrade request. */
export const AMP_AUTH_QUERY = 'auth';
/** amp.nvim refuses tokens outside these lengths before comparing: so do we. */
export const AMP_TOKEN_LENGTH = { min: 10, max: 500 } as const;

export const AmpLockFileSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    port: z.int(),
    authToken: z.string(),
    /** The IDE's PID: we sweep files whose IDE is dead. */
    pid: z.int(),
    workspaceFolders: z.array(z.string()),
    ideName: z.string(),
    /** The CLI's: absent means "ws" (ours); "query" is its own for editors it reads through their state files. */
    connection: z.optional(z.enum(['ws', 'query'])),
  }),
);
export type AmpLockFile = z.infer<typeof AmpLockFileSchema>;

/**
 * The requests answered, by the key that names each inside `clientRequest`:
 * the CLI sends ping, getDiagnostics and openURI; authenticate, readFile and
 * editFile are amp.nvim's.
 */
export const AMP_REQUESTS = ['ping', 'authenticate', 'readFile', 'editFile', 'getDiagnostics', 'openURI'] as const;
export type AmpRequestName = (typeof AMP_REQUESTS)[number];
/** Each request's key by name, for code that sends or names one. */
export const AMP_REQUEST = {
  ping: 'ping',
  authenticate: 'authenticate',
  readFile: 'readFile',
  editFile: 'editFile',
  getDiagnostics: 'getDiagnostics',
  openURI: 'openURI',
} as const satisfies { [K in AmpRequestName]: K };

export const AmpRequestParamsSchemas = {
  ping: /* @__PURE__ */ lazySchema(() => z.object({ message: z.optional(z.string()) })),
  authenticate: /* @__PURE__ */ lazySchema(() => z.object({})),
  readFile: /* @__PURE__ */ lazySchema(() => z.object({ path: z.string().check(z.minLength(1)) })),
  editFile: /* @__PURE__ */ lazySchema(() => z.object({ path: z.string().check(z.minLength(1)), fullContent: z.string() })),
  getDiagnostics: /* @__PURE__ */ lazySchema(() => z.object({ path: z.string().check(z.minLength(1)) })),
  openURI: /* @__PURE__ */ lazySchema(() => z.object({ uri: z.string().check(z.minLength(1)) })),
} as const;

/** The envelope's id: amp.nvim echoes whatever came (a string or a number). */
export const AmpIdSchema = /* @__PURE__ */ lazySchema(() => z.union([z.string(), z.number()]));
export type AmpId = z.infer<typeof AmpIdSchema>;

/** JSON-RPC's codes, as amp.nvim answers a request it cannot take. */
export const AMP_ERROR = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602 } as const;
export interface AmpError {
  code: number;
  message: string;
  data?: string;
}

/** 0-based, as the CLI counts. */
export interface AmpRange {
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
}

export interface AmpReadFileResult {
  success: boolean;
  content?: string;
  encoding?: 'utf-8';
  message?: string;
}

export interface AmpEditFileResult {
  success: boolean;
  message: string;
  appliedChanges?: boolean;
}

export interface AmpDiagnostic {
  range: AmpRange;
  severity: 'error' | 'warning' | 'info' | 'hint';
  description: string;
  lineContent: string;
  startOffset: number;
  endOffset: number;
}

export interface AmpDiagnosticsResult {
  entries: Array<{ uri: string; diagnostics: AmpDiagnostic[] }>;
}

export interface AmpOpenUriResult {
  success: boolean;
  message: string;
}

/** What the editor tells the CLI unasked, each inside `serverNotification`. */
export const AMP_NOTIFICATION = {
  selectionDidChange: 'selectionDidChange',
  visibleFilesDidChange: 'visibleFilesDidChange',
  appendToPrompt: 'appendToPrompt',
  pluginMetadata: 'pluginMetadata',
} as const;

export interface AmpSelectionDidChange {
  uri: string;
  selections: Array<{ range: AmpRange; content: string }>;
}

export interface AmpVisibleFilesDidChange {
  uris: string[];
}

export interface AmpAppendToPrompt {
  message: string;
}
