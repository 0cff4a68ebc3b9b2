/** The companion's tools, registered from one list: each session's McpServer gets those the editor can serve. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Capability } from '@ide-companion/protocol';
import { checkDocumentDirty } from './checkDocumentDirty.js';
import { closeDiff } from './closeDiff.js';
import { getActiveFile } from './getActiveFile.js';
import { getDiagnostics } from './getDiagnostics.js';
import { getOpenEditors } from './getOpenEditors.js';
import { getSelection } from './getSelection.js';
import { getWorkspaceFolders } from './getWorkspaceFolders.js';
import { openDiff } from './openDiff.js';
import { openFile } from './openFile.js';
import { saveDocument } from './saveDocument.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolError, type ToolCall, type ToolDefinition, type ToolEnvironment } from './toolDefinition.js';
import { controlCharacterRefusal, withToolPath } from './workspacePaths.js';

export type { ToolEnvironment } from './toolDefinition.js';

export const TOOLS: readonly ToolDefinition[] = [
  openDiff,
  closeDiff,
  getActiveFile,
  getWorkspaceFolders,
  getDiagnostics,
  getOpenEditors,
  getSelection,
  openFile,
  checkDocumentDirty,
  saveDocument,
];

/** Which tools this editor can serve: diff tools with any editor (the CLI enables diffing only if both are listed), the rest by capability. */
export function availableTools(hasEditor: boolean, capabilities: readonly Capability[]): ToolDefinition[] {
  return TOOLS.filter((t) => t.requires === undefined || (t.requires === 'diffs' ? hasEditor : capabilities.includes(t.requires)));
}

export function registerTools(server: McpServer, tools: readonly ToolDefinition[], env: ToolEnvironment): void {
  for (const definition of tools) {
    const { tool } = definition;
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.arguments },
      (args: unknown, extra: { sessionId?: string; _meta?: Record<string, unknown> }) =>
        runTool(definition, args, env, { sessionId: extra.sessionId ?? 'unknown-session', ...(extra._meta && { meta: extra._meta }) }),
    );
  }
}

/** Calls one tool with arguments its schema accepted: every caller (MCP, an agent's face) passes the same path check. */
export function runTool(definition: ToolDefinition, args: unknown, env: ToolEnvironment, call: ToolCall): Promise<CallToolResult> {
  const control = controlCharacterRefusal(definition.tool.name, args, definition.tool.paths.arguments);
  if (control) return Promise.resolve(toolError(control.message));
  // The path is resolved here, in the same turn as the handler's call to the editor: nothing runs between check and hand-off.
  const checked = definition.path ? withToolPath(definition.tool.name, args, env.context.getRoots(), definition.path) : { args };
  if (checked instanceof Error) return Promise.resolve(toolError(checked.message));
  return definition.handler(checked.args as never, env, { ...call, ...('checked' in checked && { checked: checked.checked }) });
}
