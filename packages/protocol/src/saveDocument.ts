/** `saveDocument`: saves a file's unsaved changes in the editor. Needs the editor's `saveDocument` capability. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { AbsolutePathSchema } from './editorTypes.js';
import { toolType } from './message.js';

export const SaveDocumentParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ path: AbsolutePathSchema }));
export type SaveDocumentParams = z.infer<typeof SaveDocumentParamsSchema>;
export const SaveDocumentResultSchema = /* @__PURE__ */ lazySchema(() => z.object({ saved: z.boolean(), message: z.optional(z.string()) }));
export type SaveDocumentResult = z.infer<typeof SaveDocumentResultSchema>;

export const SaveDocumentTool = toolType(
  'saveDocument',
  "Save a file that is open in the user's editor with unsaved changes, so the disk copy matches what the user sees. Only existing files inside the workspace folders. Returns JSON {saved, message?}: {saved: true, message} when there was nothing to save, {saved: false, message} when the file is not open.",
  SaveDocumentParamsSchema,
  SaveDocumentResultSchema,
  { arguments: [['path']], result: [] },
  'saveDocument',
);
