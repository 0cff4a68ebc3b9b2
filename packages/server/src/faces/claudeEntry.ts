/**
 * Claude Code's registry line: a lock file naming a WebSocket on the
 * companion's port (claude.ts), with Claude's tools (claudeTools.ts) and
 * variables; opencode uses this face too, so its folder counts as a user of it.
 */
import * as path from 'node:path';
import { CLAUDE_ENV } from '@ide-companion/protocol';
import { AGENT_DISPLAY_NAMES, agentHomeFromEnv, claudeIdeDir, opencodeDataDir, AGENT_CONNECT_HINTS } from '@ide-companion/shared/agentPaths';
import { generateAuthToken } from '../auth.js';
import type { FaceDefinition } from './agentFace.js';
import { ClaudeFace, claudeLockFile, sweepStaleClaudeLockFiles } from './claude.js';
import { registerClaudeTools } from './claudeTools.js';
import { selectionOf } from './selection.js';

export const claudeFace: FaceDefinition = {
  agent: 'claude',
  connectHint: AGENT_CONNECT_HINTS.claude,
  create(host, given) {
    const token = generateAuthToken();
    // Read when served, not when made: the variables are the ones at start.
    const dir = () => given.path ?? claudeIdeDir();
    const sessions = new ClaudeFace({
      token,
      hosts: host.portHosts,
      maxPayload: host.limits.maxBodyBytes,
      keepAliveMs: host.limits.keepAliveMs,
      logger: host.logger,
      createServer: async (session) => {
        const server = await host.mcpServer();
        registerClaudeTools(server, host.tools, host.toolEnvironment(), session);
        return server;
      },
      onSessionClosed: (id) => host.sessionClosed(id),
      onSessionsChanged: () => host.sessionsChanged(),
      currentSelection: () => selectionOf(host.context.snapshot(), host.context.selectionBackward),
    });
    return {
      agent: 'claude',
      // opencode reads Claude Code's lock files: a user who has opencode gets ~/.claude/ide, where it looks.
      get discovery() {
        return {
          home: path.dirname(dir()),
          namedByEnv: given.path !== undefined || agentHomeFromEnv('claude'),
          borrowers: [{ name: AGENT_DISPLAY_NAMES.opencode, home: opencodeDataDir() }],
        };
      },
      sessions,
      lock: {
        get dir() {
          return dir();
        },
        sweep: sweepStaleClaudeLockFiles,
        contents: () => claudeLockFile({ idePid: host.idePid, roots: host.context.getRoots(), ideName: host.ideInfo.displayName, token }),
      },
      terminalEnv: () => ({
        [CLAUDE_ENV.SSE_PORT]: String(host.port()),
        [CLAUDE_ENV.ENABLE_IDE_INTEGRATION]: 'true',
        // Claude Code in VS Code's (or a JetBrains IDE's) terminal installs its own extension unless told not to: two companions would compete.
        [CLAUDE_ENV.SKIP_AUTO_INSTALL]: 'true',
      }),
    };
  },
};
