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
 *
 * An accepted proposal is written by the CLI, not by us. Until its session
 * ends, the text is remembered: a session that ends (its CLI died) while the
 * file on disk still differs from what the user accepted gets the proposal
 * back in the editor as a kept buffer (shown, then closed as
 * `sessionClosed`, which every end answers by keeping it and saying so).
 * The memory is also a file, so a companion killed meanwhile leaves it and
 * the next one shows it the same way (keepAcceptedLeftBehind).
 * Once the file has been seen holding the text (a watch on its folder), the
 * CLI wrote it and it is forgotten: a file changed after that (the user
 * reverting it with git) is not an unwritten accept (issue 30). The same
 * watch asks the editor to `reload` the user's buffers of the file: one
 * watcher, here, for every end (the ends used to poll or watch each their own).
 * What follows an accept is acceptedWrites.ts's.
 *
 * An agent that writes its own proposal on accept (Copilot CLI: its `SAVED`
 * carries no text) would drop the user's edits made in the diff. For its
 * diffs, an edited accept waits for the agent's write of its proposal and
 * then puts the user's text in its place: only over exactly that proposal,
 * in a regular file, replaced whole (a temporary file renamed over it).
 *
 * Roots: a diff is only for a file inside the workspace roots, by its real
 * path (a link inside leading out is refused): one rule here for every face
 * (Gemini's and Qwen's openDiff, Claude's, Copilot's open_diff, Amp's
 * editFile). Every read or write of the file here goes by descriptor
 * (shared/pinnedFiles.ts): a folder or the file swapped for a link after the
 * check is refused, never followed (issue 35).
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { OutsideRootsError, insideRootsByName, readPinned } from '@ide-companion/shared/pinnedFiles';
import { DiffAcceptedNotification, DiffRejectedNotification, diffWords, type CompanionNotification } from '@ide-companion/protocol';
import type { RemoteBase } from '@ide-companion/protocol';
import { AcceptedWrites, fileKey } from './acceptedWrites.js';
import { shownPathOf, type DiffCloseReason, type EditorActions, type PendingDiff } from './editorActions.js';
import { describeError, type Logger } from './logger.js';

export type Notify = (sessionId: string, notification: CompanionNotification) => void;

export class DiffError extends Error {
  override name = 'DiffError';
}

export class DiffCoordinator {
  private readonly byKey = new Map<string, PendingDiff>();
  /** What follows an accept until the agent has written the file. */
  private readonly writes: AcceptedWrites;
  /** Pending diffs (by id) whose agent writes its own proposal on accept, whatever the user made of it. */
  private readonly ownWriters = new Set<string>();

  constructor(
    private readonly editor: EditorActions | undefined,
    private readonly notify: Notify,
    private readonly logger: Logger,
    /** Largest file read to show beside a proposal. */
    private readonly maxOriginalBytes: number,
    /** The workspace roots as they stand: a diff is only for a file inside them. */
    private readonly roots: () => readonly string[],
    /** The end's `hello.ide.name`: which keys the words name (diffWords.ts). */
    private readonly ideName = '',
  ) {
    this.writes = new AcceptedWrites({
      editor,
      logger,
      roots,
      maxBytes: maxOriginalBytes,
      pending: (filePath) => this.byKey.has(fileKey(filePath)),
      showKept: (kept, afterStop) => this.showKept(kept, afterStop),
    });
  }

  get enabled(): boolean {
    return this.editor !== undefined;
  }

  /**
   * Opens a diff for `sessionId` (`agent`: who proposed it, as the user reads
   * it; `writesOwnProposal`: its agent writes its proposal on accept, not the
   * text accepted; `remote`: the file as the CLI's machine has it, sent up by
   * the relay there (tools/openDiff.ts): the base shown instead of this
   * machine's copy). Throws DiffError with a message for the CLI.
   */
  async open(
    sessionId: string,
    filePath: string,
    newContent: string,
    agent = 'Gemini CLI',
    options: { writesOwnProposal?: boolean; remote?: RemoteBase | undefined } = {},
  ): Promise<PendingDiff> {
    const { remote } = options;
    if (!this.editor) throw new DiffError('this companion does not show diffs');
    if (!path.isAbsolute(filePath)) throw new DiffError(`filePath must be an absolute path, got ${JSON.stringify(filePath)}`);
    let originalContent: string | undefined;
    const roots = this.roots();
    if (remote) {
      // Not a file of this machine's: its name, mapped by the relay, must still be inside the roots.
      if (!insideRootsByName(filePath, roots)) throw new DiffError(`refused ${filePath}: it is outside the workspace folders (${roots.join(', ') || 'none'})`);
      if (remote.error !== undefined) throw new DiffError(`could not read ${remote.path} on ${remote.host || "the CLI's machine"}: ${remote.error}`);
      originalContent = remote.content ?? undefined;
    } else {
      try {
        // Inside the roots by its real path (a link inside leading out is refused, its target never shown), read by descriptor.
        originalContent = await readPinned(filePath, this.maxOriginalBytes, { roots });
      } catch (err) {
        if (err instanceof OutsideRootsError) throw new DiffError(`refused ${err.message}`);
        throw new DiffError(`could not read ${filePath}: ${describeError(err)}`);
      }
    }
    const key = fileKey(filePath);
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
    const diff: PendingDiff = {
      id: randomUUID(),
      filePath,
      newContent,
      originalContent,
      sessionId,
      agent,
      openedAt: Date.now(),
      ...(remote && { remote: { path: remote.path, host: remote.host } }),
    };
    this.byKey.set(key, diff);
    if (options.writesOwnProposal) this.ownWriters.add(diff.id);
    try {
      await this.editor.showDiff(diff, this.shownWords(diff));
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
    this.writes.accepted(diff, finalContent, this.ownWriters.delete(diff.id));
    this.notify(diff.sessionId, { method: DiffAcceptedNotification.method, params: { filePath: diff.filePath, content: finalContent } });
    this.logger.info('diff accepted', { filePath: diff.filePath, edited: finalContent !== diff.newContent });
    return true;
  }

  /**
   * The host took an accept its end holds until told (a script end: an accept still in a killed host's pipe would be
   * lost): its view closes as `accepted`, after `accept` wrote the copy and told the CLI.
   */
  async taken(diff: PendingDiff): Promise<void> {
    await this.closeView(diff, 'accepted');
  }

  /** The user rejected. False if no longer pending. */
  reject(id: string): boolean {
    const diff = this.take(id);
    if (!diff) return false;
    this.ownWriters.delete(diff.id);
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
    const key = fileKey(filePath);
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

  /**
   * The session went away: its diffs close (nobody is left to hear an
   * outcome), and what it was told to write and did not comes back to the user.
   * A session its client ended (`endedInOrder`: DELETE, as `ide-companion diff`
   * without --write does once it printed the text) took the text: nothing is kept.
   */
  async sessionClosed(sessionId: string, endedInOrder = false): Promise<void> {
    await this.closeWhere((d) => d.sessionId === sessionId, 'sessionClosed');
    await this.writes.sessionClosed(sessionId, endedInOrder);
  }

  /**
   * Shows, kept, each accepted text a companion killed before its agent wrote
   * it left for this workspace (acceptedWrites.ts): a host calls it once its
   * end can hear actions (after `ready`).
   */
  keepAcceptedLeftBehind(): Promise<void> {
    return this.writes.keepLeftBehind();
  }

  private shownWords(diff: PendingDiff) {
    return diffWords.shown(path.basename(diff.filePath), diff.agent, this.ideName, diff.remote && shownPathOf(diff));
  }

  /** A text accepted and never written, shown again (acceptedWrites.ts): its view then closes as `sessionClosed`, which every end keeps. */
  private async showKept(kept: PendingDiff, afterStop: boolean): Promise<void> {
    try {
      await this.editor!.showDiff(kept, this.shownWords(kept));
    } catch (err) {
      this.logger.warn('could not show the unwritten proposal again', { filePath: kept.filePath, error: describeError(err) });
      return;
    }
    const words = afterStop ? diffWords.keptAfterStop(path.basename(kept.filePath), kept.agent, this.ideName) : undefined;
    await this.closeView(kept, 'sessionClosed', words);
  }

  async closeAll(): Promise<void> {
    this.writes.stopAll();
    await this.closeWhere(() => true, 'companionStopped');
  }

  get(id: string): PendingDiff | undefined {
    for (const diff of this.byKey.values()) if (diff.id === id) return diff;
    return undefined;
  }

  forFile(filePath: string): PendingDiff | undefined {
    return this.byKey.get(fileKey(filePath));
  }

  list(): PendingDiff[] {
    return [...this.byKey.values()];
  }

  private take(id: string): PendingDiff | undefined {
    const diff = this.get(id);
    if (diff) this.byKey.delete(fileKey(diff.filePath));
    return diff;
  }

  private async closeWhere(match: (diff: PendingDiff) => boolean, reason: DiffCloseReason): Promise<void> {
    const doomed = [...this.byKey.entries()].filter(([, d]) => match(d));
    for (const [key] of doomed) this.byKey.delete(key);
    for (const [, diff] of doomed) await this.closeView(diff, reason);
  }

  private async closeView(diff: PendingDiff, reason: DiffCloseReason, words?: string): Promise<void> {
    this.ownWriters.delete(diff.id);
    try {
      await this.editor?.closeDiff(diff, reason, words ?? diffWords.closed(reason, path.basename(diff.filePath), diff.agent, this.ideName, diff.kept));
    } catch (err) {
      this.logger.warn('closing a diff view failed', { filePath: diff.filePath, reason, error: describeError(err) });
    }
  }
}
