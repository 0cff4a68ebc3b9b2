/** `ide-companion check`: the conformance suite against a running companion (src/check/). */
import { exitCodeOf, formatReport, runCheck } from '../check/index.js';
import { CHECK_SPEC, EXIT, parseCommandArgs, usageOf, UsageError } from '../commandTable.js';
import { print, printError, printJson } from '../client/output.js';
import type { Command } from './types.js';

const spec = CHECK_SPEC;
const usage = usageOf(spec);

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new UsageError(`--port must be a number from 1 to 65535, got ${JSON.stringify(value)}`);
  return port;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

async function run(argv: string[]): Promise<number> {
  // A wrong option comes with the usage; nothing to check (runCheck's UsageError) with its reason alone.
  let checking = false;
  try {
    const { values } = parseCommandArgs(spec, argv);
    const timeout = values['timeout'] === undefined ? undefined : Number(values['timeout']);
    if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) throw new UsageError(`--timeout must be a positive number of milliseconds`);
    const diffs = values['no-diffs'] !== true;
    const port = str(values['port']);
    const portNumber = port === undefined ? undefined : parsePort(port);
    checking = true;
    const report = await runCheck({
      port: portNumber,
      token: str(values['token']),
      file: str(values['file']),
      cwd: process.cwd(),
      env: process.env,
      timeouts: timeout === undefined ? undefined : { requestMs: timeout },
      diffs,
      cleanupOnSignal: true,
      // Said before anything reaches the editor: check never starts a companion, so this one is someone's editor.
      onTarget: (target) => {
        const where = `${target.ide?.displayName ?? 'the companion'} on port ${target.port}`;
        printError(
          'check',
          diffs
            ? `checking ${where}. It will open and close a few test diffs there (labelled as check's, of files in a temporary folder of its own in the workspace); --no-diffs skips them.`
            : `checking ${where} without opening any diff (--no-diffs).`,
        );
      },
    });
    const code = exitCodeOf(report);
    // What the companion under check said is in the report: cleaned, as every client command prints (client/output.ts).
    if (values['json']) printJson({ ...report, exitCode: code });
    else print(formatReport(report));
    return code;
  } catch (err) {
    if (err instanceof UsageError) {
      printError('check', err.message);
      if (!checking) process.stderr.write(`\n${usage}`);
      return EXIT.USAGE;
    }
    throw err;
  }
}

export const checkCommand: Command = {
  name: 'check',
  usage,
  run,
};
