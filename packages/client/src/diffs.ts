/**
 * Pending diffs on the CLI side. `open` calls `openDiff` and returns a promise
 * of the outcome, settled by `ide/diffAccepted` / `ide/diffRejected` (or the
 * legacy `ide/diffClosed`, a rejection), by `resolveFromCli`, or with an error
 * when the connection drops: never left hanging. Diffs of one file wait for
 * each other (outcomes are matched by path); different files run at once.
 */
import * as path from 'node:path';
import { CloseDiffTool, decodeCloseDiffText, DIFF_REQUEST_TIMEOUT_MS, OpenDiffTool } from '@ide-companion/protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export type DiffOutcome = { status: 'accepted'; content: string } | { status: 'rejected' };

export class DiffError extends Error {
  override name = 'DiffError';
}

/** What the tracker needs from a connection. */
export interface ToolCaller {
  callTool(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<CallToolResult>;
}

interface Pending {
  filePath: string;
  newContent: string;
  resolve(outcome: DiffOutcome): void;
  reject(err: Error): void;
}

const keyOf = (filePath: string) => path.normalize(filePath);

function errorText(result: CallToolResult, fallback: string): string {
  const text = result.content.find((p) => p.type === 'text');
  return text && 'text' in text && typeof text.text === 'string' && text.text ? text.text : fallback;
}

export class DiffTracker {
  private readonly pending = new Map<string, Pending>();
  /** Per file: the tail of the queue of diffs waiting their turn. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly requestTimeoutMs = DIFF_REQUEST_TIMEOUT_MS) {}

  /** Paths with a diff open in the IDE right now. */
  list(): string[] {
    return [...this.pending.values()].map((p) => p.filePath);
  }

  /**
   * Opens a diff and resolves with the user's decision. `caller()` is asked for
   * the connection when the diff's turn comes (it may have been replaced by then).
   */
  open(caller: () => ToolCaller | undefined, filePath: string, newContent: string): Promise<DiffOutcome> {
    if (!path.isAbsolute(filePath)) return Promise.reject(new DiffError(`filePath must be absolute, got ${JSON.stringify(filePath)}`));
    const key = keyOf(filePath);
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = previous.then(() => this.openNow(caller(), key, filePath, newContent));
    const tail = run.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }

  private openNow(connection: ToolCaller | undefined, key: string, filePath: string, newContent: string): Promise<DiffOutcome> {
    if (!connection) return Promise.reject(new DiffError('not connected to an IDE companion'));
    return new Promise<DiffOutcome>((resolve, reject) => {
      this.pending.set(key, { filePath, newContent, resolve, reject });
      connection.callTool(OpenDiffTool.name, { filePath, newContent }, this.requestTimeoutMs).then(
        (result) => {
          if (result.isError) this.fail(key, new DiffError(errorText(result, `openDiff reported an error for ${filePath}`)));
        },
        (err: Error) => this.fail(key, new DiffError(`openDiff failed for ${filePath}: ${err.message}`)),
      );
    });
  }

  /** `ide/diffAccepted`. False when no diff of that file is pending. */
  accepted(filePath: string, content: string): boolean {
    return this.settle(keyOf(filePath), { status: 'accepted', content });
  }

  /** `ide/diffRejected` or `ide/diffClosed`. */
  rejected(filePath: string): boolean {
    return this.settle(keyOf(filePath), { status: 'rejected' });
  }

  /**
   * Closes the view with `closeDiff` and decides here, as the CLI's
   * resolveDiffFromCli does: on accept the content is the view's text (with the
   * user's edits) when the companion reports one, else the proposal.
   */
  async resolveFromCli(connection: ToolCaller | undefined, filePath: string, outcome: 'accepted' | 'rejected'): Promise<DiffOutcome | undefined> {
    const key = keyOf(filePath);
    const entry = this.pending.get(key);
    const content = await closeDiff(connection, filePath, this.requestTimeoutMs);
    if (!entry || this.pending.get(key) !== entry) return undefined;
    const result: DiffOutcome = outcome === 'accepted' ? { status: 'accepted', content: content ?? entry.newContent } : { status: 'rejected' };
    this.settle(key, result);
    return result;
  }

  /** The connection dropped: every pending diff fails with `reason`. */
  failAll(reason: string): void {
    for (const key of [...this.pending.keys()]) this.fail(key, new DiffError(reason));
  }

  private settle(key: string, outcome: DiffOutcome): boolean {
    const entry = this.pending.get(key);
    if (!entry) return false;
    this.pending.delete(key);
    entry.resolve(outcome);
    return true;
  }

  private fail(key: string, err: Error): void {
    const entry = this.pending.get(key);
    if (!entry) return;
    this.pending.delete(key);
    entry.reject(err);
  }
}

/**
 * `closeDiff` as the CLI reads it: the first text block as JSON `{"content": ...}`;
 * undefined for an error, JSON null, raw text or no connection.
 */
export async function closeDiff(connection: ToolCaller | undefined, filePath: string, timeoutMs = DIFF_REQUEST_TIMEOUT_MS): Promise<string | undefined> {
  if (!connection) return undefined;
  try {
    const result = await connection.callTool(CloseDiffTool.name, { filePath, suppressNotification: true }, timeoutMs);
    if (result.isError) return undefined;
    const text = result.content.find((p) => p.type === 'text');
    return decodeCloseDiffText(text && 'text' in text ? (text.text as string) : undefined);
  } catch {
    return undefined;
  }
}
