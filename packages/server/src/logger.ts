import { cleanStrings, cleanText } from '@ide-companion/protocol';

/**
 * The logger an adapter provides. Nothing logged through it may contain the
 * auth token or file contents: callers log paths, sizes, counts and ids.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** A one-line description of an unknown thrown value, without stack or payload. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

// Loggers for the long-running hosts (serve, bridge).

type Level = 'debug' | 'info' | 'warn' | 'error';

function makeLogger(write: (level: Level, message: string, fields?: Record<string, unknown>) => void): Logger {
  return {
    debug: () => {},
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

/** One JSON object per line: `{time, level, message, ...fields}`; a client's path or error text in it cleaned of control characters. */
export function jsonLinesLogger(out: NodeJS.WritableStream): Logger {
  return makeLogger((level, message, fields) => out.write(`${JSON.stringify(cleanStrings({ time: new Date().toISOString(), level, message, ...fields }))}\n`));
}

/** For people: only warnings and errors, one line each. */
export function humanLogger(out: NodeJS.WritableStream): Logger {
  return makeLogger((level, message, fields) => {
    if (level === 'warn' || level === 'error') out.write(`ide-companion: ${cleanText(message)}${fields ? ` ${JSON.stringify(cleanStrings(fields))}` : ''}\n`);
  });
}
