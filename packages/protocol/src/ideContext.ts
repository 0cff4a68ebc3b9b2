/** `IdeContext` and `File`: the payload of `ide/contextUpdate`. */
import * as z from 'zod';

export const CursorSchema = z.object({
  /** 1-based line. */
  line: z.number().int().min(1),
  /** 1-based character (UTF-16 code units are what the CLI expects from VS Code; we count characters). */
  character: z.number().int().min(1),
});
export type Cursor = z.infer<typeof CursorSchema>;

export const FileSchema = z.object({
  /** Absolute path of a file that exists on disk. */
  path: z.string().min(1),
  /** Unix time in milliseconds of the last focus; the CLI sorts by it. */
  timestamp: z.number(),
  isActive: z.boolean().optional(),
  cursor: CursorSchema.optional(),
  selectedText: z.string().optional(),
});
export type File = z.infer<typeof FileSchema>;

export const WorkspaceStateSchema = z.object({
  openFiles: z.array(FileSchema).optional(),
  isTrusted: z.boolean().optional(),
});
export type WorkspaceState = z.infer<typeof WorkspaceStateSchema>;

export const IdeContextSchema = z.object({
  workspaceState: WorkspaceStateSchema.optional(),
});
export type IdeContext = z.infer<typeof IdeContextSchema>;
