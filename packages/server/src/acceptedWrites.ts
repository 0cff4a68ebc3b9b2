/**
 * After an accept, until the agent has written the file (diffCoordinator.ts
 * says why each matters):
 * - the accepted text is remembered while its session lives, and shown again
 *   as a kept buffer if the session ends before the file holds it; the memory
 *   is also a file of this process's (keptProposals.ts `AcceptedCopy`), so a
 *   companion killed meanwhile (kill -9, a host the editor restarts) leaves
 *   it, and the next companion of the workspace shows it kept
 *   (keepLeftBehind); the one memory for every end, which keeps none;
 * - once the file holds it, the text is forgotten (a later change is the
 *   user's, issue 30) and the editor reloads the user's buffers of it;
 * - for an agent that writes its own proposal on accept, the user's edits
 *   are put in its place once it has, only over exactly that proposal.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { diffWords } from '@ide-companion/protocol';
import { insideRootsByName, pinnedFileHolds, readPinned, writePinned } from '@ide-companion/shared/pinnedFiles';
import type { EditorActions, PendingDiff } from './editorActions.js';
import { AcceptedCopy, acceptedLeftBehind, type AcceptedText } from './keptProposals.js';
import { describeError, type Logger } from './logger.js';
import { watchWrites } from './writeWatch.js';

/** How long an accepted text is remembered while its session lives: a CLI writes at once or not at all. */
export const UNWRITTEN_TTL_MS = 10 * 60_000;
/** How long after an accept a write that is not the accepted text still reloads the user's buffer (a CLI that reformats). */
export const RELOAD_OTHER_WRITES_MS = 60_000;
/** How long an edited accept waits for an agent that writes its own proposal to write it (it writes at once). */
export const OWN_PROPOSAL_WAIT_MS = 60_000;

/** Diffs are keyed by normalized path so `/a/./b` and `/a/b` are one file. */
export function fileKey(filePath: string): string {
  return path.normalize(filePath);
}

/** An accepted text not yet seen on disk: only what showing it again needs (not the proposal's or the original's text). */
interface Unwritten {
  filePath: string;
  sessionId: string;
  agent: string;
  content: string;
  acceptedAt: number;
  /** Ends the watch that forgets the entry once the file holds it. */
  stopWatch: () => void;
  /** The entry in a file, for a next companion if this one is killed. */
  copy: AcceptedCopy;
}

/** The entry is forgotten: its watch and its file go. */
function forget(entry: Unwritten): void {
  entry.stopWatch();
  entry.copy.drop();
}

export interface AcceptedWritesOptions {
  editor: EditorActions | undefined;
  logger: Logger;
  /** The workspace roots as they stand: every read and write of the file is inside them, by descriptor. */
  roots: () => readonly string[];
  /** Largest file read to show beside a kept text. */
  maxBytes: number;
  /** Whether a proposal for the file is before the user now: it stands over a kept text. */
  pending: (filePath: string) => boolean;
  /**
   * Shows a kept text as a proposal, then closes its view as `sessionClosed` (every end keeps it then, and says so);
   * `afterStop`: it was left by a companion that stopped (killed) before the agent wrote it.
   */
  showKept: (kept: PendingDiff, afterStop: boolean) => Promise<void>;
}

export class AcceptedWrites {
  /** Accepted texts by session, then file: kept for the user if the session ends before its CLI wrote them. */
  private readonly unwritten = new Map<string, Map<string, Unwritten>>();

  constructor(private readonly options: AcceptedWritesOptions) {}

  /**
   * `diff` was accepted as `content`; `writesOwnProposal`: its agent writes its proposal, not `content`.
   * Watched before the outcome goes out: the CLI writes as soon as it hears it.
   */
  accepted(diff: PendingDiff, content: string, writesOwnProposal: boolean): void {
    // The agent writes its own machine's file: this one's is not watched for it, nor shown again as unwritten.
    if (!diff.remote) this.remember(diff, content);
    if (writesOwnProposal && content !== diff.newContent) this.landEditsOverOwnWrite(diff, content);
  }

  /** The session went away: what it was told to write and did not comes back to the user, unless its client ended it in order. */
  async sessionClosed(sessionId: string, endedInOrder: boolean): Promise<void> {
    const unwritten = this.unwritten.get(sessionId);
    this.unwritten.delete(sessionId);
    for (const entry of unwritten?.values() ?? []) {
      entry.stopWatch();
      if (!endedInOrder) await this.keep(entry, false);
      entry.copy.drop();
    }
  }

  /** Every watch ends and every copy goes (the companion stops in order: the CLIs' sessions end with it). */
  stopAll(): void {
    for (const bySession of this.unwritten.values()) for (const entry of bySession.values()) forget(entry);
    this.unwritten.clear();
  }

  /**
   * The accepted texts a companion killed before its agent wrote them left
   * (keptProposals.ts): each of a file in this workspace is shown to the user,
   * kept, unless the file holds it now. Called by a host once its end hears
   * it (after `ready`), so the end can show it.
   */
  async keepLeftBehind(): Promise<void> {
    if (!this.options.editor) return;
    const roots = this.options.roots();
    for (const left of acceptedLeftBehind((filePath) => insideRootsByName(filePath, roots))) {
      try {
        if (!this.holds(left.filePath, left.content)) await this.keep({ ...left, sessionId: '' }, true);
      } catch (err) {
        this.options.logger.warn('could not show an accepted text a stopped companion left', { filePath: left.filePath, error: describeError(err) });
      }
      left.done();
    }
  }

  /**
   * Whether `file` holds exactly `content`, read by descriptor inside the roots (its size compared first: most checks
   * read nothing); false for a link, a FIFO, a file outside. Synchronous: watchers decide at once.
   */
  private holds(file: string, content: string): boolean {
    return pinnedFileHolds(file, content, { roots: this.options.roots() });
  }

  private remember(diff: PendingDiff, content: string): void {
    const now = Date.now();
    let bySession = this.unwritten.get(diff.sessionId);
    if (!bySession) this.unwritten.set(diff.sessionId, (bySession = new Map()));
    // What the CLI has written since (or what is too old to matter) is forgotten: a live session holds only what is still unwritten.
    for (const [key, entry] of bySession) {
      const holds = this.holds(entry.filePath, entry.content);
      if (now - entry.acceptedAt <= UNWRITTEN_TTL_MS && !holds) continue;
      forget(entry);
      bySession.delete(key);
      // Written, its watch not yet settled (an accept right after the write): the editor still hears of it.
      if (holds) this.reload(entry);
    }
    const key = fileKey(diff.filePath);
    const before = bySession.get(key);
    if (before) forget(before);
    // Written before the outcome goes out: a companion killed from then on leaves it for the next.
    const copy = new AcceptedCopy({ filePath: diff.filePath, agent: diff.agent, content, diffId: diff.id });
    const entry: Unwritten = {
      filePath: diff.filePath,
      sessionId: diff.sessionId,
      agent: diff.agent,
      content,
      acceptedAt: now,
      stopWatch: () => undefined,
      copy,
    };
    entry.stopWatch = watchWrites(
      diff.filePath,
      () => this.holds(diff.filePath, content),
      UNWRITTEN_TTL_MS,
      (holds) => {
        if (holds && bySession.get(key) === entry) {
          bySession.delete(key);
          copy.drop();
        }
        if (holds || Date.now() - entry.acceptedAt < RELOAD_OTHER_WRITES_MS) this.reload(entry);
      },
    );
    bySession.set(key, entry);
  }

  /** The agent will write its own proposal: once it has, the user's text takes its place. */
  private landEditsOverOwnWrite(diff: PendingDiff, text: string): void {
    const { logger } = this.options;
    watchWrites(
      diff.filePath,
      () => this.holds(diff.filePath, diff.newContent),
      OWN_PROPOSAL_WAIT_MS,
      (holds) => {
        if (!holds) return;
        try {
          // By descriptor, inside the roots, only over exactly the agent's proposal: a folder swapped for a link
          // during the wait is refused, and nothing is written (issue 35).
          writePinned(diff.filePath, text, { roots: this.options.roots(), expect: diff.newContent });
          logger.info("the agent wrote its own proposal: the user's edits put in its place", { filePath: diff.filePath });
        } catch (err) {
          logger.warn("could not put the user's edits in place of the agent's write; they stay in the editor", {
            filePath: diff.filePath,
            error: describeError(err),
          });
        }
      },
    );
  }

  /** The agent wrote the file: the editor rereads the user's buffers of it (one watcher here for every end). */
  private reload({ filePath, agent }: Unwritten): void {
    const { editor, logger } = this.options;
    if (!editor?.reload) return;
    const unsavedWarning = diffWords.notReloaded(path.basename(filePath), agent);
    Promise.resolve(editor.reload({ path: filePath, unsavedWarning })).catch((err: unknown) =>
      logger.warn('could not reload the written file in the editor', { filePath, error: describeError(err) }),
    );
  }

  /** An accepted text its CLI never wrote: unless the file now holds it, the editor shows it again and keeps it. */
  private async keep({ filePath, sessionId, agent, content, diffId }: AcceptedText & { sessionId: string }, afterStop: boolean): Promise<void> {
    if (!this.options.editor) return;
    let onDisk: string | undefined;
    try {
      onDisk = await readPinned(filePath, this.options.maxBytes, { roots: this.options.roots() });
    } catch {
      onDisk = undefined;
    }
    if (onDisk === content) return;
    // A newer proposal for the file is before the user: that one stands.
    if (this.options.pending(filePath)) return;
    // Under the accept's own id when a stopped companion left it (keptProposals.ts AcceptedText says why).
    const kept: PendingDiff = {
      id: diffId ?? randomUUID(),
      filePath,
      newContent: content,
      originalContent: onDisk,
      sessionId,
      agent,
      openedAt: Date.now(),
      kept: true,
    };
    this.options.logger.warn(
      afterStop
        ? 'a companion stopped before the agent wrote an accepted proposal: it is kept in the editor'
        : 'the CLI went away before writing an accepted proposal: it is kept in the editor',
      { filePath },
    );
    await this.options.showKept(kept, afterStop);
  }
}
