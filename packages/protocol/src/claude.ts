/**
 * Claude Code's IDE protocol (issue 19; coder/claudecode.nvim's PROTOCOL.md,
 * confirmed against the pinned CLI, docs/agents.md): MCP JSON-RPC over a
 * WebSocket on 127.0.0.1 (subprotocol `mcp`), found through
 * `~/.claude/ide/<PORT>.lock`, its own tool names and argument shapes, and two
 * notifications to the CLI. The Claude face maps this onto the same tools.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';

export const CLAUDE_ENV = {
  /** The port a terminal's `claude` connects to first (despite the name, a WebSocket). */
  SSE_PORT: 'CLAUDE_CODE_SSE_PORT',
  ENABLE_IDE_INTEGRATION: 'ENABLE_IDE_INTEGRATION',
  /** Keeps Claude Code in an editor's terminal from installing its own editor extension beside ours. */
  SKIP_AUTO_INSTALL: 'CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL',
  /** Where Claude Code keeps its state (default ~/.claude); lock files go in its `ide` folder. */
  CONFIG_DIR: 'CLAUDE_CONFIG_DIR',
} as const;

/** The WebSocket subprotocol the CLI asks for. */
export const CLAUDE_SUBPROTOCOL = 'mcp';
/** The header carrying the lock file's token on the upgrade request. */
export const CLAUDE_AUTH_HEADER = 'x-claude-code-ide-authorization';

export const ClaudeLockFileSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    /** The IDE's PID: the CLI and we remove files whose IDE is dead. */
    pid: z.int(),
    workspaceFolders: z.array(z.string()),
    ideName: z.string(),
    transport: z.literal('ws'),
    authToken: z.string(),
    runningInWindows: z.optional(z.boolean()),
  }),
);
export type ClaudeLockFile = z.infer<typeof ClaudeLockFileSchema>;

/** openDiff's answer: the first text block says what the user did. */
export const CLAUDE_DIFF_OUTCOME = { saved: 'FILE_SAVED', rejected: 'DIFF_REJECTED', closed: 'TAB_CLOSED' } as const;

export const ClaudeOpenDiffArgumentsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    old_file_path: z.string().check(z.describe('Path of the file as it is on disk.')),
    new_file_path: z.string().check(z.describe('Path of the file the proposal is for (the same file for an edit).')),
    new_file_contents: z.string().check(z.describe('The whole proposed text.')),
    tab_name: z.string().check(z.describe('A name for the diff; close_tab takes it.')),
  }),
);
export const ClaudeTabNameArgumentsSchema = /* @__PURE__ */ lazySchema(() => z.object({ tab_name: z.string() }));
export const ClaudeFilePathArgumentsSchema = /* @__PURE__ */ lazySchema(() => z.object({ filePath: z.string() }));
export const ClaudeDiagnosticsArgumentsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ uri: z.optional(z.string().check(z.describe('A file:// URI (or a path); omitted: every file.'))) }),
);
export const ClaudeOpenFileArgumentsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    filePath: z.string(),
    preview: z.optional(z.boolean().check(z.describe('Open the file in a preview tab (where the editor has them).'))),
    startText: z.optional(z.string().check(z.describe('Text whose first occurrence is selected (from its start).'))),
    endText: z.optional(z.string().check(z.describe('Text after startText whose end ends the selection.'))),
    selectToEndOfLine: z.optional(z.boolean().check(z.describe('Extend the selection to the end of its last line.'))),
    makeFrontmost: z.optional(z.boolean().check(z.describe('Give the file the focus (default true); false answers details as JSON.'))),
    startLine: z.optional(z.int().check(z.minimum(1), z.describe('1-based first line to select.'))),
    endLine: z.optional(z.int().check(z.minimum(1), z.describe('1-based last line to select.'))),
  }),
);
export type ClaudeOpenFileArguments = z.infer<typeof ClaudeOpenFileArgumentsSchema>;
export const ClaudeNoArgumentsSchema = /* @__PURE__ */ lazySchema(() => z.object({}));

/** A 0-based position, as Claude Code counts. */
export interface ClaudePosition {
  line: number;
  character: number;
}

/** `selection_changed`: the active file and its selection, sent as the user moves. */
export interface ClaudeSelectionChanged {
  text: string;
  filePath: string;
  fileUrl: string;
  selection: { start: ClaudePosition; end: ClaudePosition; isEmpty: boolean };
}

/** `at_mentioned`: the user sends a file (and lines, 0-based) to the agent's prompt. */
export interface ClaudeAtMentioned {
  filePath: string;
  lineStart?: number;
  lineEnd?: number;
}

/** The tools Claude Code calls by name (its IDE extensions' names; opencode calls the same). */
export const CLAUDE_TOOLS = {
  openDiff: 'openDiff',
  closeTab: 'close_tab',
  closeAllDiffTabs: 'closeAllDiffTabs',
  getWorkspaceFolders: 'getWorkspaceFolders',
  getCurrentSelection: 'getCurrentSelection',
  getLatestSelection: 'getLatestSelection',
  getDiagnostics: 'getDiagnostics',
  getOpenEditors: 'getOpenEditors',
  checkDocumentDirty: 'checkDocumentDirty',
  saveDocument: 'saveDocument',
  openFile: 'openFile',
} as const;

export const CLAUDE_NOTIFICATION = { selectionChanged: 'selection_changed', atMentioned: 'at_mentioned', ideConnected: 'ide_connected' } as const;
