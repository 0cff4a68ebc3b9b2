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
import type { ToolDefinition, ToolEnvironment } from './toolDefinition.js';

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
  for (const { tool, handler } of tools) {
    server.registerTool(tool.name, { description: tool.description, inputSchema: tool.arguments }, (args: unknown, extra: { sessionId?: string }) =>
      handler(args as never, env, { sessionId: extra.sessionId ?? 'unknown-session' }),
    );
  }
}
