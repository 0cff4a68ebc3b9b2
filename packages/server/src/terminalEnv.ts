/** The environment a companion puts into its integrated terminals, so `gemini` (and `qwen`) there finds this instance. */
import { CONTAINER_ENV, ENV } from '@ide-companion/protocol';

export interface TerminalEnvInput {
  port: number;
  workspacePath: string;
  authToken: string;
  idePid: number;
  /** The served faces' own variables (Qwen Code's port, Claude Code's...: faces/agentFace.ts). */
  faces?: Readonly<Record<string, string>>;
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
    ...input.faces,
    ...(input.container && { [CONTAINER_ENV.REMOTE_CONTAINERS]: '1' }),
  });
}
