#!/usr/bin/env node
// Writes gemini-extension/ide-companion-mcp.mjs from the sources. Run after `npx tsc -b` (it imports the compiled build module).
import { writeHostBundle } from '@ide-companion/testkit';
import { MCP_SERVER_BUNDLE } from '../dist/src/mcp/build/bundle.js';

const bytes = await writeHostBundle(MCP_SERVER_BUNDLE);
console.log(`wrote ${MCP_SERVER_BUNDLE.outfile} (${bytes} bytes)`);
