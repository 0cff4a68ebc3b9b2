/**
 * Every agent that finds an editor through a lock file of its own, as one
 * table: the file's schema (what the CLI reads), the field naming the IDE's
 * process (the liveness the CLI and our sweep read), whether the file names
 * the companion's port, and what the CLI does with a file it cannot use.
 * The faces write these files, `check` verifies them, from this one place.
 */
import type * as z from 'zod/mini';
import { AmpLockFileSchema } from './amp.js';
import { ClaudeLockFileSchema } from './claude.js';
import { CopilotLockFileSchema } from './copilot.js';
import { DroidLockFileSchema } from './droid.js';
import { LOCK_FILE_NAMING, type LockFileAgent, type LockFileNaming } from './lockFileNames.js';
import { QwenLockFileSchema } from './qwen.js';

export interface AgentLockContract extends LockFileNaming {
  /** The agent, as `IDE_COMPANION_AGENTS` names it. */
  readonly agent: LockFileAgent;
  readonly schema: z.ZodMiniType;
  /** Whether the file names the companion's port (Copilot's names a socket instead). */
  readonly namesPort: boolean;
  /** What the CLI does with a file that fails the schema or whose process is gone. */
  readonly refusal: string;
}

// The name, the pid field and the own port from lockFileNames.ts (zod-free, for doctor and list); the rest here.
export const AGENT_LOCKS: readonly AgentLockContract[] = [
  {
    agent: 'qwen',
    schema: QwenLockFileSchema,
    ...LOCK_FILE_NAMING.qwen,
    namesPort: true,
    refusal: 'Qwen Code deletes it, or without ideInfo refuses every terminal but VS Code’s',
  },
  { agent: 'copilot', schema: CopilotLockFileSchema, ...LOCK_FILE_NAMING.copilot, namesPort: false, refusal: 'Copilot CLI skips it' },
  { agent: 'amp', schema: AmpLockFileSchema, ...LOCK_FILE_NAMING.amp, namesPort: true, refusal: 'Amp finds no editor' },
  {
    agent: 'claude',
    schema: ClaudeLockFileSchema,
    ...LOCK_FILE_NAMING.claude,
    namesPort: false,
    refusal: 'Claude Code does not list the editor in /ide',
  },
  {
    agent: 'droid',
    schema: DroidLockFileSchema,
    ...LOCK_FILE_NAMING.droid,
    namesPort: false,
    refusal: 'Factory Droid skips it, or deletes it when its pid is dead',
  },
];
