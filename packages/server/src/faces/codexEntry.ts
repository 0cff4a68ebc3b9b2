/**
 * Codex CLI's registry line: no lock file; the face joins (or becomes) the
 * per-user router on Codex's IPC socket (codexFace.ts), where the CLI asks
 * for the IDE's context.
 */
import * as path from 'node:path';
import { codexHome, codexHomeFromEnv, codexLegacySocketPaths, codexSocketPath, AGENT_CONNECT_HINTS } from '@ide-companion/shared/agentPaths';
import type { HealthItem } from '../healthLines.js';
import type { FaceDefinition } from './agentFace.js';
import { CodexFace } from './codexFace.js';

/** How long start waits for the face to join (or become) the router; it keeps trying after. */
const CODEX_JOIN_WAIT_MS = 1_000;

export const codexFace: FaceDefinition = {
  agent: 'codex',
  connectHint: AGENT_CONNECT_HINTS.codex,
  create(host, given) {
    const socketPath = given.path ?? codexSocketPath();
    const face = new CodexFace({
      socketPath,
      legacySocketPaths: codexLegacySocketPaths(host.tmpdir),
      logger: host.logger,
      roots: () => host.context.getRoots(),
      context: () => ({ context: host.context.snapshot(), selectionBackward: host.context.selectionBackward }),
    });
    let started = false;
    const state = (): CodexFaceState => ({
      socketPath,
      connected: face.connected,
      router: face.isRouter,
      ...(face.refusal !== undefined && { refused: face.refusal }),
    });
    return {
      agent: 'codex',
      get discovery() {
        return {
          home: given.path !== undefined ? path.dirname(path.dirname(socketPath)) : codexHome(),
          namedByEnv: given.path !== undefined || codexHomeFromEnv(),
        };
      },
      async serve() {
        if (!host.unixSockets) throw new Error('the companion has no Unix socket here');
        started = true;
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, CODEX_JOIN_WAIT_MS);
          timer.unref();
        });
        await Promise.race([face.start(), waited]);
        clearTimeout(timer);
      },
      refusal: () => face.refusal,
      stop: () => face.stop(),
      state,
      health: () => (started ? [codexHealthItem(state())] : []),
    };
  },
};

/** Where the face is: whether it joined a router, whether it is the router, why refused (Companion.faceState). */
export interface CodexFaceState {
  socketPath: string;
  connected: boolean;
  router: boolean;
  refused?: string;
}

/** Codex CLI's socket: ours (this companion routes), another's router we joined, or refused (why). */
export function codexHealthItem(codex: CodexFaceState): HealthItem {
  if (codex.refused !== undefined)
    return { level: 'warn', text: `Codex CLI not served: ${codex.refused}`, advice: ['codex /ide gets no context from this editor'] };
  if (!codex.connected)
    return {
      level: 'warn',
      text: `Codex CLI: not joined to the router on ${codex.socketPath} yet (it keeps trying)`,
      advice: ['codex /ide may say to open the project in VS Code'],
    };
  return {
    level: 'ok',
    text: `Codex CLI: ${codex.router ? 'this companion routes' : 'joined the router on'} ${codex.socketPath}; codex there takes the context with /ide`,
  };
}
