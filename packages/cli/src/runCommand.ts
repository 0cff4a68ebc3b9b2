/** Runs one loaded command as `ide-companion NAME ARGS` does: --help, errors to exit codes. */
import { EXIT, UsageError } from '@ide-companion/server/commandSpec';
import type { Command } from './commands/types.js';

/** parseArgs' own errors (unknown option, missing value) are usage errors too. */
function isUsageError(err: unknown): boolean {
  return err instanceof UsageError || String((err as NodeJS.ErrnoException)?.code ?? '').startsWith('ERR_PARSE_ARGS');
}

export async function runCommand(name: string, command: Command, rest: string[]): Promise<number> {
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
