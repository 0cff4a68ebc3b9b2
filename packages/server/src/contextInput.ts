/**
 * What the context tracker is handed, checked (absolute paths, 1-based
 * cursors) before anything changes, and a selection cut to the CLI's limit.
 */
import * as path from 'node:path';
import { MAX_SELECTED_TEXT_LENGTH, SELECTED_TEXT_TRUNCATION_MARKER, type Cursor } from '@ide-companion/protocol';

/** Cuts at `max` UTF-16 units, never inside a surrogate pair, ending with the CLI's marker. */
export function truncateSelectedText(text: string, max: number = MAX_SELECTED_TEXT_LENGTH): string {
  if (text.length <= max) return text;
  let end = max - SELECTED_TEXT_TRUNCATION_MARKER.length;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + SELECTED_TEXT_TRUNCATION_MARKER;
}

/**
 * A cursor as CursorSchema has it (1-based integers). The editors' events were
 * parsed at intake (parseEditorEvent); this is the cheap guard for code calling
 * the tracker directly: a schema parse here cost ~0.08 ms of every cursor move
 * on a busy machine (its code is cold between keystrokes).
 */
export function checkedCursor(cursor: Cursor): Cursor {
  const { line, character } = cursor;
  if (!Number.isSafeInteger(line) || line < 1 || !Number.isSafeInteger(character) || character < 1) {
    throw new TypeError(`expected a cursor of 1-based line and character, got line ${String(line)}, character ${String(character)}`);
  }
  return { line, character };
}

export function assertAbsolute(filePath: string): void {
  if (typeof filePath !== 'string' || !path.isAbsolute(filePath)) {
    throw new TypeError(`expected an absolute file path, got ${JSON.stringify(filePath)}`);
  }
}
