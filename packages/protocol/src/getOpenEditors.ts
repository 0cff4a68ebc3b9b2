/** `getOpenEditors`: the files open in the editor. Needs the editor's `getOpenEditors` capability. */
import * as z from 'zod/mini';
import { toolType } from './message.js';

export const OpenEditorSchema = z.object({
  path: z.string().check(z.minLength(1)),
  isActive: z.boolean(),
  /** Unsaved changes. */
  isDirty: z.optional(z.boolean()),
  languageId: z.optional(z.string()),
});
export type OpenEditor = z.infer<typeof OpenEditorSchema>;

export const GetOpenEditorsParamsSchema = z.object({});
export const GetOpenEditorsResultSchema = z.object({ editors: z.array(OpenEditorSchema) });
export type GetOpenEditorsResult = z.infer<typeof GetOpenEditorsResultSchema>;

export const GetOpenEditorsTool = toolType(
  'getOpenEditors',
  "List the files open in the user's editor (tabs or buffers), which one is active, and which have unsaved changes. Returns JSON {editors: [{path, isActive, isDirty, languageId}]}.",
  GetOpenEditorsParamsSchema,
  GetOpenEditorsResultSchema,
  'getOpenEditors',
);
