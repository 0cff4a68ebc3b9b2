/** `ide-companion COMMAND [ARGS]`: dispatches to one module per subcommand. */
import { COMMANDS } from './commands/index.js';

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: ide-companion COMMAND [OPTIONS]\n\nGemini CLI's IDE integration for any editor.\n\nCommands:\n${lines.join('\n')}\n\nRun 'ide-companion help COMMAND' for a command's options.\n`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(help());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write('0.1.0\n');
    return 0;
  }
  if (name === 'help') {
    const entry = COMMANDS.find((c) => c.name === rest[0]);
    process.stdout.write(entry ? (await entry.load()).usage : help());
    return entry || rest.length === 0 ? 0 : 2;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(`ide-companion: unknown command '${name}'\n\n${help()}`);
    return 2;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.usage);
    return 0;
  }
  return command.run(rest);
}
