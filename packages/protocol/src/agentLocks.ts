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
import { ampLockFileName, portLockFileName } from './lockFileNames.js';
import { QwenLockFileSchema } from './qwen.js';

export interface AgentLockContract {
  /** The agent, as `IDE_COMPANION_AGENTS` names it. */
  readonly agent: 'qwen' | 'claude' | 'copilot' | 'amp' | 'droid';
  readonly schema: z.ZodMiniType;
  /** The field holding the IDE's PID: a file whose process is gone is stale. */
  readonly pidField: 'pid' | 'ppid';
  /** Whether the file names the companion's port (Copilot's names a socket instead). */
  readonly namesPort: boolean;
  /** The lock file's name for a companion on `port`. */
  readonly fileName: (port: number) => string;
  /**
   * The file is named by a port of the face's own, not the companion's
   * (Factory Droid's: the CLI dials the port in the name): the companion's
   * file is the one whose pid field names its IDE.
   */
  readonly ownPort?: true;
  /** What the CLI does with a file that fails the schema or whose process is gone. */
  readonly refusal: string;
}

export const AGENT_LOCKS: readonly AgentLockContract[] = [
  {
    agent: 'qwen',
    schema: QwenLockFileSchema,
    pidField: 'ppid',
    namesPort: true,
    fileName: portLockFileName,
    refusal: 'Qwen Code deletes it, or without ideInfo refuses every terminal but VS Code’s',
  },
  { agent: 'copilot', schema: CopilotLockFileSchema, pidField: 'pid', namesPort: false, fileName: portLockFileName, refusal: 'Copilot CLI skips it' },
  { agent: 'amp', schema: AmpLockFileSchema, pidField: 'pid', namesPort: true, fileName: ampLockFileName, refusal: 'Amp finds no editor' },
  {
    agent: 'claude',
    schema: ClaudeLockFileSchema,
    pidField: 'pid',
    namesPort: false,
    fileName: portLockFileName,
    refusal: 'Claude Code does not list the editor in /ide',
  },
  {
    agent: 'droid',
    schema: DroidLockFileSchema,
    pidField: 'pid',
    namesPort: false,
    fileName: portLockFileName,
    ownPort: true,
    refusal: 'Factory Droid skips it, or deletes it when its pid is dead',
  },
];
