/**
 * Pending diffs, one per file, and their outcomes.
 *
 * Who hears an outcome: only the CLI session that opened the diff. The CLI
 * matches outcomes by file path alone, so broadcasting would settle another
 * session's unrelated diff of the same file.
 *
 * A second openDiff for a file from the same agent replaces the first (a
 * restarted CLI's old session may linger): the first view closes and its
 * session hears ide/diffRejected (its file stays unchanged, and its CLI
 * would otherwise wait forever: the CLI has no timeout on outcomes). From
 * another agent it is refused: the proposal before the user stands.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { DiffAcceptedNotification, DiffRejectedNotification, type CompanionNotification } from '@ide-companion/protocol';
import type { DiffCloseReason, EditorActions, PendingDiff } from './editorActions.js';
import { readOriginal } from './readOriginal.js';
import { describeError, type Logger } from './logger.js';

export type Notify = (sessionId: string, notification: CompanionNotification) => void;

export class DiffError extends Error {
  override name = 'DiffError';
}

/** Diffs are keyed by normalized path so `/a/./b` and `/a/b` are one file. */
function keyOf(filePath: string): string {
  return path.normalize(filePath);
}

export class DiffCoordinator {
  private readonly byKey = new Map<string, PendingDiff>();

  constructor(
    private readonly editor: EditorActions | undefined,
    private readonly notify: Notify,
    private readonly logger: Logger,
    /** Largest file read to show beside a proposal. */
    private readonly maxOriginalBytes: number,
  ) {}

  get enabled(): boolean {
    return this.editor !== undefined;
  }

  /**
   * Opens a diff for `sessionId` (`agent`: who proposed it, as the user reads
   * it). Throws DiffError with a message for the CLI.
   */
  async open(sessionId: string, filePath: string, newContent: string, agent = 'Gemini CLI'): Promise<PendingDiff> {
    if (!this.editor) throw new DiffError('this companion does not show diffs');
    if (!path.isAbsolute(filePath)) throw new DiffError(`filePath must be an absolute path, got ${JSON.stringify(filePath)}`);
    let originalContent: string | undefined;
    try {
      originalContent = await readOriginal(filePath, this.maxOriginalBytes);
    } catch (err) {
      throw new DiffError(`could not read ${filePath}: ${describeError(err)}`);
    }
    const key = keyOf(filePath);
    const previous = this.byKey.get(key);
    if (previous && previous.agent !== agent) {
      // Another agent's proposal for this file is before the user: theirs stands, this one is refused (issue 19).
      throw new DiffError(
        `${filePath} already has a proposed change open for review (from ${previous.agent}); try again once the user has accepted or rejected it`,
      );
    }
    if (previous) {
      this.byKey.delete(key);
      await this.closeView(previous, 'replaced');
      this.notify(previous.sessionId, { method: DiffRejectedNotification.method, params: { filePath: previous.filePath } });
    }
    const diff: PendingDiff = { id: randomUUID(), filePath, newContent, originalContent, sessionId, agent, openedAt: Date.now() };
    this.byKey.set(key, diff);
    try {
      await this.editor.showDiff(diff);
    } catch (err) {
      if (this.byKey.get(key) === diff) this.byKey.delete(key);
      throw new DiffError(`could not show the diff for ${filePath}: ${describeError(err)}`);
    }
    this.logger.info('diff opened', { filePath, bytes: Buffer.byteLength(newContent), session: sessionId });
    return diff;
  }

  /** The user accepted; `content` is their final text (the proposal if omitted). False if no longer pending. */
  accept(id: string, content?: string): boolean {
    const diff = this.take(id);
    if (!diff) return false;
    const finalContent = content ?? diff.newContent;
    this.notify(diff.sessionId, { method: DiffAcceptedNotification.method, params: { filePath: diff.filePath, content: finalContent } });
    this.logger.info('diff accepted', { filePath: diff.filePath, edited: finalContent !== diff.newContent });
    return true;
  }

  /** The user rejected. False if no longer pending. */
  reject(id: string): boolean {
    const diff = this.take(id);
    if (!diff) return false;
    this.notify(diff.sessionId, { method: DiffRejectedNotification.method, params: { filePath: diff.filePath } });
    this.logger.info('diff rejected', { filePath: diff.filePath });
    return true;
  }

  /**
   * closeDiff: closes the session's diff of `filePath` without a notification
   * and returns the proposal as it stands (edits included). Undefined when the
   * session has no diff open for that file.
   */
  async close(sessionId: string, filePath: string): Promise<string | undefined> {
    const key = keyOf(filePath);
    const diff = this.byKey.get(key);
    if (!diff || diff.sessionId !== sessionId) return undefined;
    // Taken before any await: a user's accept racing this close finds nothing and is a no-op.
    this.byKey.delete(key);
    let text: string | undefined;
    try {
      text = await this.editor?.diffText(diff);
    } catch (err) {
      this.logger.warn('could not read the edited proposal; answering with the original proposal', {
        filePath,
        error: describeError(err),
      });
    }
    await this.closeView(diff, 'closedByCli');
    return text ?? diff.newContent;
  }

  /** The session went away: its diffs close; nobody is left to hear an outcome. */
  async sessionClosed(sessionId: string): Promise<void> {
    await this.closeWhere((d) => d.sessionId === sessionId, 'sessionClosed');
  }

  async closeAll(): Promise<void> {
    await this.closeWhere(() => true, 'companionStopped');
  }

  get(id: string): PendingDiff | undefined {
    for (const diff of this.byKey.values()) if (diff.id === id) return diff;
    return undefined;
  }

  forFile(filePath: string): PendingDiff | undefined {
    return this.byKey.get(keyOf(filePath));
  }

  list(): PendingDiff[] {
    return [...this.byKey.values()];
  }

  private take(id: string): PendingDiff | undefined {
    const diff = this.get(id);
    if (diff) this.byKey.delete(keyOf(diff.filePath));
    return diff;
  }

  private async closeWhere(match: (diff: PendingDiff) => boolean, reason: DiffCloseReason): Promise<void> {
    const doomed = [...this.byKey.entries()].filter(([, d]) => match(d));
    for (const [key] of doomed) this.byKey.delete(key);
    for (const [, diff] of doomed) await this.closeView(diff, reason);
  }

  private async closeView(diff: PendingDiff, reason: DiffCloseReason): Promise<void> {
    try {
      await this.editor?.closeDiff(diff, reason);
    } catch (err) {
      this.logger.warn('closing a diff view failed', { filePath: diff.filePath, reason, error: describeError(err) });
    }
  }
}
