#!/usr/bin/env node
// The limit for `ide-companion mcp`'s start (bench/command-start.mjs): the smallest stdio MCP
// server the same SDK makes, one tool, from the repository's node_modules.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'minimal', version: '1.0.0' });
server.registerTool('ping', { description: 'answers pong' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
await server.connect(new StdioServerTransport());
