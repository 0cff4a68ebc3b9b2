/**
 * Where an editor host applies the events its end sends (the Neovim host, the
 * JSON-lines bridge), so the rules about positions live once, here, and not
 * in the Lua, Vimscript and Elisp:
 * - a selection sent as its range (`anchor`, `selectionKind`) is read with the
 *   end's `selectedText` action when the range changed, one read at a time and
 *   at most one per context update, the newest range winning; its direction
 *   (`selectionBackward`) is worked out from the range;
 * - a position repeated (CursorMoved and ModeChanged for one key) changes
 *   nothing and reads nothing;
 * - a selection that ends without a move (<Esc>, or the way into the agent's
 *   terminal, which sends nothing) stands until the cursor moves in a file, as
 *   claudecode.nvim keeps it: the user selects, then asks in the agent's split.
 *   Its cursor may land on either end (a yank goes to the start); the end is
 *   asked for the text of the selection just ended if it was not read yet;
 * - the cap on the text and its marker stay the tracker's (truncateSelectedText):
 *   the end is asked for one character past it, enough to know it was cut.
 */
import { CONTEXT_DEBOUNCE_MS, MAX_SELECTED_TEXT_LENGTH, type Cursor, type EditorEvent } from '@ide-companion/protocol';
import type { Companion } from './companion.js';
import { applyEditorEvent } from './editorEvents.js';

type PositionEvent = Extract<EditorEvent, { type: 'focus' | 'cursor' }>;

export interface PositionIntakeOptions {
  /** Reads the editor's selected text now (at most `maxChars` characters of it), null if none. */
  readSelectedText: (maxChars: number) => Promise<string | null>;
  /** Told when a read fails (the editor is gone, or does not answer it). */
  onReadError?: (err: unknown) => void;
  /** Least time between two reads started; default the context's coalescing window. */
  readIntervalMs?: number;
}

/** One past the CLI's limit: a longer text is cut and marked by the tracker. */
export const SELECTED_TEXT_READ_CHARS = MAX_SELECTED_TEXT_LENGTH + 1;

/** The cursor is before the anchor (line first, then character): the selection was made backward. */
export function isBackward(cursor: Cursor, anchor: Cursor): boolean {
  return cursor.line < anchor.line || (cursor.line === anchor.line && cursor.character < anchor.character);
}

export class PositionIntake {
  /** The last position applied: path, cursor, anchor and kind, as one comparable key. */
  private lastKey: string | undefined;
  /**
   * The selection range being shown and the text last read for it (undefined: none read yet); `ends`
   * are where a cursor with no selection leaves it standing (its two ends, then where the cursor stayed).
   */
  private selection: { path: string; ends: Cursor[]; backward: boolean; text: string | undefined } | undefined;
  private cleared = false;
  private reading = false;
  private readTimer: NodeJS.Timeout | undefined;
  private lastReadAt = -Infinity;
  private readonly readIntervalMs: number;

  constructor(
    private readonly companion: Companion,
    private readonly options: PositionIntakeOptions,
  ) {
    this.readIntervalMs = options.readIntervalMs ?? CONTEXT_DEBOUNCE_MS;
  }

  /** Applies one validated event; as applyEditorEvent, false when it names a diff no longer pending. */
  apply(event: EditorEvent): boolean {
    if (event.type !== 'focus' && event.type !== 'cursor') return applyEditorEvent(this.companion, event);
    const key = positionKey(event);
    // A repeat changes nothing; a focus always counts (it orders the files).
    if (event.type === 'cursor' && key === this.lastKey) return true;
    this.lastKey = key;
    if (event.anchor === undefined || event.cursor === undefined) {
      const kept = this.selection;
      const at = event.cursor;
      if (kept && at && event.selectedText === undefined && kept.path === event.path && kept.ends.some((end) => samePosition(end, at))) {
        kept.ends = [at];
        return applyEditorEvent(this.companion, { ...event, selectedText: kept.text, selectionBackward: (kept.text && kept.backward) || undefined });
      }
      this.selection = undefined;
      this.cleared = !event.selectedText;
      return applyEditorEvent(this.companion, event);
    }
    this.cleared = false;
    const backward = isBackward(event.cursor, event.anchor);
    // Until the new text is read, the last one read in this file stands.
    const shown = this.selection?.path === event.path ? this.selection.text : undefined;
    this.selection = { path: event.path, ends: [event.cursor, event.anchor], backward, text: shown };
    const { anchor: _a, selectionKind: _k, ...rest } = event;
    applyEditorEvent(this.companion, { ...rest, selectedText: shown, selectionBackward: backward || undefined });
    this.scheduleRead();
    return true;
  }

  /**
   * The last position the end sent has no selection, live or standing (above): getSelection
   * answers none without asking (the end's own answer would be its last Visual selection).
   */
  get noSelection(): boolean {
    return this.cleared;
  }

  /**
   * The end moved its cursor or selection itself (openFile with a range), its answer just in: until it reports
   * the new position, getSelection asks the end rather than answering from the last position it sent. Called
   * after the answer, so a position sent before the move (in flight meanwhile) cannot undo it.
   */
  expectMove(): void {
    this.cleared = false;
  }

  dispose(): void {
    clearTimeout(this.readTimer);
    this.readTimer = undefined;
    this.selection = undefined;
  }

  private scheduleRead(): void {
    if (this.reading || this.readTimer) return;
    const wait = this.lastReadAt + this.readIntervalMs - Date.now();
    if (wait <= 0) return void this.read();
    this.readTimer = setTimeout(() => {
      this.readTimer = undefined;
      void this.read();
    }, wait);
  }

  private async read(): Promise<void> {
    const wanted = this.selection;
    if (!wanted) return;
    this.reading = true;
    this.lastReadAt = Date.now();
    let text: string | null = null;
    try {
      text = await this.options.readSelectedText(SELECTED_TEXT_READ_CHARS);
    } catch (err) {
      this.options.onReadError?.(err);
    } finally {
      this.reading = false;
    }
    const now = this.selection;
    if (now !== wanted) {
      // The range moved while it was read: read the newest one.
      if (now) this.scheduleRead();
      return;
    }
    now.text = text || undefined;
    this.companion.context.setSelection(now.path, now.text, now.text ? now.backward : undefined);
  }
}

function samePosition(a: Cursor, b: Cursor): boolean {
  return a.line === b.line && a.character === b.character;
}

function positionKey(event: PositionEvent): string {
  const { cursor, anchor } = event;
  return [
    event.path,
    cursor?.line,
    cursor?.character,
    anchor?.line,
    anchor?.character,
    event.selectionKind ?? '',
    event.selectedText ?? '',
    event.selectionBackward ? '<' : '',
  ].join('\u0000');
}
