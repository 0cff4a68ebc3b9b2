/**
 * Where Claude Code's `openFile` puts the cursor and what it selects, from
 * its text anchors (`startText`, `endText`, `selectToEndOfLine`, as
 * coder/claudecode.nvim and the VS Code extension take them) or its lines
 * (`startLine`/`endLine`, as claude-code-ide.el takes them). Found once here
 * in the file's text, so every editor only selects a range (1-based, end
 * excluded: our `openFile`'s `endLine`/`endColumn`).
 */
import { readPinned } from '@ide-companion/shared/pinnedFiles';

/** Largest file searched for the anchors. */
export const MAX_SEARCHED_BYTES = 8 * 1024 * 1024;

export interface OpenFileAnchors {
  startText?: string;
  endText?: string;
  selectToEndOfLine?: boolean;
  startLine?: number;
  endLine?: number;
}

export interface OpenFileTarget {
  line?: number;
  column?: number;
  /** The selection's end (excluded); `endColumn` omitted: the end of `endLine`. */
  endLine?: number;
  endColumn?: number;
  /** What was done, in the words Claude Code's servers use. */
  message: string;
}

/** How many newlines `text` holds before offset `end`: counted, not split (a file of megabytes makes no array of its lines). */
function newlines(text: string, end = text.length): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/** 1-based line and column (in characters) of offset `at` in `text`. */
function positionOf(text: string, at: number): { line: number; column: number } {
  const lineStart = at === 0 ? 0 : text.lastIndexOf('\n', at - 1) + 1;
  return { line: newlines(text, at) + 1, column: [...text.slice(lineStart, at)].length + 1 };
}

/**
 * The range to show in `file`, whose text (`content`, read by the caller once
 * the path passed openFile's check; undefined when it may not be read) holds
 * the anchors. A missing anchor still opens the file (said in the message);
 * lines win over text when both are given.
 */
export function openFileTarget(file: string, anchors: OpenFileAnchors, content?: string): OpenFileTarget {
  const opened = `Opened file: ${file}`;
  if (anchors.startLine !== undefined || anchors.endLine !== undefined) {
    const line = Math.max(1, anchors.startLine ?? 1);
    const endLine = Math.max(line, anchors.endLine ?? line);
    return { line, column: 1, endLine, message: `Opened file and selected lines ${line} to ${endLine}` };
  }
  const { startText, endText } = anchors;
  if (!startText) return { message: opened };
  const at = content?.indexOf(startText) ?? -1;
  if (content === undefined || at < 0) return { message: `Opened file, but text "${startText}" not found` };
  const start = positionOf(content, at);
  let endAt = at + startText.length;
  let message = `Opened file and selected text "${startText}"`;
  if (endText) {
    const found = content.indexOf(endText, endAt);
    if (found >= 0) {
      endAt = found + endText.length;
      message = `Opened file and selected text from "${startText}" to "${endText}"`;
    } else {
      message = `Opened file and positioned at "${startText}" (end text "${endText}" not found)`;
    }
  }
  const end = positionOf(content, endAt);
  if (anchors.selectToEndOfLine) return { ...asStart(start), endLine: end.line, message };
  return { ...asStart(start), endLine: end.line, endColumn: end.column, message };
}

const asStart = (p: { line: number; column: number }) => ({ line: p.line, column: p.column });

/**
 * How many lines `file` has, as editors count them (a final newline opens no line); undefined when it may not be
 * read (absent, over MAX_SEARCHED_BYTES, no regular file, a link swapped in, outside `roots` when given). Read by
 * descriptor as a diff's original is (shared/pinnedFiles.ts): asynchronously, bounded, a FIFO or device refused.
 */
export async function lineCountOf(file: string, roots?: readonly string[]): Promise<number | undefined> {
  const content = await readPinned(file, MAX_SEARCHED_BYTES, { roots, use: 'read' }).catch(() => undefined);
  if (content === undefined) return undefined;
  if (content === '') return 1;
  const lines = newlines(content) + 1;
  return content.endsWith('\n') ? lines - 1 : lines;
}
