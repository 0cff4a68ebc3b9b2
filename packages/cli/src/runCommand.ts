/**
 * How a command's outcome becomes an exit code, in one place: `ide-companion
 * NAME ARGS` runs each command through runCommand (--help, errors), and a
 * command body that maps its own errors first runs through runWithExitCodes.
 */
import { EXIT, UsageError } from '@ide-companion/command/commandSpec';
// Its own module, not the protocol's index: main.ts (help and every command) starts without zod.
import { cleanText } from '@ide-companion/protocol/terminalText';
import type { Command } from './commands/types.js';

/** `ide-companion NAME: message`, without control characters: a message may echo an argument, a path or a companion's words. */
export function printError(command: string, message: string): void {
  process.stderr.write(`ide-companion ${command}: ${cleanText(message)}\n`);
}

/** parseArgs' own errors (unknown option, missing value) are usage errors too. */
function isUsageError(err: unknown): boolean {
  return err instanceof UsageError || String((err as NodeJS.ErrnoException)?.code ?? '').startsWith('ERR_PARSE_ARGS');
}

/** Runs `body`; whatever escapes is a usage error (exit 2, with the usage) or an error (exit 3), never a crash. */
export async function runWithExitCodes(name: string, usage: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    printError(name, err instanceof Error ? err.message : String(err));
    if (!isUsageError(err)) return EXIT.ERROR;
    process.stderr.write(`\n${usage}`);
    return EXIT.USAGE;
  }
}

/** Runs one loaded command as `ide-companion NAME ARGS` does: --help, errors to exit codes. */
export async function runCommand(name: string, command: Command, rest: string[]): Promise<number> {
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.usage);
    return EXIT.OK;
  }
  return runWithExitCodes(name, command.usage, () => command.run(rest));
}
