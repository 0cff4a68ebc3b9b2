/**
 * GitHub Copilot CLI's discovery (1.0.102, its lock file schema read from
 * cli-main.js): `<COPILOT_HOME or ~/.copilot>/ide/<PORT>.lock` names a Unix
 * socket serving MCP over HTTP and the headers to send on every request.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';

/** What Copilot CLI reads from the lock file; it refuses a file that lacks a field. */
export const CopilotLockFileSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    socketPath: z.string(),
    scheme: z.literal('unix'),
    /** Sent verbatim on every request: the face's token. */
    headers: z.record(z.string(), z.string()),
    /** The IDE's PID: the CLI skips files whose pid is dead. */
    pid: z.int(),
    /** When written (ms): a fresh file's socket is probed for longer. */
    timestamp: z.number(),
    workspaceFolders: z.array(z.string()),
    ideName: z.string(),
    isTrusted: z.optional(z.boolean()),
  }),
);
export type CopilotLockFile = z.infer<typeof CopilotLockFileSchema>;

/** The tools Copilot CLI calls by name (its IDE integration's snake_case names). */
export const COPILOT_TOOLS = {
  getSelection: 'get_selection',
  getDiagnostics: 'get_diagnostics',
  openDiff: 'open_diff',
  closeDiff: 'close_diff',
  updateSessionName: 'update_session_name',
} as const;

/** The notifications Copilot CLI hears from its IDE. */
export const COPILOT_NOTIFICATION = { selectionChanged: 'selection_changed', addFileReference: 'add_file_reference', addSelection: 'add_selection' } as const;
