/**
 * The host's Logger: JSON lines appended to a file (stdout is the RPC channel,
 * and Neovim shows a job's stderr only if the plugin asks). Callers log paths,
 * sizes and ids, never the token or file contents (see server/logger.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from '@ide-companion/server/logger';

type Level = 'debug' | 'info' | 'warn' | 'error';

export class FileLogger implements Logger {
  private fd: number | undefined;

  /** `file` undefined: warnings and errors go to stderr, the rest nowhere. */
  constructor(file?: string) {
    if (file) this.open(file);
  }

  /** Switches to `file`; on failure keeps logging to stderr and says why there. */
  open(file: string): void {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const fd = fs.openSync(file, 'a', 0o600);
      if (this.fd !== undefined) fs.closeSync(this.fd);
      this.fd = fd;
    } catch (err) {
      process.stderr.write(`ide-companion: cannot open log file ${file}: ${(err as Error).message}\n`);
    }
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write('debug', message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.write('info', message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('warn', message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.write('error', message, fields);
  }

  private write(level: Level, message: string, fields?: Record<string, unknown>): void {
    const line = JSON.stringify({ time: new Date().toISOString(), level, pid: process.pid, message, ...fields }) + '\n';
    if (this.fd !== undefined) {
      try {
        fs.writeSync(this.fd, line);
        return;
      } catch {
        // Disk full or the file went away: fall through to stderr.
      }
    }
    if (level === 'warn' || level === 'error') process.stderr.write(line);
  }
}
