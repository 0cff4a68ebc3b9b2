/**
 * The bundled JSON-lines host (host/ide-companion-bridge.mjs): what Vim and
 * Emacs plugins start with `node`, so their users need Node and nothing else.
 * The same as `ide-companion bridge`.
 */
import { bridgeCommand } from './bridgeCommand.js';

const MIN_NODE_MAJOR = 20;
if (Number(process.versions.node.split('.')[0]) < MIN_NODE_MAJOR) {
  process.stderr.write(`ide-companion needs Node.js >= ${MIN_NODE_MAJOR}; this is ${process.version}\n`);
  process.exit(2);
}
process.exitCode = await bridgeCommand.run(process.argv.slice(2));
