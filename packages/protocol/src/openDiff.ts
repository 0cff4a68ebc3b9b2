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

/**
 * The `_meta` key of an openDiff (the request's `params._meta`) under which
 * `ide-companion connect --remote-files` (the relay on an SSH remote) sends
 * the file as the CLI's machine has it: the agent writes that file, not the
 * editor's copy, so the review's base is its content. The companion takes it
 * only from a session opened on its sockets (the relay's), and the relay
 * replaces whatever the CLI put under this key (docs/remote.md).
 */
export const REMOTE_BASE_META_KEY = 'ide-companion/remoteBase';

export const RemoteBaseSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    /** The file's path on the CLI's machine (as the CLI sent it). */
    path: z.string().check(z.minLength(1)),
    /** That machine's name, for the words. */
    host: z.string(),
    /** Its content; null: no such file (a new file). */
    content: z.nullable(z.string()),
    /** Why it could not be read (not a regular file, over the limit): the diff is refused with it. */
    error: z.optional(z.string()),
  }),
);
export type RemoteBase = z.infer<typeof RemoteBaseSchema>;
