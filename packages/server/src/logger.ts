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
