/** getActiveFile (architecture doc): one line of text naming the active file and cursor. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { GetActiveFileTool, formatActiveFile } from '@ide-companion/protocol';
import type { ToolEnvironment } from './toolEnvironment.js';

export function registerGetActiveFile(server: McpServer, env: ToolEnvironment): void {
  server.registerTool(
    GetActiveFileTool.name,
    { description: GetActiveFileTool.description, inputSchema: GetActiveFileTool.arguments },
    async () => ({ content: [{ type: 'text' as const, text: formatActiveFile(env.context.activeFile()) }] }),
  );
}
