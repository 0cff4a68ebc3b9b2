/**
 * The active file's selection in the shape Claude Code's `selection_changed`
 * gives it, which Copilot CLI, Amp and Codex CLI take too (each face shapes
 * its own words from it).
 */
import { pathToFileURL } from 'node:url';
import type { ClaudeSelectionChanged, IdeContext } from '@ide-companion/protocol';

/**
 * The active file's selection as Claude Code counts (0-based). The context
 * has the cursor and the selected text, not where the selection starts: the
 * cursor is its end, where a selection made forward leaves it, or, when the
 * editor said it was made backward, its start.
 */
export function selectionOf(context: IdeContext, backward = false): ClaudeSelectionChanged | undefined {
  const active = context.workspaceState?.openFiles?.find((f) => f.isActive);
  if (!active) return undefined;
  const text = active.selectedText ?? '';
  const cursor = active.cursor ? { line: active.cursor.line - 1, character: active.cursor.character - 1 } : { line: 0, character: 0 };
  const lines = text.split('\n');
  const last = lines.length - 1;
  let start = cursor;
  let end = cursor;
  if (text !== '' && backward) end = { line: cursor.line + last, character: last === 0 ? cursor.character + text.length : lines[last]!.length };
  else if (text !== '')
    start =
      last === 0 ? { line: cursor.line, character: Math.max(0, cursor.character - text.length + 1) } : { line: Math.max(0, cursor.line - last), character: 0 };
  return { text, filePath: active.path, fileUrl: fileUrlOf(active.path), selection: { start, end, isEmpty: text === '' } };
}

/** The last path's URL, kept: cursor moves stay in one file, and its URL is made each time by URL parsing. */
let lastUrl: { path: string; href: string } | undefined;

function fileUrlOf(filePath: string): string {
  if (lastUrl?.path !== filePath) lastUrl = { path: filePath, href: pathToFileURL(filePath).href };
  return lastUrl.href;
}
