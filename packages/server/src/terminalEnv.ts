/** The environment a companion puts into its integrated terminals, so `gemini` there finds this instance. */
import { ENV } from '@ide-companion/protocol';

export interface TerminalEnvInput {
  port: number;
  workspacePath: string;
  authToken: string;
  idePid: number;
}

export type TerminalEnv = Readonly<Record<string, string>>;

export function buildTerminalEnv(input: TerminalEnvInput): TerminalEnv {
  return Object.freeze({
    [ENV.SERVER_PORT]: String(input.port),
    [ENV.WORKSPACE_PATH]: input.workspacePath,
    [ENV.AUTH_TOKEN]: input.authToken,
    [ENV.IDE_PID]: String(input.idePid),
  });
}
