/**
 * Factory Droid's registry line (issue 36): a loopback port of its own
 * (droidFace.ts: the CLI sends no token, so a same-user check stands in for
 * one), named by the lock file `~/.factory/ide/<ITS PORT>.lock` and by
 * FACTORY_VSCODE_MCP_PORT in the editor's terminals; its four tools over the
 * companion's (droidTools.ts).
 */
import * as path from 'node:path';
import { DROID_ENV, type Diagnostic, type DroidLockFile } from '@ide-companion/protocol';
import { droidIdeDir, AGENT_CONNECT_HINTS } from '@ide-companion/shared/agentPaths';
import { readPinned } from '@ide-companion/shared/pinnedFiles';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import type { HealthItem } from '../../healthLines.js';
import { getDiagnostics } from '../../tools/getDiagnostics.js';
import type { FaceDefinition } from '../agentFace.js';
import { ask, isResult } from '../faceAnswers.js';
import { sweepStaleLockFiles } from '../lockFile.js';
import { DROID_HEARTBEAT_MS, DroidFace } from './droidFace.js';
import { droidDiagnostics, registerDroidTools } from './droidTools.js';
import { peerUidSupported } from './peerUid.js';

/** Lines counted for activeFile only in files up to this size, else 0 (the CLI requires the field and shows nothing of it). */
const MAX_COUNTED_BYTES = 4 * 1024 * 1024;

export const droidFace: FaceDefinition = {
  agent: 'droid',
  connectHint: AGENT_CONNECT_HINTS.droid,
  create(host, given) {
    const dir = () => given.path ?? droidIdeDir();
    let served = false;
    let refused: string | undefined;
    const face: DroidFace = new DroidFace({
      ...host.limits,
      // The keep-alive when shorter (tests), else well inside the CLI's 75 s.
      heartbeatMs: Math.min(DROID_HEARTBEAT_MS, host.limits.keepAliveMs),
      logger: host.logger,
      createServer: async () => {
        const server = await host.mcpServer();
        registerDroidTools(server, host.tools, host.toolEnvironment());
        return server;
      },
      // By descriptor inside the roots, as every read of a user's file (shared/pinnedFiles.ts): a link out of them is not read.
      lineCount: async (file) => {
        try {
          const text = await readPinned(file, MAX_COUNTED_BYTES, { roots: host.context.getRoots(), use: 'read' });
          return text === undefined ? 0 : linesIn(text);
        } catch {
          return 0;
        }
      },
      context: () => ({ context: host.context.snapshot(), selectionBackward: host.context.selectionBackward }),
      diagnosticsOf: async (file) => {
        if (!host.tools.includes(getDiagnostics)) return undefined;
        const answer = await ask<{ diagnostics: Diagnostic[] }>(getDiagnostics, { path: file }, host.toolEnvironment(), 'droid-face');
        return isResult(answer) ? undefined : { filePath: file, ...droidDiagnostics(answer.diagnostics) };
      },
      uid: typeof process.getuid === 'function' ? process.getuid() : -1,
      onSessionClosed: (id) => host.sessionClosed(id),
      onSessionsChanged: () => host.sessionsChanged(),
    });
    return {
      agent: 'droid',
      get discovery() {
        return { home: path.dirname(dir()), namedByEnv: given.path !== undefined || Boolean(process.env[DROID_ENV.API_KEY]) };
      },
      sessions: face,
      async serve() {
        if (served) return;
        if (!peerUidSupported()) {
          refused = 'Factory Droid sends no token, and without /proc/net/tcp this system cannot tell which user connects to its port';
          throw new Error(refused);
        }
        await face.listen();
        served = true;
      },
      lock: {
        get dir() {
          return dir();
        },
        // The CLI dials the port in the file's name: the face's own, not the companion's.
        fileName: () => `${face.port}.lock`,
        sweep: (d) => sweepStaleLockFiles(d, 'pid', isProcessAlive),
        contents: (): DroidLockFile => ({ pid: host.idePid, ideName: host.ideInfo.displayName, workspaceFolders: [...host.context.getRoots()] }),
      },
      terminalEnv: () => ({ [DROID_ENV.MCP_PORT]: String(face.port) }),
      state: () => ({ port: face.port, sessions: face.sessions.size }),
      health: (): HealthItem[] => {
        if (refused !== undefined) return [{ level: 'warn', text: `Factory Droid not served: ${refused}` }];
        if (!served) return [];
        const sessions = face.sessions.size;
        return [
          {
            level: 'ok',
            text: `Factory Droid: port ${face.port} (${path.join(dir(), `${face.port}.lock`)}); ${sessions === 0 ? 'no CLI connected' : `${sessions} session${sessions === 1 ? '' : 's'} (a CLI opens two)`}`,
          },
        ];
      },
    };
  },
};

/** Lines in `text`: its newlines + 1. */
function linesIn(text: string): number {
  let n = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
  return n;
}
