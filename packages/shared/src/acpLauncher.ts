/**
 * How an editor's terminal runs `ide-companion agent --` (docs/acp.md): the
 * hosts put it in their ready message and the ends append the ACP agent's
 * command to it, so no end builds a command line or looks for our binary.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onPath } from './onPath.js';

/** The CLI's entry, relative to the package's (or clone's) root. */
const CLI_ENTRY = path.join('packages', 'cli', 'bin', 'ide-companion.js');
/** A host sits at most this deep under the root (editors/vscode/dist/src/x.js is 4). */
const MAX_LEVELS = 6;

export interface AcpLauncher {
  /** `ide-companion agent --`: the agent's command and its arguments go after it. */
  argv?: string[];
  /** Why there is none, for the user. */
  missing?: string;
}

/**
 * The package this host runs from (a clone, or the npm package whose host the
 * plugin runs), found from `from` (the host's file) upward, run with this
 * Node (the same version as the host; `node` on `pathVar` in VS Code, whose
 * own binary is Electron's); else `ide-companion` on `pathVar`.
 */
export function acpLauncher(from: string | undefined, pathVar = process.env['PATH'] ?? ''): AcpLauncher {
  const found = (name: string) => onPath(name, { PATH: pathVar });
  const node = process.versions['electron'] ? found('node') : process.execPath;
  let dir: string | undefined;
  try {
    dir = from && path.dirname(fs.realpathSync.native(from));
  } catch {
    // A host file that is gone: PATH.
  }
  if (dir && node) {
    for (let i = 0; i < MAX_LEVELS; i++, dir = path.dirname(dir)) {
      const entry = path.join(dir, CLI_ENTRY);
      if (fs.existsSync(entry)) return { argv: [node, entry, 'agent', '--'] };
    }
  }
  const bin = found('ide-companion');
  if (bin) return { argv: [bin, 'agent', '--'] };
  return { missing: '`ide-companion` was not found on PATH: install the ide-companion package (npm install -g ide-companion) to run ACP agents' };
}
