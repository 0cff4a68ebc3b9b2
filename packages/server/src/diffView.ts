/**
 * The editor side of a diff: what an adapter implements to show proposals.
 * The adapter reports the user's decision with `companion.diffs.accept(id, text)`
 * or `companion.diffs.reject(id)`; the companion calls `close` only for
 * closes the user did not ask for (closeDiff, a replacing openDiff, the CLI
 * session going away, stop).
 */
export interface PendingDiff {
  /** Unique per openDiff call. */
  readonly id: string;
  /** The path exactly as the CLI sent it; outcomes must echo it unchanged. */
  readonly filePath: string;
  /** The whole proposed file. */
  readonly newContent: string;
  /** The CLI session that asked, which alone hears the outcome. */
  readonly sessionId: string;
  readonly openedAt: number;
}

export type DiffCloseReason = 'closedByCli' | 'replaced' | 'sessionClosed' | 'companionStopped';

export interface DiffView {
  /** Shows the diff. Throwing (or rejecting) makes openDiff answer isError with the message. */
  show(diff: PendingDiff): void | Promise<void>;
  /** The proposal as the user has edited it so far; undefined means unchanged. */
  currentText?(diff: PendingDiff): string | undefined | Promise<string | undefined>;
  /** Closes the view without an outcome. */
  close(diff: PendingDiff, reason: DiffCloseReason): void | Promise<void>;
}
