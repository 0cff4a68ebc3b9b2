/**
 * `openDiff` tool: CLI -> companion. Shows a diff of `filePath` against
 * `newContent` (the whole new file, never a patch). Answers `content: []` at
 * once; the outcome follows as `ide/diffAccepted` or `ide/diffRejected`.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';
import { toolType } from './message.js';

export const OpenDiffArgumentsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    /** Absolute path; the file may not exist yet (a new file). */
    filePath: z.string().check(z.minLength(1)),
    newContent: z.string(),
  }),
);
export type OpenDiffArguments = z.infer<typeof OpenDiffArgumentsSchema>;

/** openDiff answers at once with no content blocks (`{"content": []}`); the outcome comes later as a notification. */
export const OpenDiffResultSchema = /* @__PURE__ */ lazySchema(() => z.object({ content: z.array(z.unknown()).check(z.maxLength(0)) }));

export const OpenDiffTool = toolType(
  'openDiff',
  'Open a diff view in the editor comparing a file with proposed new content. The user may edit the proposal, then accept or reject it; the outcome arrives as ide/diffAccepted or ide/diffRejected.',
  OpenDiffArgumentsSchema,
  OpenDiffResultSchema,
  { arguments: [['filePath']], result: [] },
);
