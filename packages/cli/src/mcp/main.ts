/** Entry of the one-file MCP server the Gemini CLI extension ships (gemini-extension/ide-companion-mcp.mjs): `ide-companion mcp` without the rest of the command. */
import { runMcp } from './runMcp.js';

runMcp(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`ide-companion mcp: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 3;
  },
);
