/**
 * GitHub Copilot CLI's face (issue 31): the same companion reached the way
 * Copilot CLI (1.0.102) reaches an IDE. Its lock file
 * `<COPILOT_HOME or ~/.copilot>/ide/<PORT>.lock` names a Unix socket of the
 * companion's (beside the relay's, in the companion's private folder) and
 * the headers to send; the CLI speaks MCP Streamable HTTP at
 * `http://localhost/mcp` over that socket, with Copilot's tool names
 * (copilotTools.ts) and notifications (`selection_changed`,
 * `add_file_reference`, `add_selection`). Its sessions are HTTP sessions of
 * a registry of their own (their notifications are Copilot's, not Gemini's),
 * on the same diff coordinator and context: a diff's outcome reaches the CLI
 * as the answer to its blocking open_diff.
 */
import type * as http from 'node:http';
import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  DiffAcceptedNotification,
  type ClaudeSelectionChanged,
  type CompanionNotification,
  type CopilotLockFile,
  type IdeContext,
  COPILOT_NOTIFICATION,
} from '@ide-companion/protocol';
import { listenPrivately, SOCKET_HOST } from '../companionSocket.js';
import { createMcpHttpHandler } from '../http/mcpHttpHandler.js';
import { closeServer, mcpServer } from '../http/mcpServer.js';
import { socketHostRule } from '../http/requestGuard.js';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import { SessionRegistry, sessionLimits, type SessionInfo, type SessionLimits } from '../sessions.js';
import { selectionOf } from './selection.js';
import { sweepStaleLockFiles } from './lockFile.js';
import type { FileMention, SessionFace } from './sessionFace.js';
import { TabbedDiffs } from './tabbedDiffs.js';

export { copilotIdeDir } from '@ide-companion/shared/agentPaths';
export type { CopilotLockFile } from '@ide-companion/protocol';

/** open_diff's answer, JSON in one text block: `SAVED` approves the CLI's edit. */
export type CopilotDiffOutcome = { success: boolean; result: 'SAVED' | 'REJECTED'; trigger: string; message: string };

const NOTIFICATION_METHODS = new Set<string>(Object.values(COPILOT_NOTIFICATION));

export function copilotOutcome(outcome: CopilotDiffOutcome): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(outcome) }] };
}

const closedOutcome = () => copilotOutcome({ success: false, result: 'REJECTED', trigger: 'closed', message: 'The diff was closed without a decision' });

export interface CopilotFaceOptions extends SessionLimits {
  token: string;
  maxBodyBytes: number;
  /** What the user has selected now (Claude's shape, which Copilot CLI reads too), for a stream that opens. */
  currentSelection: () => ClaudeSelectionChanged | undefined;
  onSessionClosed: (sessionId: string) => void;
  onSessionsChanged: () => void;
}

export class CopilotFace implements SessionFace {
  readonly agent = 'copilot' as const;
  readonly sessions: SessionRegistry;
  readonly server: http.Server;
  /** open_diff calls waiting for the user, per session, by tab name. */
  private readonly waiting = new Map<string, TabbedDiffs<CallToolResult>>();
  private lastSelection: string | undefined;

  constructor(private readonly options: CopilotFaceOptions) {
    this.sessions = new SessionRegistry({
      ...sessionLimits(options),
      // What the user has selected now, as the CLI's stream opens.
      onStreamOpen: (id) => {
        const selection = options.currentSelection();
        if (!selection) return;
        this.lastSelection = JSON.stringify(selection);
        this.send(id, COPILOT_NOTIFICATION.selectionChanged, selection);
      },
      onSessionClosed: (id) => {
        this.waiting.get(id)?.settleAll();
        this.waiting.delete(id);
        options.onSessionClosed(id);
      },
      onSessionsChanged: options.onSessionsChanged,
      validate: validateCopilotNotification,
    });
    const handler = createMcpHttpHandler({
      hosts: socketHostRule(SOCKET_HOST),
      tokens: [[options.token, 'copilot']],
      maxBodyBytes: options.maxBodyBytes,
      sessions: this.sessions,
      logger: options.logger,
    });
    this.server = mcpServer(handler);
  }

  /** The header the lock file names: the CLI sends it on every request. */
  get headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.options.token}` };
  }

  listen(socketPath: string): Promise<void> {
    return listenPrivately(this.server, socketPath);
  }

  owns(sessionId: string): boolean {
    return this.sessions.agentOf(sessionId) !== undefined;
  }

  /** The session's waits by tab name (made on first use). */
  diffsOf(sessionId: string): TabbedDiffs<CallToolResult> {
    let diffs = this.waiting.get(sessionId);
    if (!diffs) {
      diffs = new TabbedDiffs(closedOutcome);
      this.waiting.set(sessionId, diffs);
    }
    return diffs;
  }

  /** A diff's outcome from the coordinator: the answer to the session's blocking open_diff. */
  deliver(sessionId: string, notification: CompanionNotification): void {
    const { filePath } = notification.params as { filePath: string };
    const accepted = notification.method === DiffAcceptedNotification.method;
    this.waiting
      .get(sessionId)
      ?.settleFile(
        filePath,
        copilotOutcome(
          accepted
            ? { success: true, result: 'SAVED', trigger: 'accepted_in_ide', message: `The user accepted the changes to ${filePath}` }
            : { success: true, result: 'REJECTED', trigger: 'rejected_in_ide', message: `The user rejected the changes to ${filePath}` },
        ),
      );
  }

  /** The context changed: every session hears `selection_changed` when the active file or selection differs from what they last heard. */
  contextChanged(context: IdeContext, selectionBackward: boolean): void {
    // Nobody to tell (the usual case: the face is up for a user who has Copilot CLI): a stream that opens asks currentSelection.
    if (this.sessions.size === 0) return;
    const selection = selectionOf(context, selectionBackward);
    if (!selection) return;
    const key = JSON.stringify(selection);
    if (key === this.lastSelection) return;
    this.lastSelection = key;
    this.sessions.broadcast({ method: COPILOT_NOTIFICATION.selectionChanged, params: selection } as never);
  }

  /** "Send to agent": a file (`add_file_reference`) or lines of it (`add_selection`, 0-based). Returns how many heard it. */
  mention({ filePath, startLine, endLine }: FileMention): number {
    const lines = startLine !== undefined ? { start: startLine - 1, end: (endLine ?? startLine) - 1 } : undefined;
    const params = {
      filePath,
      fileUrl: pathToFileURL(filePath).href,
      selection: lines ? { start: { line: lines.start, character: 0 }, end: { line: lines.end, character: 0 } } : null,
      selectedText: null,
    };
    return this.sessions.broadcast({ method: lines ? COPILOT_NOTIFICATION.addSelection : COPILOT_NOTIFICATION.addFileReference, params } as never);
  }

  list(): SessionInfo[] {
    return this.sessions.list();
  }

  async close(): Promise<void> {
    for (const diffs of this.waiting.values()) diffs.settleAll();
    this.waiting.clear();
    await this.sessions.closeAll();
    await closeServer(this.server);
  }

  private send(id: string, method: string, params: object): void {
    this.sessions.notify(id, { method, params } as never);
  }
}

/** Copilot's notifications go out as they are (their shapes made here); anything else is refused. */
function validateCopilotNotification(notification: CompanionNotification): CompanionNotification {
  if (!NOTIFICATION_METHODS.has(notification.method)) throw new Error(`Copilot CLI takes no ${notification.method}`);
  return notification;
}

/** The lock file Copilot CLI reads. */
export function copilotLockFile(input: {
  socketPath: string;
  headers: Record<string, string>;
  idePid: number;
  roots: readonly string[];
  ideName: string;
  trusted?: boolean;
}): CopilotLockFile {
  return {
    socketPath: input.socketPath,
    scheme: 'unix',
    headers: input.headers,
    pid: input.idePid,
    timestamp: Date.now(),
    workspaceFolders: [...input.roots],
    ideName: input.ideName,
    ...(input.trusted !== undefined && { isTrusted: input.trusted }),
  };
}

/** Removes our own Copilot lock files whose IDE is gone (their pid dead), as the CLI skips them. */
export function sweepStaleCopilotLockFiles(dir: string, isAlive: (pid: number) => boolean = isProcessAlive): string[] {
  return sweepStaleLockFiles(dir, 'pid', isAlive);
}
