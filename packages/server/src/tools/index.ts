import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerCloseDiff } from './closeDiff.js';
import { registerGetActiveFile } from './getActiveFile.js';
import { registerOpenDiff } from './openDiff.js';
import type { ToolEnvironment } from './toolEnvironment.js';

export type { ToolEnvironment } from './toolEnvironment.js';

/** Registers every tool; the diff tools only when the editor can show diffs (the CLI enables diffing only if both are listed). */
export function registerTools(server: McpServer, env: ToolEnvironment): void {
  registerGetActiveFile(server, env);
  if (env.diffs.enabled) {
    registerOpenDiff(server, env);
    registerCloseDiff(server, env);
  }
}
