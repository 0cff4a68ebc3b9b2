/** `ide-companion check`: the conformance suite against a running companion (src/check/). */
import { parseArgs } from 'node:util';
import { exitCodeOf, formatReport, runCheck, UsageError } from '../check/index.js';
import type { Command } from './types.js';

const usage = `Usage: ide-companion check [--port P --token T | --file F] [--json] [--timeout MS]

Runs the conformance suite against a running Gemini CLI companion (ours or
any other: the VS Code extension, community plugins) and reports each
requirement as pass, fail, warn or skip with a one-line reason.

Without options it checks the companion the Gemini CLI would choose for the
current directory. It opens and closes a few diffs of files in a fresh
temporary directory; it never touches your files.

Options:
  --port P      the companion's port (with --token; the token is also read
                from a discovery file naming that port)
  --token T     its bearer token
  --file F      a discovery file: checked, and port and token taken from it
  --json        print the report as JSON
  --timeout MS  time allowed for each request (default 10000)

Exit status: 0 nothing failed, 1 something failed, 2 usage error or the
companion could not be reached.
`;

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new UsageError(`--port must be a number from 1 to 65535, got ${JSON.stringify(value)}`);
  return port;
}

async function run(argv: string[]): Promise<number> {
  let values: { port?: string; token?: string; file?: string; json?: boolean; timeout?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        token: { type: 'string' },
        file: { type: 'string' },
        json: { type: 'boolean' },
        timeout: { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    process.stderr.write(`ide-companion check: ${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  try {
    const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
    if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) throw new UsageError(`--timeout must be a positive number of milliseconds`);
    const report = await runCheck({
      port: values.port === undefined ? undefined : parsePort(values.port),
      token: values.token,
      file: values.file,
      cwd: process.cwd(),
      env: process.env,
      timeouts: timeout === undefined ? undefined : { requestMs: timeout },
      cleanupOnSignal: true,
    });
    const code = exitCodeOf(report);
    process.stdout.write(values.json ? `${JSON.stringify({ ...report, exitCode: code }, null, 2)}\n` : formatReport(report));
    return code;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`ide-companion check: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

export const checkCommand: Command = {
  name: 'check',
  usage,
  run,
};
