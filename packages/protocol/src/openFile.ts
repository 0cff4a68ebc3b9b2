/** `openFile`: shows a file in the editor at a line and column. Needs the editor's `openFile` capability. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { AbsolutePathSchema } from './editorTypes.js';
import { toolType } from './message.js';

export const OpenFileParamsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    path: AbsolutePathSchema,
    /** Omitted: the cursor stays where the editor had it (the top of a file not open yet). Past the end: the last line. */
    line: z
      .optional(z.int().check(z.minimum(1)))
      .check(z.describe('1-based line. Omitted: the file is shown where the cursor was (the top if not open yet). Past the end: the last line.')),
    /** Omitted: 1. Past the line's end: its end. Ignored without `line`. */
    column: z
      .optional(z.int().check(z.minimum(1)))
      .check(z.describe("1-based column in characters. Omitted: 1. Past the line's end: its end. Ignored without line.")),
    /** With `line`: the selection runs from (line, column) up to, not including, (endLine, endColumn). */
    endLine: z
      .optional(z.int().check(z.minimum(1)))
      .check(z.describe('1-based line where a selection starting at line/column ends. Omitted: no selection. Ignored without line.')),
    /** Omitted: the end of `endLine` (whole lines selected). */
    endColumn: z
      .optional(z.int().check(z.minimum(1)))
      .check(z.describe('1-based column the selection stops before. Omitted: the end of endLine. Ignored without endLine.')),
    /** Where the editor has preview tabs (VS Code): show the file in one. Others ignore it. */
    preview: z.optional(z.boolean()).check(z.describe('Show the file in a preview tab where the editor has them (VS Code).')),
    /** true: the editor's window with the file takes the focus; false: the focus stays where it is. Omitted: the editor's habit. */
    focus: z.optional(z.boolean()).check(z.describe('Whether the file takes the keyboard focus. Omitted: the editor decides.')),
  }),
);
export type OpenFileParams = z.infer<typeof OpenFileParamsSchema>;

export const OpenFileResultSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    opened: z.string(),
    line: z.optional(z.number()),
    column: z.optional(z.number()),
    endLine: z.optional(z.number()),
    endColumn: z.optional(z.number()),
  }),
);
export type OpenFileResult = z.infer<typeof OpenFileResultSchema>;

export const OpenFileTool = toolType(
  'openFile',
  "Open a file in the user's editor and put the cursor at a line and column (1-based), or select from there to endLine/endColumn, to show the user a place in the code. Only existing files inside the workspace folders can be opened (symlinks resolved: `opened` is the path the editor was given). Returns JSON {opened, line, column, endLine, endColumn} (as asked, omitted if not given).",
  OpenFileParamsSchema,
  OpenFileResultSchema,
  { arguments: [['path']], result: [['opened']] },
  'openFile',
);
