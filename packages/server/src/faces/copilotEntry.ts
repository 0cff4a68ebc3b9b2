/**
 * GitHub Copilot CLI's registry line: MCP over a Unix socket of its own in
 * the companion's private folder (copilot.ts), named by a lock file with the
 * header it sends; Copilot's tools over the same ones (copilotTools.ts).
 */
import * as path from 'node:path';
import { agentHomeFromEnv, copilotIdeDir, AGENT_CONNECT_HINTS } from '@ide-companion/shared/agentPaths';
import { generateAuthToken } from '../auth.js';
import { describeError } from '../logger.js';
import type { FaceDefinition } from './agentFace.js';
import { CopilotFace, copilotLockFile, sweepStaleCopilotLockFiles } from './copilot.js';
import { registerCopilotTools } from './copilotTools.js';
import { selectionOf } from './selection.js';

export const copilotFace: FaceDefinition = {
  agent: 'copilot',
  connectHint: AGENT_CONNECT_HINTS.copilot,
  create(host, given) {
    // Read when served, not when made: the variables are the ones at start.
    const dir = () => given.path ?? copilotIdeDir();
    let socketPath: string | undefined;
    const sessions: CopilotFace = new CopilotFace({
      token: generateAuthToken(),
      ...host.limits,
      logger: host.logger,
      createServer: async () => {
        const server = await host.mcpServer();
        registerCopilotTools(server, host.tools, host.toolEnvironment(), sessions);
        return server;
      },
      currentSelection: () => selectionOf(host.context.snapshot(), host.context.selectionBackward),
      onSessionClosed: (id) => host.sessionClosed(id),
      onSessionsChanged: () => host.sessionsChanged(),
    });
    return {
      agent: 'copilot',
      get discovery() {
        return { home: path.dirname(dir()), namedByEnv: given.path !== undefined || agentHomeFromEnv('copilot') };
      },
      sessions,
      async serve() {
        // Served again (its folder went and came back): its socket is still there.
        if (socketPath !== undefined) return;
        const socketDir = host.unixSockets ? host.socketDir() : undefined;
        if (socketDir === undefined) throw new Error('the companion has no private socket folder');
        const at = path.join(socketDir, 'copilot.sock');
        try {
          await sessions.listen(at);
        } catch (err) {
          throw new Error(`its socket could not be made: ${describeError(err)}`);
        }
        socketPath = at;
      },
      lock: {
        get dir() {
          return dir();
        },
        sweep: sweepStaleCopilotLockFiles,
        contents: () =>
          copilotLockFile({
            socketPath: socketPath!,
            headers: sessions.headers,
            idePid: host.idePid,
            roots: host.context.getRoots(),
            ideName: host.ideInfo.displayName,
            trusted: host.trusted,
          }),
      },
    };
  },
};
