/** `ide-companion COMMAND [ARGS]`: dispatches to one module per subcommand. */
import { VERSION } from '@ide-companion/client';
import { commandTable, EXIT, exitCodeTable } from './commandTable.js';
import { COMMANDS } from './commands/index.js';
import { runCommand } from './runCommand.js';

async function help(): Promise<string> {
  const table = await commandTable();
  const width = Math.max(...table.map((c) => c.name.length));
  const lines = table.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: ide-companion COMMAND [OPTIONS]\n\nGemini CLI's IDE integration for any editor.\n\nCommands:\n${lines.join('\n')}\n\n${exitCodeTable(table)}\n\nRun 'ide-companion help COMMAND' for a command's options.\n`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(await help());
    return name ? EXIT.OK : EXIT.USAGE;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.OK;
  }
  if (name === 'help') {
    const entry = COMMANDS.find((c) => c.name === rest[0]);
    process.stdout.write(entry ? (await entry.load()).usage : await help());
    return entry || rest.length === 0 ? EXIT.OK : EXIT.USAGE;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`ide-companion: unknown command '${name}'\n\n${await help()}`);
    return EXIT.USAGE;
  }
  return runCommand(name, await entry.load(), rest);
}
