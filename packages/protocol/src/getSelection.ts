/** `getSelection`: the text the user has selected. Needs the editor's `getSelection` capability. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { PositionSchema } from './editorTypes.js';
import { toolType } from './message.js';

export const SelectionSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    path: z.string().check(z.minLength(1)),
    text: z.string(),
    start: PositionSchema,
    end: PositionSchema,
  }),
);
export type Selection = z.infer<typeof SelectionSchema>;

export const GetSelectionParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({}));
/** `selection: null` when nothing is selected. */
export const GetSelectionResultSchema = /* @__PURE__ */ lazySchema(() => z.object({ selection: z.nullable(SelectionSchema) }));
export type GetSelectionResult = z.infer<typeof GetSelectionResultSchema>;

export const GetSelectionTool = toolType(
  'getSelection',
  'Get the text the user has selected in their editor, with its file and 1-based start and end positions. Takes no arguments. Returns JSON {selection: {path, text, start, end}} or {selection: null} when nothing is selected (a bare cursor is no selection).',
  GetSelectionParamsSchema,
  GetSelectionResultSchema,
  { arguments: [], result: [['selection', 'path']] },
  'getSelection',
);
