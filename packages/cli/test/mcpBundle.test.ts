/** The MCP server the Gemini CLI extension ships is built from the current sources. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { staleBundleReason } from '@ide-companion/testkit';
import { MCP_SERVER_BUNDLE } from '../src/mcp/build/bundle.js';

test('the committed gemini-extension/ide-companion-mcp.mjs equals a fresh build of the sources', { timeout: 120_000 }, async () => {
  const stale = await staleBundleReason(MCP_SERVER_BUNDLE, 'npx tsc -b && npm run bundle -w packages/cli');
  assert.equal(stale, undefined);
});
