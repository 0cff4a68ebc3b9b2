/**
 * `getActiveFile` tool (spec/ide-integration-architecture.md): CLI -> companion,
 * answered with one line of text. The real CLI does not call it; other agents may.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import type { Cursor } from './ideContext.js';
import { toolType } from './message.js';

export const GetActiveFileArgumentsSchema = /* @__PURE__ */ lazySchema(() => z.object({}));

export interface ActiveFileContext {
  filePath: string;
  cursor?: Cursor;
}

export const GetActiveFileTool = toolType(
  'getActiveFile',
  'Get the currently active file and cursor position',
  GetActiveFileArgumentsSchema,
  /** One line of text, see formatActiveFile. */
  lazySchema(() => z.string()),
  { arguments: [], result: 'activeFileText' },
);

export const NO_ACTIVE_FILE_TEXT = 'No file is currently active';

/** `Active file: /p (line: 10, char: 5)`, `Active file: /p`, or `No file is currently active`. */
export function formatActiveFile(active: ActiveFileContext | null | undefined): string {
  if (!active) return NO_ACTIVE_FILE_TEXT;
  if (!active.cursor) return `Active file: ${active.filePath}`;
  return `Active file: ${active.filePath} (line: ${active.cursor.line}, char: ${active.cursor.character})`;
}

const ACTIVE_FILE_PATTERN = /^Active file: (.+?)(?: \(line: (\d+), char: (\d+)\))?$/;

/** The inverse of formatActiveFile; null for "no file", undefined for text in no known form. */
export function parseActiveFile(text: string): ActiveFileContext | null | undefined {
  const trimmed = text.trim();
  if (trimmed === NO_ACTIVE_FILE_TEXT) return null;
  const match = ACTIVE_FILE_PATTERN.exec(trimmed);
  if (!match) return undefined;
  const filePath = match[1]!;
  if (match[2] === undefined) return { filePath };
  return { filePath, cursor: { line: Number(match[2]), character: Number(match[3]) } };
}
