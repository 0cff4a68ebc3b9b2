/**
 * What :GeminiStatus prints about a running companion, made here and pushed to
 * Neovim with every change (the Lua never waits on the host for it: it shows
 * the last report). :checkhealth's items are the shared report
 * (server/healthLines.ts), asked for when it runs (neovimHost.ts).
 */
import type { SessionInfo } from '@ide-companion/server/sessions';
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';

export interface StatusReport {
  /** :GeminiStatus, less the pending diffs (diff.lua lists its own). */
  lines: string[];
}

/** What the report reads of a companion. */
export interface ReportedCompanion {
  port: number;
  discoveryFilePath: string | undefined;
  socketPath: string | undefined;
  workspacePath: string;
  agentNames: string[];
}

export function sessionLine(session: SessionInfo): string {
  const agent = AGENT_DISPLAY_NAMES[session.agent];
  return `  ${agent}: ${session.clientName ?? 'unknown'} ${session.clientVersion ?? ''} (${session.streamOpen ? 'listening' : 'connecting'})`;
}

export function statusReport(c: ReportedCompanion, sessions: readonly SessionInfo[]): StatusReport {
  const lines = [
    `ide-companion: running on 127.0.0.1:${c.port} (host pid ${process.pid})`,
    `workspace: ${c.workspacePath}`,
    `discovery file: ${c.discoveryFilePath}`,
    ...(c.socketPath ? [`socket: ${c.socketPath}`] : []),
    `agents: ${c.agentNames.join(', ')}`,
    `${sessions.length} CLI session${sessions.length === 1 ? '' : 's'} connected`,
    ...sessions.map(sessionLine),
  ];
  return { lines };
}
