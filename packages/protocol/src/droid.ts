/**
 * Factory Droid's IDE protocol (issue 36), as the CLI 0.225.2 (npm
 * `@factory/cli-linux-x64`, a Bun-compiled binary; its IDE client read from
 * the JavaScript it carries and confirmed against the running CLI, see
 * docs/agents.md): MCP over Streamable HTTP at `http://localhost:PORT/mcp`,
 * no token, no Origin. The CLI finds the port in FACTORY_VSCODE_MCP_PORT, or
 * (in a VS Code terminal, or with the `ideAutoConnect` setting, or from its
 * `/ide` picker) in the name of a lock file `~/.factory/ide/<PORT>.lock`
 * whose workspace folder holds its cwd. It calls four tools of ours, takes
 * four notifications, and drops the editor when no heartbeat came for 75 s.
 * The diff is a preview: the user decides in the CLI, which then closes it
 * and writes the file itself.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';

export const DROID_ENV = {
  /** The port a terminal's `droid` connects to first, with no lock file and no setting (its VS Code extension's way). */
  MCP_PORT: 'FACTORY_VSCODE_MCP_PORT',
  /** JetBrains' port: the same MCP path, another client (getIdeDiagnostics, openDiff and closeDiff answer `{success}`). */
  JETBRAINS_MCP_PORT: 'FACTORY_JETBRAINS_MCP_PORT',
  /** `1` or `true`: the CLI starts without a Factory sign-in (airgap), taking only the custom models of its settings. */
  AIRGAP: 'FACTORY_AIRGAP_ENABLED',
  /** The CLI's Factory key: set, the user has Droid (only its presence is read, never its value). */
  API_KEY: 'FACTORY_API_KEY',
} as const;

/**
 * The variables by which the CLI believes it runs in a VS Code terminal: any
 * of them set, it reads the lock files without `ideAutoConnect` and prefers
 * the one whose ideName holds "VS Code", "Cursor" or "Windsurf".
 */
export const DROID_VSCODE_TERMINAL_ENV = [
  'TERM_PROGRAM',
  'VSCODE_PID',
  'VSCODE_CWD',
  'VSCODE_IPC_HOOK_CLI',
  'CURSOR_TRACE_ID',
  'VSCODE_GIT_ASKPASS_MAIN',
] as const;

/** The lock folder, under the home directory (os.homedir(): FACTORY_HOME_OVERRIDE does not move it). */
export const DROID_IDE_DIR = ['.factory', 'ide'] as const;
/** The settings file, under the home directory; `ideAutoConnect: true` in it reads the lock files in any terminal. */
export const DROID_SETTINGS_FILE = ['.factory', 'settings.json'] as const;
export const DROID_AUTO_CONNECT_SETTING = 'ideAutoConnect';

/** The path the CLI posts to and opens its event stream on, at `http://localhost:PORT`. */
export const DROID_MCP_PATH = '/mcp';

/**
 * What the CLI reads from `<PORT>.lock` (the port is the file's name). It
 * skips a file that is empty or not JSON, deletes one whose pid is dead
 * (kill(pid, 0) failing with ESRCH), keeps those with a workspace folder that
 * is its cwd or holds it, and takes the first (readdir order) unless its IDE
 * name says which. It tolerates a missing pid; we always write it, for the
 * sweep. Extra fields are ignored.
 */
export const DroidLockFileSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    /** The IDE's PID. */
    pid: z.int().check(z.positive()),
    /** Shown by `/ide` ("Connected to <ideName>"); lower-cased by the CLI in a VS Code terminal, so it must be a string. */
    ideName: z.string().check(z.minLength(1)),
    /** Absolute folders; the CLI connects where its cwd is one of them or under one. */
    workspaceFolders: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  }),
);
export type DroidLockFile = z.infer<typeof DroidLockFileSchema>;

/** The tools the CLI calls by name. Every other tool we list is offered to its model as a tool of its own. */
export const DROID_TOOLS = {
  /** When it asks the user to approve an edit (Create, Edit, ApplyPatch): a preview; its answer is not read. */
  openDiff: 'openDiff',
  /** Once the user approved or refused in the CLI (one call per diff opened). */
  closeDiff: 'closeDiff',
  /** After it creates a skill file (waitForSave false); its model may call it too. */
  openFile: 'openFile',
  /** 500 ms after every write (once more 500 ms later if empty), and as a tool of its model. */
  getIdeDiagnostics: 'getIdeDiagnostics',
} as const;
export type DroidToolName = (typeof DROID_TOOLS)[keyof typeof DROID_TOOLS];

/** How long the CLI waits for a tool's answer before it gives up on it. */
export const DROID_TOOL_TIMEOUT_MS = 3000;
/** ...except openFile with waitForSave: until the user saves. */
export const DROID_WAIT_FOR_SAVE_TIMEOUT_MS = 1_800_000;

export const DroidOpenDiffArgumentsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    /** Absolute. */
    filePath: z.string().check(z.minLength(1)),
    /** The whole proposed text (a new file's content for Create). */
    newContent: z.string(),
  }),
);
export const DroidCloseDiffArgumentsSchema = /* @__PURE__ */ lazySchema(() => z.object({ filePath: z.string().check(z.minLength(1)) }));
export const DroidOpenFileArgumentsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ filePath: z.string().check(z.minLength(1)), waitForSave: z.optional(z.boolean()) }),
);
export const DroidDiagnosticsArgumentsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ uri: z.string().check(z.minLength(1), z.describe('A file:// URI (the CLI sends pathToFileURL of the file).')) }),
);

/** VS Code's numbering, which the CLI reads: 0 counts as an error and 1 as a warning ("New errors detected after editing"). */
export const DROID_SEVERITY = { error: 0, warning: 1, information: 2, hint: 3 } as const;

const Position = () => z.object({ line: z.int().check(z.minimum(0)), character: z.int().check(z.minimum(0)) });
const diagnostic = () =>
  z.object({
    severity: z.int().check(z.minimum(0), z.maximum(3)),
    message: z.string(),
    source: z.optional(z.string()),
    /** 0-based. */
    range: z.object({ start: Position(), end: Position() }),
    code: z.optional(z.unknown()),
  });
export const DroidDiagnosticSchema = /* @__PURE__ */ lazySchema(diagnostic);
export type DroidDiagnostic = z.infer<typeof DroidDiagnosticSchema>;
/** getIdeDiagnostics' answer, as the JSON text of its first text block. */
export interface DroidDiagnosticsResult {
  diagnostics: DroidDiagnostic[];
}

/** The notifications the CLI takes, on the event stream of every MCP session it opened (it opens two, see below). */
export const DROID_NOTIFICATION = {
  activeFile: 'notifications/activeFile',
  diagnostics: 'notifications/diagnostics',
  openFiles: 'notifications/openFiles',
  heartbeat: 'notifications/heartbeat',
} as const;

/**
 * The CLI opens two sessions: its terminal UI's (openDiff, closeDiff; the
 * footer's "N lines selected") and its agent worker's (getIdeDiagnostics,
 * the model's tools; the "user opened the file" context of each prompt).
 * Each drops the editor after this long without a heartbeat (checked every 5 s).
 */
export const DROID_HEARTBEAT_TIMEOUT_MS = 75_000;

/** The CLI refuses a notification missing any field here (lineCount included, though it does not use it). */
export const DroidActiveFileParamsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    /** Absolute. */
    path: z.string(),
    /** The CLI shows its last path segment. */
    fileName: z.string(),
    isDirty: z.boolean(),
    lineCount: z.int(),
    /** 0-based; an empty selectedText is a cursor. */
    selection: z.object({
      startLine: z.int(),
      startCharacter: z.int(),
      endLine: z.int(),
      endCharacter: z.int(),
      selectedText: z.string(),
    }),
  }),
);
export type DroidActiveFileParams = z.infer<typeof DroidActiveFileParamsSchema>;

export const DroidDiagnosticsParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ filePath: z.string(), diagnostics: z.array(diagnostic()) }));
export type DroidDiagnosticsParams = z.infer<typeof DroidDiagnosticsParamsSchema>;

export const DroidOpenFilesParamsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ files: z.array(z.object({ path: z.string(), fileName: z.string(), isDirty: z.boolean(), languageId: z.string() })) }),
);
export type DroidOpenFilesParams = z.infer<typeof DroidOpenFilesParamsSchema>;

export const DroidHeartbeatParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ timestamp: z.number() }));
export type DroidHeartbeatParams = z.infer<typeof DroidHeartbeatParamsSchema>;
