/** `ide-companion COMMAND [ARGS]`: dispatches to one module per subcommand. */
import { VERSION } from '@ide-companion/client';
import { commandTable, EXIT, exitCodeTable, UsageError } from './commandTable.js';
import { COMMANDS } from './commands/index.js';

async function help(): Promise<string> {
  const table = await commandTable();
  const width = Math.max(...table.map((c) => c.name.length));
  const lines = table.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: ide-companion COMMAND [OPTIONS]\n\nGemini CLI's IDE integration for any editor.\n\nCommands:\n${lines.join('\n')}\n\n${exitCodeTable(table)}\n\nRun 'ide-companion help COMMAND' for a command's options.\n`;
}

/** parseArgs' own errors (unknown option, missing value) are usage errors too. */
function isUsageError(err: unknown): boolean {
  return err instanceof UsageError || String((err as NodeJS.ErrnoException)?.code ?? '').startsWith('ERR_PARSE_ARGS');
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
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.usage);
    return EXIT.OK;
  }
  try {
    return await command.run(rest);
  } catch (err) {
    // Commands map their own errors; whatever escapes is a usage error or an error (exit 3), never a crash.
    process.stderr.write(`ide-companion ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    if (!isUsageError(err)) return EXIT.ERROR;
    process.stderr.write(`\n${command.usage}`);
    return EXIT.USAGE;
  }
}
