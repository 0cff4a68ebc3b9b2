/** `openFile`: shows a file in the editor at a line and column. Needs the editor's `openFile` capability. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { AbsolutePathSchema } from './editorTypes.js';
import { toolType } from './message.js';

export const OpenFileParamsSchema = lazySchema(() =>
  z.object({
    path: AbsolutePathSchema,
    line: z.optional(z.int().check(z.minimum(1))),
    column: z.optional(z.int().check(z.minimum(1))),
  }),
);
export type OpenFileParams = z.infer<typeof OpenFileParamsSchema>;

export const OpenFileResultSchema = lazySchema(() => z.object({ opened: z.string(), line: z.optional(z.number()), column: z.optional(z.number()) }));
export type OpenFileResult = z.infer<typeof OpenFileResultSchema>;

export const OpenFileTool = toolType(
  'openFile',
  "Open a file in the user's editor and put the cursor at a line and column (1-based), to show the user a place in the code. Only files inside the workspace folders can be opened. Returns JSON {opened, line, column}.",
  OpenFileParamsSchema,
  OpenFileResultSchema,
  'openFile',
);
