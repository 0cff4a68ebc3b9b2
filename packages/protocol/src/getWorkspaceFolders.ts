/** `getWorkspaceFolders`: the workspace roots the companion serves. Always offered (no editor capability needed). */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { toolType } from './message.js';

export const GetWorkspaceFoldersResultSchema = /* @__PURE__ */ lazySchema(() => z.object({ folders: z.array(z.string()) }));
export type GetWorkspaceFoldersResult = z.infer<typeof GetWorkspaceFoldersResultSchema>;

export const GetWorkspaceFoldersTool = toolType(
  'getWorkspaceFolders',
  "List the workspace folders open in the user's editor (absolute paths). Returns JSON {folders}.",
  z.object({}),
  GetWorkspaceFoldersResultSchema,
  { arguments: [], result: [['folders', '*']] },
);
