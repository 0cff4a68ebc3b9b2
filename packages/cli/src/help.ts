/**
 * What `ide-companion` answers without running a command: `--help`, `help
 * [COMMAND]`, `--version`, and an unknown command. Specs only: nothing here
 * loads a command's code.
 */
import { exitCodeTable, EXIT, nearestName, usageOf } from './commandTable.js';
import { COMMANDS } from './commands/index.js';
import { VERSION } from '@ide-companion/client/version';
// Its own module, not the protocol's index: help starts without zod.
import { cleanText } from '@ide-companion/protocol/terminalText';
import { AGENTS, servedAgentNames } from '@ide-companion/shared/agentPaths';

function help(): string {
  const table = COMMANDS.map((c) => c.spec);
  const width = Math.max(...table.map((c) => c.name.length));
  const lines = table.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: ide-companion COMMAND [OPTIONS]\n\nAn IDE mode for terminal coding agents (${servedAgentNames(AGENTS).join(', ')})\nin any editor: Neovim, Vim, Emacs, VS Code, or serve.\n\nCommands:\n${lines.join('\n')}\n\n${exitCodeTable(table)}\n\nRun 'ide-companion help COMMAND' for a command's options.\n`;
}

/** "; did you mean 'ide-companion BEFORE NAME'?" for the command whose name is nearest `name`; '' when none is near. */
function didYouMean(name: string, before = ''): string {
  const meant = nearestName(
    name,
    COMMANDS.map((c) => c.name),
  );
  return meant ? `; did you mean 'ide-companion ${before}${meant}'?` : '';
}

export async function helpMain(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(help());
    return name ? EXIT.OK : EXIT.USAGE;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.OK;
  }
  if (name === 'help') {
    const entry = COMMANDS.find((c) => c.name === rest[0]);
    if (!entry && rest.length > 0) {
      // `help instal`: the near miss named, as for `ide-companion instal`.
      process.stderr.write(`ide-companion: no command '${cleanText(rest[0]!)}'${didYouMean(rest[0]!, 'help ')} ('ide-companion --help' lists them)\n`);
      return EXIT.USAGE;
    }
    process.stdout.write(entry ? usageOf(entry.spec) : help());
    return EXIT.OK;
  }
  // A near miss gets one line, not the whole help.
  const meant = didYouMean(name);
  if (meant) {
    process.stderr.write(`ide-companion: unknown command '${cleanText(name)}'${meant} ('ide-companion --help' lists them)\n`);
    return EXIT.USAGE;
  }
  process.stderr.write(`ide-companion: unknown command '${cleanText(name)}'\n\n${help()}`);
  return EXIT.USAGE;
}
