/**
 * Qwen Code's discovery (issue 19): it speaks Gemini CLI's protocol (MCP
 * Streamable HTTP, the same tools and notifications) but finds a companion
 * through a lock file of its own, `<QWEN_HOME or ~/.qwen>/ide/<PORT>.lock`
 * (docs/agents.md), and the terminal variables QWEN_CODE_IDE_SERVER_PORT and
 * QWEN_CODE_IDE_WORKSPACE_PATH.
 */
import * as z from 'zod/mini';
import { lazySchema } from './lazySchema.js';

/** What Qwen Code 0.24.4 reads from the lock file. */
export const QwenLockFileSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    port: z.int(),
    /** The workspace roots joined with the platform's path delimiter, as Qwen Code's own companion writes them. */
    workspacePath: z.string(),
    /** The IDE's PID: Qwen Code deletes lock files whose ppid is dead. */
    ppid: z.int(),
    authToken: z.string(),
    ideName: z.string(),
    /**
     * Not in Qwen Code's companion spec, but read by its CLI (0.24.4) to know
     * the IDE: without it Qwen Code needs TERM_PROGRAM=vscode and refuses every
     * other terminal ("IDE integration is not supported in your current
     * environment"), as Gemini CLI does without its discovery file's ideInfo.
     */
    ideInfo: z.object({ name: z.string(), displayName: z.string() }),
  }),
);
export type QwenLockFile = z.infer<typeof QwenLockFileSchema>;
