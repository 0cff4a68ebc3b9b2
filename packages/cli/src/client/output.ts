/**
 * Shared by the client-side commands (status, context, diff, doctor, list,
 * install, check): `--json` versus text output (errors become exit codes in
 * ../runCommand.ts; the one way they build a CompanionClient is makeClient.ts). Options and exit
 * codes are in ../commandTable.ts.
 */
import { DEFAULT_INIT_TIMEOUT_MS } from '@ide-companion/client/companionClient';
import { cleanStrings, cleanText } from '@ide-companion/protocol';
import { UsageError } from '../commandTable.js';

export { EXIT, UsageError } from '../commandTable.js';
export { printError, runWithExitCodes } from '../runCommand.js';

export interface Common {
  json: boolean;
  cwd: string;
  timeoutMs: number;
}

export function common(values: Record<string, unknown>): Common {
  const raw = values['timeout'];
  const timeoutMs = raw === undefined ? DEFAULT_INIT_TIMEOUT_MS : Number(raw);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout must be a positive number of milliseconds, got ${JSON.stringify(raw)}`);
  return { json: values['json'] === true, cwd: typeof values['cwd'] === 'string' ? values['cwd'] : process.cwd(), timeoutMs };
}

// What these print comes from companions and discovery files (file names, editor messages, errors):
// control characters are removed, so no escape in them reaches the terminal (terminalText.ts).

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(cleanStrings(value), null, 2) + '\n');
}

export function printJsonLine(value: unknown): void {
  process.stdout.write(JSON.stringify(cleanStrings(value)) + '\n');
}

export function print(text: string): void {
  const clean = cleanText(text);
  process.stdout.write(clean.endsWith('\n') ? clean : clean + '\n');
}

/** `✔ text` / `✖ text` / `• text` for doctor-style lists. */
export function mark(ok: boolean | undefined, text: string): string {
  return `${ok === undefined ? '•' : ok ? '✔' : '✖'} ${text}`;
}
