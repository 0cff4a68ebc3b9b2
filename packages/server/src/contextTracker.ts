/**
 * The editor's context as the CLI should see it, fed by an adapter's editor
 * events and pushed (coalesced) to listeners.
 *
 * Rules (spec II and interop-notes "Context the model sees"):
 * - files ordered by real focus time, newest first; at most `maxFiles` sent;
 * - only files that exist on disk (fileExistence.ts: checked when a snapshot
 *   is taken, at most every EXISTENCE_RECHECK_MS per file unless an event
 *   names it);
 * - `isActive`, `cursor` and `selectedText` only on the active file, which is
 *   always the newest, because the CLI treats the newest as active;
 * - `selectedText` cut to 16 KiB, marked the way the CLI marks it.
 */
import { CONTEXT_DEBOUNCE_MS, MAX_OPEN_FILES, MAX_SELECTED_TEXT_LENGTH, type Cursor, type File, type IdeContext } from '@ide-companion/protocol';
import { Coalescer, type Scheduler } from './coalescer.js';
import { assertAbsolute, checkedCursor, truncateSelectedText } from './contextInput.js';
import { FileExistence } from './fileExistence.js';
import { saneRoots, type RootRefusal } from './workspaceRoots.js';

export interface ContextTrackerOptions {
  /** Coalescing window (ms) for bursts; default 50. */
  windowMs?: number;
  /** Timers of the coalescer; tests inject a manual clock. */
  scheduler?: Scheduler;
  maxFiles?: number;
  maxSelectedTextLength?: number;
  /** How existence on disk is checked; default a stat that must find a regular file. */
  fileExists?: (filePath: string) => boolean;
  /** Wall clock for focus timestamps (ms). */
  now?: () => number;
}

export interface FocusDetails {
  cursor?: Cursor;
  selectedText?: string;
  /** The selection was made backward: the cursor is at its start. */
  selectionBackward?: boolean;
}

/** Files are remembered past the 10 sent, so closing one brings the next back. */
const MAX_REMEMBERED_FILES = 500;

export class ContextTracker {
  private readonly files = new Map<string, number>();
  private active: string | undefined;
  private activeCursor: Cursor | undefined;
  private activeSelection: string | undefined;
  private activeSelectionBackward = false;
  private trusted: boolean | undefined;
  private roots: string[] = [];
  private lastTimestamp = 0;
  private lastEmitted: string | undefined;
  private readonly listeners = new Set<(context: IdeContext) => void>();
  private readonly rootListeners = new Set<(roots: readonly string[]) => void>();
  private readonly coalescer: Coalescer;
  private readonly maxFiles: number;
  private readonly maxSelectedTextLength: number;
  private readonly now: () => number;
  private readonly existence: FileExistence;

  constructor(options: ContextTrackerOptions = {}) {
    this.maxFiles = options.maxFiles ?? MAX_OPEN_FILES;
    this.maxSelectedTextLength = options.maxSelectedTextLength ?? MAX_SELECTED_TEXT_LENGTH;
    this.now = options.now ?? Date.now;
    this.existence = new FileExistence(options.fileExists, this.now);
    this.coalescer = new Coalescer(() => this.emit(), { windowMs: options.windowMs ?? CONTEXT_DEBOUNCE_MS }, options.scheduler);
  }

  // ---- editor events -------------------------------------------------------

  /** The user focused `filePath` (a buffer switch, a window switch, the editor regaining focus). */
  focus(filePath: string, details: FocusDetails = {}): void {
    assertAbsolute(filePath);
    // Checked before anything changes: a bad cursor leaves the focus where it was.
    const cursor = details.cursor && checkedCursor(details.cursor);
    this.existence.forget(filePath);
    this.files.set(filePath, this.nextTimestamp());
    if (this.active !== filePath) {
      this.active = filePath;
      this.activeCursor = undefined;
      this.setActiveSelection(undefined, false);
    }
    if (cursor) this.activeCursor = cursor;
    if ('selectedText' in details) this.setActiveSelection(details.selectedText, details.selectionBackward);
    this.forget();
    this.changed();
  }

  /** A file was opened without taking focus; it ranks just below the active file. */
  open(filePath: string, timestamp?: number): void {
    assertAbsolute(filePath);
    this.existence.forget(filePath);
    if (this.files.has(filePath) && timestamp === undefined) return;
    const activeTs = this.active !== undefined ? this.files.get(this.active) : undefined;
    // Unique like a focus's: a focus in the same millisecond must still rank above this file.
    let ts = timestamp ?? this.nextTimestamp();
    if (activeTs !== undefined && this.active !== filePath) ts = Math.min(ts, activeTs - 1);
    this.files.set(filePath, ts);
    this.forget();
    this.changed();
  }

  close(filePath: string): void {
    this.existence.forget(filePath);
    if (!this.files.delete(filePath)) return;
    if (this.active === filePath) this.clearActive();
    this.changed();
  }

  /** Cursor (1-based) and selection in `filePath`; focuses it first if it was not active. */
  setCursor(filePath: string, cursor: Cursor, selectedText?: string, selectionBackward?: boolean): void {
    if (this.active !== filePath) {
      this.focus(filePath, { cursor, selectedText, selectionBackward });
      return;
    }
    this.activeCursor = checkedCursor(cursor);
    this.setActiveSelection(selectedText, selectionBackward);
    this.changed();
  }

  setSelection(filePath: string, selectedText: string | undefined, selectionBackward?: boolean): void {
    if (this.active !== filePath) return;
    this.setActiveSelection(selectedText, selectionBackward);
    this.changed();
  }

  private setActiveSelection(selectedText: string | undefined, backward: boolean | undefined): void {
    this.activeSelection = selectedText || undefined;
    this.activeSelectionBackward = this.activeSelection !== undefined && backward === true;
  }

  /** The active file's selection was made backward (its cursor is at the selection's start). */
  get selectionBackward(): boolean {
    return this.activeSelectionBackward;
  }

  rename(from: string, to: string): void {
    assertAbsolute(to);
    this.existence.forget(from);
    this.existence.forget(to);
    const ts = this.files.get(from);
    if (ts === undefined) return;
    this.files.delete(from);
    this.files.set(to, ts);
    if (this.active === from) this.active = to;
    this.changed();
  }

  /** The file was deleted from disk. */
  delete(filePath: string): void {
    this.close(filePath);
  }

  /** The file was written (it may exist on disk only now). */
  saved(filePath: string): void {
    this.existence.forget(filePath);
    if (this.files.has(filePath)) this.changed();
  }

  setTrusted(trusted: boolean | undefined): void {
    if (this.trusted === trusted) return;
    this.trusted = trusted;
    this.changed();
  }

  /**
   * Workspace roots (absolute). The companion rewrites its discovery file when they change.
   * `/` and the user's home as a whole are refused, a folder that does not exist dropped
   * (workspaceRoots.ts); when nothing sane is left of a refused list, the roots stay as
   * they were. Returns what was refused and why, for the caller to say.
   */
  setRoots(roots: readonly string[]): RootRefusal[] {
    roots.forEach(assertAbsolute);
    const { roots: next, refused } = saneRoots(roots);
    if (next.length === 0 && refused.length > 0) return refused;
    if (next.length === this.roots.length && next.every((r, i) => r === this.roots[i])) return refused;
    this.roots = next;
    for (const listener of this.rootListeners) listener(this.roots);
    return refused;
  }

  getRoots(): readonly string[] {
    return this.roots;
  }

  /** Forgets every file (the editor closed all buffers, or restarted). */
  clear(): void {
    this.files.clear();
    this.existence.clear();
    this.clearActive();
    this.changed();
  }

  // ---- reading -------------------------------------------------------------

  /** The context as it stands now. */
  snapshot(): IdeContext {
    const ordered = [...this.files].sort((a, b) => b[1] - a[1]);
    const openFiles: File[] = [];
    for (const [filePath, timestamp] of ordered) {
      if (openFiles.length >= this.maxFiles) break;
      if (!this.existence.exists(filePath)) continue;
      const file: File = { path: filePath, timestamp };
      if (filePath === this.active && openFiles.length === 0) {
        file.isActive = true;
        if (this.activeCursor) file.cursor = { ...this.activeCursor };
        if (this.activeSelection) file.selectedText = truncateSelectedText(this.activeSelection, this.maxSelectedTextLength);
      }
      openFiles.push(file);
    }
    const workspaceState: NonNullable<IdeContext['workspaceState']> = { openFiles };
    if (this.trusted !== undefined) workspaceState.isTrusted = this.trusted;
    return { workspaceState };
  }

  /** The active file and cursor, if the active file exists on disk. */
  activeFile(): { filePath: string; cursor?: Cursor } | undefined {
    if (!this.active || !this.existence.exists(this.active)) return undefined;
    return this.activeCursor ? { filePath: this.active, cursor: { ...this.activeCursor } } : { filePath: this.active };
  }

  /** Called with each coalesced change. Returns an unsubscribe function. */
  onDidChange(listener: (context: IdeContext) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onDidChangeRoots(listener: (roots: readonly string[]) => void): () => void {
    this.rootListeners.add(listener);
    return () => this.rootListeners.delete(listener);
  }

  dispose(): void {
    this.coalescer.dispose();
    this.listeners.clear();
    this.rootListeners.clear();
  }

  // ---- internals -----------------------------------------------------------

  private changed(): void {
    this.coalescer.poke();
  }

  private emit(): void {
    const context = this.snapshot();
    // The selection's direction is no part of the context the CLI gets, but a flip changes Claude Code's range.
    const serialized = JSON.stringify(context) + (this.activeSelectionBackward ? '<' : '');
    if (serialized === this.lastEmitted) return;
    this.lastEmitted = serialized;
    for (const listener of this.listeners) listener(context);
  }

  /** Strictly increasing wall-clock ms, so two focuses in one ms still order. */
  private nextTimestamp(): number {
    this.lastTimestamp = Math.max(this.now(), this.lastTimestamp + 1);
    return this.lastTimestamp;
  }

  private clearActive(): void {
    this.active = undefined;
    this.activeCursor = undefined;
    this.setActiveSelection(undefined, false);
  }

  private forget(): void {
    if (this.files.size <= MAX_REMEMBERED_FILES) return;
    const oldest = [...this.files].sort((a, b) => a[1] - b[1]);
    for (const [filePath] of oldest.slice(0, this.files.size - MAX_REMEMBERED_FILES)) {
      this.files.delete(filePath);
      this.existence.forget(filePath);
    }
  }
}
