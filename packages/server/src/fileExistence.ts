/**
 * Whether the files of the context exist on disk (the CLI is sent only those),
 * checked when a snapshot is taken, at most every EXISTENCE_RECHECK_MS per
 * file unless an event names it: a stat per file per cursor move was a third
 * of the companion's part of the latency.
 */
import * as fs from 'node:fs';

/** How long a file's existence on disk is trusted without an event naming it. */
export const EXISTENCE_RECHECK_MS = 1_000;

function regularFileExists(filePath: string): boolean {
  try {
    return fs.statSync(filePath).isFile();
  } catch {
    return false;
  }
}

export class FileExistence {
  /** When each file was last found on disk (or not), by `now()`. */
  private readonly known = new Map<string, { exists: boolean; checkedAt: number }>();

  constructor(
    /** How existence on disk is checked; default a stat that must find a regular file. */
    private readonly fileExists: (filePath: string) => boolean = regularFileExists,
    private readonly now: () => number = Date.now,
  ) {}

  exists(filePath: string): boolean {
    const now = this.now();
    const known = this.known.get(filePath);
    if (known && now - known.checkedAt < EXISTENCE_RECHECK_MS && now >= known.checkedAt) return known.exists;
    const exists = this.fileExists(filePath);
    this.known.set(filePath, { exists, checkedAt: now });
    return exists;
  }

  /** An event named the file (or it left the context): the next look stats it again. */
  forget(filePath: string): void {
    this.known.delete(filePath);
  }

  clear(): void {
    this.known.clear();
  }
}
