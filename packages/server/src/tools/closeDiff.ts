/**
 * closeDiff: closes the view, never notifies, and answers JSON
 * `{"content": "..."}` with the proposal as edited: the form the real CLI
 * parses (raw text would silently drop the user's edits).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CloseDiffTool, encodeCloseDiffText } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { sessionOf, toolError, type ToolEnvironment } from './toolEnvironment.js';

export function registerCloseDiff(server: McpServer, env: ToolEnvironment): void {
  server.registerTool(
    CloseDiffTool.name,
    { description: CloseDiffTool.description, inputSchema: CloseDiffTool.arguments },
    async ({ filePath }, extra) => {
      try {
        const content = await env.diffs.close(sessionOf(extra), filePath);
        if (content === undefined) return toolError(`No diff is open for ${filePath} in this session.`);
        return { content: [{ type: 'text' as const, text: encodeCloseDiffText(content) }] };
      } catch (err) {
        return toolError(`Could not close the diff for ${filePath}: ${describeError(err)}`);
      }
    },
  );
}
