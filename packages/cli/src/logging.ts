/** Loggers for the long-running commands (serve, bridge). The server never hands them the token or file contents. */
import type { Logger } from '@ide-companion/server';

type Level = 'debug' | 'info' | 'warn' | 'error';

function makeLogger(write: (level: Level, message: string, fields?: Record<string, unknown>) => void): Logger {
  return {
    debug: () => {},
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

/** One JSON object per line: `{time, level, message, ...fields}`. */
export function jsonLinesLogger(out: NodeJS.WritableStream): Logger {
  return makeLogger((level, message, fields) => out.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`));
}

/** For people: only warnings and errors, one line each. */
export function humanLogger(out: NodeJS.WritableStream): Logger {
  return makeLogger((level, message, fields) => {
    if (level === 'warn' || level === 'error') out.write(`ide-companion: ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`);
  });
}
