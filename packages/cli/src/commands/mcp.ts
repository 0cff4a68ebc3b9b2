/** `ide-companion mcp`: the connected editor's tools as a stdio MCP server (src/mcp/). */
import { mcpUsage, runMcp } from '../mcp/runMcp.js';
import type { Command } from './types.js';

export const mcpCommand: Command = {
  name: 'mcp',
  usage: mcpUsage(),
  run: (argv) => runMcp(argv),
};
