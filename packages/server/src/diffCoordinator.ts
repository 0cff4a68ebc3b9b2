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
 * Once the file has been seen holding the text (a watch on its folder), the
 * CLI wrote it and it is forgotten: a file changed after that (the user
 * reverting it with git) is not an unwritten accept (issue 30). The same
 * watch asks the editor to `reload` the user's buffers of the file: one
 * watcher, here, for every end (the ends used to poll or watch each their own).
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
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OutsideRootsError, insideRootsByName, pinnedFileHolds, readPinned, writePinned } from '@ide-companion/shared/pinnedFiles';
import { DiffAcceptedNotification, DiffRejectedNotification, diffWords, type CompanionNotification } from '@ide-companion/protocol';
import type { RemoteBase } from '@ide-companion/protocol';
import { shownPathOf, type DiffCloseReason, type EditorActions, type PendingDiff } from './editorActions.js';
import { describeError, type Logger } from './logger.js';

export type Notify = (sessionId: string, notification: CompanionNotification) => void;

export class DiffError extends Error {
  override name = 'DiffError';
}

/** How long an accepted text is remembered while its session lives: a CLI writes at once or not at all. */
export const UNWRITTEN_TTL_MS = 10 * 60_000;

/** An accepted text not yet seen on disk: only what showing it again needs (not the proposal's or the original's text). */
interface Unwritten {
  filePath: string;
  sessionId: string;
  agent: string;
  content: string;
  acceptedAt: number;
  /** Ends the watch that forgets the entry once the file holds it. */
  stopWatch: () => void;
}

/** How long after an accept a write that is not the accepted text still reloads the user's buffer (a CLI that reformats). */
export const RELOAD_OTHER_WRITES_MS = 60_000;
/** How long an edited accept waits for an agent that writes its own proposal to write it (it writes at once). */
export const OWN_PROPOSAL_WAIT_MS = 60_000;
/** Quiet time after the last change event before the file is read: a write in several chunks is seen whole. */
const WRITE_SETTLE_MS = 30;

/**
 * Watches `file` (its folder: the file may not exist yet, or be replaced by a
 * rename) until `timeoutMs`: after each write, settled, calls `onWrite` with
 * whether the file now holds `content`; once it does, the watch ends. A no-op
 * when the folder cannot be watched. Returns a function that stops the watch.
 */
function watchWrites(file: string, holds: () => boolean, timeoutMs: number, onWrite: (holds: boolean) => void): () => void {
  const base = path.basename(file);
  let watcher: fs.FSWatcher | undefined;
  let settle: NodeJS.Timeout | undefined;
  const stop = () => {
    clearTimeout(deadline);
    clearTimeout(settle);
    watcher?.close();
    watcher = undefined;
  };
  const deadline = setTimeout(stop, timeoutMs);
  deadline.unref();
  try {
    watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (!watcher || (name !== null && name.toString() !== base)) return;
      clearTimeout(settle);
      settle = setTimeout(() => {
        if (!watcher) return;
        const held = holds();
        if (held) stop();
        onWrite(held);
      }, WRITE_SETTLE_MS);
      settle.unref();
    });
    watcher.on('error', stop);
  } catch {
    stop();
  }
  return stop;
}

/** Diffs are keyed by normalized path so `/a/./b` and `/a/b` are one file. */
function keyOf(filePath: string): string {
  return path.normalize(filePath);
}

export class DiffCoordinator {
  private readonly byKey = new Map<string, PendingDiff>();
  /** Accepted texts by session, then file: kept for the user if the session ends before its CLI wrote them. */
  private readonly unwritten = new Map<string, Map<string, Unwritten>>();
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
  ) {}

  /**
   * Whether `file` holds exactly `content`, read by descriptor inside the roots (its size compared first: most checks
   * read nothing); false for a link, a FIFO, a file outside. Synchronous: watchers decide at once.
   */
  private holds(file: string, content: string): boolean {
    return pinnedFileHolds(file, content, { roots: this.roots() });
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
    // The agent writes its own machine's file: this one's is not watched for it, nor shown again as unwritten.
    if (!diff.remote) this.rememberUnwritten(diff, finalContent);
    if (this.ownWriters.delete(diff.id) && finalContent !== diff.newContent) this.landEditsOverOwnWrite(diff, finalContent);
    this.notify(diff.sessionId, { method: DiffAcceptedNotification.method, params: { filePath: diff.filePath, content: finalContent } });
    this.logger.info('diff accepted', { filePath: diff.filePath, edited: finalContent !== diff.newContent });
    return true;
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

  /**
   * The session went away: its diffs close (nobody is left to hear an
   * outcome), and what it was told to write and did not comes back to the user.
   * A session its client ended (`endedInOrder`: DELETE, as `ide-companion diff`
   * without --write does once it printed the text) took the text: nothing is kept.
   */
  async sessionClosed(sessionId: string, endedInOrder = false): Promise<void> {
    await this.closeWhere((d) => d.sessionId === sessionId, 'sessionClosed');
    const unwritten = this.unwritten.get(sessionId);
    this.unwritten.delete(sessionId);
    for (const entry of unwritten?.values() ?? []) {
      entry.stopWatch();
      if (!endedInOrder) await this.keepUnwritten(entry);
    }
  }

  private rememberUnwritten(diff: PendingDiff, content: string): void {
    const now = Date.now();
    let bySession = this.unwritten.get(diff.sessionId);
    if (!bySession) this.unwritten.set(diff.sessionId, (bySession = new Map()));
    // What the CLI has written since (or what is too old to matter) is forgotten: a live session holds only what is still unwritten.
    for (const [key, entry] of bySession) {
      const holds = this.holds(entry.filePath, entry.content);
      if (now - entry.acceptedAt <= UNWRITTEN_TTL_MS && !holds) continue;
      entry.stopWatch();
      bySession.delete(key);
      // Written, its watch not yet settled (an accept right after the write): the editor still hears of it.
      if (holds) this.reload(entry, true);
    }
    const key = keyOf(diff.filePath);
    bySession.get(key)?.stopWatch();
    // Watched before the outcome goes out: the CLI writes as soon as it hears it.
    const entry: Unwritten = { filePath: diff.filePath, sessionId: diff.sessionId, agent: diff.agent, content, acceptedAt: now, stopWatch: () => undefined };
    entry.stopWatch = watchWrites(
      diff.filePath,
      () => this.holds(diff.filePath, content),
      UNWRITTEN_TTL_MS,
      (holds) => {
        if (holds && bySession.get(key) === entry) bySession.delete(key);
        if (holds || Date.now() - entry.acceptedAt < RELOAD_OTHER_WRITES_MS) this.reload(entry, holds);
      },
    );
    bySession.set(key, entry);
  }

  /** The agent will write its own proposal: once it has, the user's text takes its place (watched before the outcome goes out). */
  private landEditsOverOwnWrite(diff: PendingDiff, text: string): void {
    watchWrites(
      diff.filePath,
      () => this.holds(diff.filePath, diff.newContent),
      OWN_PROPOSAL_WAIT_MS,
      (holds) => {
        if (!holds) return;
        try {
          // By descriptor, inside the roots, only over exactly the agent's proposal: a folder swapped for a link
          // during the wait is refused, and nothing is written (issue 35).
          writePinned(diff.filePath, text, { roots: this.roots(), expect: diff.newContent });
          this.logger.info("the agent wrote its own proposal: the user's edits put in its place", { filePath: diff.filePath });
        } catch (err) {
          this.logger.warn("could not put the user's edits in place of the agent's write; they stay in the editor", {
            filePath: diff.filePath,
            error: describeError(err),
          });
        }
      },
    );
  }

  private shownWords(diff: PendingDiff) {
    return diffWords.shown(path.basename(diff.filePath), diff.agent, this.ideName, diff.remote && shownPathOf(diff));
  }

  /** The agent wrote the file: the editor rereads the user's buffers of it (one watcher here for every end). */
  private reload({ filePath, agent }: Unwritten, holdsAccepted: boolean): void {
    if (!this.editor?.reload) return;
    const unsavedWarning = diffWords.notReloaded(path.basename(filePath), agent);
    Promise.resolve(this.editor.reload({ path: filePath, holdsAccepted, unsavedWarning })).catch((err: unknown) =>
      this.logger.warn('could not reload the written file in the editor', { filePath, error: describeError(err) }),
    );
  }

  /** An accepted text its CLI never wrote: unless the file now holds it, the editor shows it again and keeps it. */
  private async keepUnwritten({ filePath, sessionId, agent, content }: Unwritten): Promise<void> {
    if (!this.editor) return;
    let onDisk: string | undefined;
    try {
      onDisk = await readPinned(filePath, this.maxOriginalBytes, { roots: this.roots() });
    } catch {
      onDisk = undefined;
    }
    if (onDisk === content) return;
    // A newer proposal for the file is before the user: that one stands.
    if (this.byKey.has(keyOf(filePath))) return;
    const kept: PendingDiff = { id: randomUUID(), filePath, newContent: content, originalContent: onDisk, sessionId, agent, openedAt: Date.now(), kept: true };
    this.logger.warn('the CLI went away before writing an accepted proposal: it is kept in the editor', { filePath });
    try {
      await this.editor.showDiff(kept, this.shownWords(kept));
    } catch (err) {
      this.logger.warn('could not show the unwritten proposal again', { filePath, error: describeError(err) });
      return;
    }
    await this.closeView(kept, 'sessionClosed');
  }

  async closeAll(): Promise<void> {
    for (const bySession of this.unwritten.values()) for (const entry of bySession.values()) entry.stopWatch();
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
    this.ownWriters.delete(diff.id);
    try {
      await this.editor?.closeDiff(diff, reason, diffWords.closed(reason, path.basename(diff.filePath), diff.agent, this.ideName, diff.kept));
    } catch (err) {
      this.logger.warn('closing a diff view failed', { filePath: diff.filePath, reason, error: describeError(err) });
    }
  }
}
