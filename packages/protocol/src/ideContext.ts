/** `IdeContext` and `File`: the payload of `ide/contextUpdate`. */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';

export const CursorSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    /** 1-based line. */
    line: z.int().check(z.minimum(1)),
    /** 1-based character (UTF-16 code units are what the CLI expects from VS Code; we count characters). */
    character: z.int().check(z.minimum(1)),
  }),
);
export type Cursor = z.infer<typeof CursorSchema>;

export const FileSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    /** Absolute path of a file that exists on disk. */
    path: z.string().check(z.minLength(1)),
    /** Unix time in milliseconds of the last focus; the CLI sorts by it. */
    timestamp: z.number(),
    isActive: z.optional(z.boolean()),
    cursor: z.optional(CursorSchema),
    selectedText: z.optional(z.string()),
  }),
);
export type File = z.infer<typeof FileSchema>;

export const WorkspaceStateSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    openFiles: z.optional(z.array(FileSchema)),
    isTrusted: z.optional(z.boolean()),
  }),
);
export type WorkspaceState = z.infer<typeof WorkspaceStateSchema>;

export const IdeContextSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    workspaceState: z.optional(WorkspaceStateSchema),
  }),
);
export type IdeContext = z.infer<typeof IdeContextSchema>;
