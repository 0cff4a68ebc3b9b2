/** Qwen Code's registry line: a lock file and two variables; its sessions are Gemini CLI's, by its own token on the port (qwen.ts). */
import * as path from 'node:path';
import { agentHomeFromEnv, qwenIdeDir, QWEN_ENV, AGENT_CONNECT_HINTS } from '@ide-companion/shared/agentPaths';
import type { QwenLockFile } from '@ide-companion/protocol';
import { generateAuthToken } from '../auth.js';
import type { FaceDefinition } from './agentFace.js';
import { sweepStaleQwenLockFiles } from './qwen.js';

export const qwenFace: FaceDefinition = {
  agent: 'qwen',
  connectHint: AGENT_CONNECT_HINTS.qwen,
  create(host, given) {
    const token = generateAuthToken();
    // Read when served, not when made: the variables are the ones at start.
    const dir = () => given.path ?? qwenIdeDir();
    return {
      agent: 'qwen',
      get discovery() {
        return { home: path.dirname(dir()), namedByEnv: given.path !== undefined || agentHomeFromEnv('qwen') };
      },
      portToken: token,
      lock: {
        get dir() {
          return dir();
        },
        sweep: sweepStaleQwenLockFiles,
        contents: (): QwenLockFile => ({
          port: host.port(),
          workspacePath: host.workspacePath(),
          ppid: host.idePid,
          authToken: token,
          ideName: host.ideInfo.displayName,
          ideInfo: host.ideInfo,
        }),
      },
      terminalEnv: () => ({ [QWEN_ENV.SERVER_PORT]: String(host.port()), [QWEN_ENV.WORKSPACE_PATH]: host.workspacePath() }),
    };
  },
};
