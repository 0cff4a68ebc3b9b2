/** The environment a companion puts into its integrated terminals, so `gemini` (and `qwen`) there finds this instance. */
import { CLAUDE_ENV, CONTAINER_ENV, ENV } from '@ide-companion/protocol';
import { QWEN_ENV } from '@ide-companion/shared/agentPaths';

export interface TerminalEnvInput {
  port: number;
  workspacePath: string;
  authToken: string;
  idePid: number;
  /** Qwen Code's variables too (its face is on). */
  qwen?: boolean;
  /** Claude Code's too: the port it connects to first, and IDE integration on. */
  claude?: boolean;
  /**
   * In a container, where gemini and qwen dial host.docker.internal unless told they run beside
   * their IDE (protocol/containerHost.ts): they do, in its terminals, so REMOTE_CONTAINERS=1 too.
   */
  container?: boolean;
}

export type TerminalEnv = Readonly<Record<string, string>>;

export function buildTerminalEnv(input: TerminalEnvInput): TerminalEnv {
  return Object.freeze({
    [ENV.SERVER_PORT]: String(input.port),
    [ENV.WORKSPACE_PATH]: input.workspacePath,
    [ENV.AUTH_TOKEN]: input.authToken,
    [ENV.IDE_PID]: String(input.idePid),
    ...(input.qwen && { [QWEN_ENV.SERVER_PORT]: String(input.port), [QWEN_ENV.WORKSPACE_PATH]: input.workspacePath }),
    ...(input.claude && {
      [CLAUDE_ENV.SSE_PORT]: String(input.port),
      [CLAUDE_ENV.ENABLE_IDE_INTEGRATION]: 'true',
      // Claude Code in VS Code's (or a JetBrains IDE's) terminal installs its own extension unless told not to: two companions would compete.
      [CLAUDE_ENV.SKIP_AUTO_INSTALL]: 'true',
    }),
    ...(input.container && { [CONTAINER_ENV.REMOTE_CONTAINERS]: '1' }),
  });
}
