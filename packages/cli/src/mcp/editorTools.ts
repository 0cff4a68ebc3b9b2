/**
 * The companion tools `ide-companion mcp` hands to an agent: the editor's
 * capabilities plus its workspace folders. Names, descriptions and argument
 * schemas come from @ide-companion/protocol (one source); only what an agent's
 * approval UI needs (MCP tool annotations) is added here. Never openDiff or
 * closeDiff: those belong to the CLI's own IDE connection.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  CheckDocumentDirtyTool,
  GetDiagnosticsTool,
  GetOpenEditorsTool,
  GetSelectionTool,
  GetWorkspaceFoldersTool,
  OpenFileTool,
  SaveDocumentTool,
  CAPABILITIES,
  EDITOR_ACTIONS,
} from '@ide-companion/protocol';

const readOnly: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

export const EDITOR_TOOLS = [
  { tool: GetDiagnosticsTool, annotations: readOnly },
  { tool: GetOpenEditorsTool, annotations: readOnly },
  { tool: GetSelectionTool, annotations: readOnly },
  // Moves the user's cursor, changes no file.
  { tool: OpenFileTool, annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } },
  { tool: GetWorkspaceFoldersTool, annotations: readOnly },
  { tool: CheckDocumentDirtyTool, annotations: readOnly },
  // Writes the user's own unsaved buffer to its file.
  { tool: SaveDocumentTool, annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } },
] as const;

export type EditorToolName = (typeof EDITOR_TOOLS)[number]['tool']['name'];

/**
 * Our own bound on one forwarded call: the companion bounds each editor action
 * (5 s), this covers a companion that stops answering altogether. Three
 * seconds above the longest capability, so the companion's clearer message wins.
 */
export const DEFAULT_CALL_TIMEOUT_MS = Math.max(...CAPABILITIES.map((c) => EDITOR_ACTIONS[c].timeoutMs)) + 3_000;

/** A forwarded answer larger than this (a foreign companion's) is refused rather than handed to a model. */
export const MAX_RESULT_CHARS = 2 * 1024 * 1024;
