/**
 * Factory Droid's registry line (issue 36): a loopback port of its own
 * (droidFace.ts: the CLI sends no token, so a same-user check stands in for
 * one), named by the lock file `~/.factory/ide/<ITS PORT>.lock` and by
 * FACTORY_VSCODE_MCP_PORT in the editor's terminals; its four tools over the
 * companion's (droidTools.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DROID_ENV, type Diagnostic, type DroidLockFile } from '@ide-companion/protocol';
import { droidIdeDir } from '@ide-companion/shared/agentPaths';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import type { HealthItem } from '../../healthLines.js';
import { getDiagnostics } from '../../tools/getDiagnostics.js';
import type { FaceDefinition } from '../agentFace.js';
import { ask, isResult } from '../faceAnswers.js';
import { sweepStaleLockFiles } from '../lockFile.js';
import { DROID_HEARTBEAT_MS, DroidFace } from './droidFace.js';
import { droidDiagnostics, registerDroidTools } from './droidTools.js';
import { peerUidSupported } from './peerUid.js';

/** Lines counted for activeFile only in files up to this size (the CLI requires the field and shows nothing of it). */
const MAX_COUNTED_BYTES = 4 * 1024 * 1024;

export const droidFace: FaceDefinition = {
  agent: 'droid',
  connectHint: 'droid there connects with /ide (or its ideAutoConnect setting)',
  create(host, given) {
    const dir = () => given.path ?? droidIdeDir();
    const counted = new Map<string, number>();
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
      lineCount: (file) => {
        let n = counted.get(file);
        if (n === undefined) {
          n = countLines(file);
          // One entry per file the user focused: bounded by keeping the last few.
          if (counted.size >= 64) counted.delete(counted.keys().next().value!);
          counted.set(file, n);
        }
        return n;
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

/** Lines in `file` (newlines + 1), read only when small; 0 when unreadable or larger. */
function countLines(file: string): number {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_COUNTED_BYTES) return 0;
    const text = fs.readFileSync(file);
    let n = 1;
    for (const byte of text) if (byte === 0x0a) n++;
    return n;
  } catch {
    return 0;
  }
}
