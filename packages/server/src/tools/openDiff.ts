/** openDiff: shows the proposal and answers `content: []` at once; the outcome follows as a notification. */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { OpenDiffTool } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { sessionOf, toolError, type ToolEnvironment } from './toolEnvironment.js';

export function registerOpenDiff(server: McpServer, env: ToolEnvironment): void {
  server.registerTool(
    OpenDiffTool.name,
    { description: OpenDiffTool.description, inputSchema: OpenDiffTool.arguments },
    async ({ filePath, newContent }, extra) => {
      try {
        await env.diffs.open(sessionOf(extra), filePath, newContent);
        return { content: [] };
      } catch (err) {
        env.logger.warn('openDiff refused', { filePath, error: describeError(err) });
        return toolError(describeError(err));
      }
    },
  );
}
