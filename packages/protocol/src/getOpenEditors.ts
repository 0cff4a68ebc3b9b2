/** `getOpenEditors`: the files open in the editor. Needs the editor's `getOpenEditors` capability. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { toolType } from './message.js';

export const OpenEditorSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    path: z.string().check(z.minLength(1)),
    isActive: z.boolean(),
    /** Unsaved changes. */
    isDirty: z.optional(z.boolean()),
    languageId: z.optional(z.string()),
    /** Lines in the editor's buffer (unsaved text included). */
    lineCount: z.optional(z.int().check(z.minimum(0))),
    /** Where the editor has them (VS Code): a pinned tab, a preview tab, the 0-based editor group. */
    isPinned: z.optional(z.boolean()),
    isPreview: z.optional(z.boolean()),
    groupIndex: z.optional(z.int().check(z.minimum(0))),
  }),
);
export type OpenEditor = z.infer<typeof OpenEditorSchema>;

export const GetOpenEditorsParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({}));
export const GetOpenEditorsResultSchema = /* @__PURE__ */ lazySchema(() => z.object({ editors: z.array(OpenEditorSchema) }));
export type GetOpenEditorsResult = z.infer<typeof GetOpenEditorsResultSchema>;

export const GetOpenEditorsTool = toolType(
  'getOpenEditors',
  "List the files open in the user's editor (tabs or buffers), which one is active, and which have unsaved changes. Takes no arguments. Returns JSON {editors: [{path, isActive, isDirty, languageId}]} ({editors: []} when none is open).",
  GetOpenEditorsParamsSchema,
  GetOpenEditorsResultSchema,
  { arguments: [], result: [['editors', '*', 'path']] },
  'getOpenEditors',
);
