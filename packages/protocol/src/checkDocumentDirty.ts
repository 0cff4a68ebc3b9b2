/** `checkDocumentDirty`: whether a file has unsaved changes in the editor. Needs the editor's `checkDocumentDirty` capability. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { AbsolutePathSchema } from './editorTypes.js';
import { toolType } from './message.js';

export const CheckDocumentDirtyParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ path: AbsolutePathSchema }));
export type CheckDocumentDirtyParams = z.infer<typeof CheckDocumentDirtyParamsSchema>;
export const CheckDocumentDirtyResultSchema = /* @__PURE__ */ lazySchema(() => z.object({ isOpen: z.boolean(), isDirty: z.boolean() }));
export type CheckDocumentDirtyResult = z.infer<typeof CheckDocumentDirtyResultSchema>;

export const CheckDocumentDirtyTool = toolType(
  'checkDocumentDirty',
  "Check whether a file is open in the user's editor with unsaved changes, before reading or writing it on disk (the disk copy may be out of date). Returns JSON {isOpen, isDirty}; {isOpen: false, isDirty: false} for a file not open (or not on disk).",
  CheckDocumentDirtyParamsSchema,
  CheckDocumentDirtyResultSchema,
  { arguments: [['path']], result: [] },
  'checkDocumentDirty',
);
