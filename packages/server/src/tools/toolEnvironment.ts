/** What a tool handler may use; one instance per companion, shared by every session's McpServer. */
import type { ContextTracker } from '../contextTracker.js';
import type { DiffCoordinator } from '../diffCoordinator.js';
import type { Logger } from '../logger.js';

export interface ToolEnvironment {
  context: ContextTracker;
  diffs: DiffCoordinator;
  logger: Logger;
}

/** A tool's answer carrying one error text block. */
export function toolError(message: string) {
  return { isError: true, content: [{ type: 'text' as const, text: message }] };
}

/** The MCP session a tool call arrived on (always set over Streamable HTTP). */
export function sessionOf(extra: { sessionId?: string }): string {
  return extra.sessionId ?? 'unknown-session';
}
