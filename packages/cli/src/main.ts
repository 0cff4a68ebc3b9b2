/** `ide-companion COMMAND [ARGS]`: runs one command, loaded from its own module; anything else is help.ts's. */
import { COMMANDS, loadCommand } from './commands/index.js';
import { helpMain } from './help.js';
import { runCommand } from './runCommand.js';

export async function main(argv: string[]): Promise<number> {
  const entry = COMMANDS.find((c) => c.name === argv[0]);
  if (!entry) return helpMain(argv);
  return runCommand(entry.name, await loadCommand(entry), argv.slice(1));
}
