/**
 * `ide-companion mcp` in one file (gemini-extension/ide-companion-mcp.mjs): the
 * Gemini CLI extension runs it with node, and the `ide-companion` bin imports
 * it for `mcp` (an agent starts it at every session: one bundle starts in half
 * the time of the workspaces' modules; docs/benchmarks.md).
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { mcpCommand } from '../commands/mcp.js';
import { runCommand } from '../runCommand.js';

export function mcp(argv: string[]): Promise<number> {
  return runCommand('mcp', mcpCommand, argv);
}

/** Whether node was started on this file (the extension; through a linked folder too), not the bin importing it. */
function isMainModule(): boolean {
  try {
    return !!process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMainModule()) {
  mcp(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`ide-companion mcp: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 3;
    },
  );
}
