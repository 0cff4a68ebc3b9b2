/**
 * Copilot CLI's vocabulary (1.0.102): `get_selection`, `get_diagnostics`
 * (handed to its model as tools), `open_diff` (blocking; JSON
 * `{success, result: SAVED|REJECTED, trigger, message}`), `close_diff`
 * (JSON `{success, already_closed, tab_name, message}`) and
 * `update_session_name`, each a thin mapping onto the companion's tools,
 * path checks and diff coordinator. Nothing of diffs or context is decided here.
 */
import { pathToFileURL } from 'node:url';
import * as z from 'zod/mini';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Diagnostic } from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { getDiagnostics } from '../tools/getDiagnostics.js';
import { toolError, type ToolDefinition, type ToolEnvironment } from '../tools/toolDefinition.js';
import { controlCharacterRefusal, pathOf } from '../tools/workspacePaths.js';
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';
import { selectionOf } from './selection.js';
import { copilotOutcome, type CopilotFace } from './copilot.js';
import { ask, diagnosticsByFile, isResult, json, zeroBased } from './faceAnswers.js';
import { COPILOT_TOOLS } from '@ide-companion/protocol';

const OpenDiffArguments = z.object({
  original_file_path: z.string().check(z.minLength(1), z.describe('Absolute path of the file the proposal is for.')),
  new_file_contents: z.string().check(z.describe('The whole proposed text.')),
  tab_name: z.string().check(z.minLength(1), z.describe('A name for the diff; close_diff takes it.')),
});
const TabNameArguments = z.object({ tab_name: z.string().check(z.minLength(1)) });
const DiagnosticsArguments = z.object({ uri: z.optional(z.string().check(z.describe('A file:// URI or an absolute path; omitted: every file.'))) });
const NoArguments = z.object({});
const SessionNameArguments = z.object({ name: z.string() });

/** Copilot's path arguments (a path or a `file://` URI): one with a control character is refused before anything else. */
const PATH_ARGUMENTS = [['original_file_path'], ['uri']] as const;

/** Registers Copilot's tools on one session's server. */
export function registerCopilotTools(server: McpServer, offered: readonly ToolDefinition[], env: ToolEnvironment, face: CopilotFace): void {
  const register = (
    name: string,
    description: string,
    schema: unknown,
    run: (args: never, sessionId: string, signal: AbortSignal) => Promise<CallToolResult>,
  ) => {
    const callback = (args: unknown, extra: { sessionId?: string; signal: AbortSignal }) => {
      const control = controlCharacterRefusal(name, args, PATH_ARGUMENTS);
      return control ? Promise.resolve(toolError(control.message)) : run(args as never, extra.sessionId ?? 'unknown-session', extra.signal);
    };
    server.registerTool(name, { description, inputSchema: schema as never }, callback as never);
  };

  register(COPILOT_TOOLS.getSelection, 'The text selected in the active editor, with its file and 0-based range.', NoArguments, async () => {
    const selection = selectionOf(env.context.snapshot(), env.context.selectionBackward);
    return json(selection ?? { message: 'No active editor' });
  });

  if (offered.includes(getDiagnostics)) {
    register(
      COPILOT_TOOLS.getDiagnostics,
      'Diagnostics the editor shows, for one file (uri) or all.',
      DiagnosticsArguments,
      async ({ uri }: { uri?: string }, sessionId) => {
        const answer = await ask<{ diagnostics: Diagnostic[] }>(getDiagnostics, uri === undefined ? {} : { path: pathOf(uri) }, env, sessionId);
        if (isResult(answer)) return answer;
        return json(
          [...diagnosticsByFile(answer.diagnostics)].map(([file, list]) => ({
            uri: pathToFileURL(file).href,
            filePath: file,
            diagnostics: list.map((d) => ({ message: d.message, severity: d.severity, range: zeroBased(d.range), source: d.source, code: d.code })),
          })),
        );
      },
    );
  }

  if (env.diffs.enabled) {
    register(
      COPILOT_TOOLS.openDiff,
      "Show the proposed new contents of a file as a diff in the user's editor, and wait until the user accepts (SAVED) or rejects it (REJECTED).",
      OpenDiffArguments,
      async ({ original_file_path, new_file_contents, tab_name }: z.infer<typeof OpenDiffArguments>, sessionId, signal) => {
        const diffs = face.diffsOf(sessionId);
        const { outcome, replacedFile } = diffs.wait(tab_name, original_file_path);
        if (replacedFile !== undefined) await env.diffs.close(sessionId, replacedFile);
        try {
          await env.diffs.open(sessionId, original_file_path, new_file_contents, AGENT_DISPLAY_NAMES.copilot, { writesOwnProposal: true });
        } catch (err) {
          diffs.settleTab(tab_name, copilotOutcome({ success: false, result: 'REJECTED', trigger: 'error', message: describeError(err) }));
          env.logger.warn('open_diff refused', { filePath: original_file_path, error: describeError(err) });
          return outcome;
        }
        // The CLI gave up (the user answered in its terminal): the view closes.
        signal.addEventListener('abort', () => void (diffs.holds(tab_name, original_file_path) && closeTab(env, face, sessionId, tab_name)), { once: true });
        return outcome;
      },
    );
    register(
      COPILOT_TOOLS.closeDiff,
      'Close a diff opened by open_diff, by its tab name.',
      TabNameArguments,
      async ({ tab_name }: { tab_name: string }, sessionId) => {
        const closed = await closeTab(env, face, sessionId, tab_name);
        return json({ success: true, already_closed: !closed, tab_name, message: closed ? `Closed ${tab_name}` : `${tab_name} was not open` });
      },
    );
  }

  // The CLI names its session to the IDE; nothing here shows it.
  register(COPILOT_TOOLS.updateSessionName, "The CLI's session name (noted, nothing shown).", SessionNameArguments, async () => json({ success: true }));
}

async function closeTab(env: ToolEnvironment, face: CopilotFace, sessionId: string, tabName: string): Promise<boolean> {
  const waiter = face
    .diffsOf(sessionId)
    .settleTab(tabName, copilotOutcome({ success: false, result: 'REJECTED', trigger: 'closed_by_cli', message: `${tabName} was closed` }));
  if (!waiter) return false;
  await env.diffs.close(sessionId, waiter.filePath);
  return true;
}
