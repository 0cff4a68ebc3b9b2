/**
 * Factory Droid's four tools (0.225.2 calls them by name; every tool listed
 * but openDiff and closeDiff is offered to its model too, so exactly these
 * four are listed, described for a model): each a thin mapping onto the
 * companion's tools, path checks and diff coordinator.
 *
 * openDiff is a preview: the CLI asks the user in its terminal (3 s timeout,
 * answer unread), then closes it with closeDiff and writes the file itself.
 * So the diff opens on the coordinator and the call answers at once; the
 * editor's accept or reject reaches no one (DroidFace.deliver), and nothing
 * is written by us.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  DROID_SEVERITY,
  DROID_TOOLS,
  DroidCloseDiffArgumentsSchema,
  DroidDiagnosticsArgumentsSchema,
  DroidOpenDiffArgumentsSchema,
  DroidOpenFileArgumentsSchema,
  type Diagnostic,
  type DroidDiagnosticsResult,
} from '@ide-companion/protocol';
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';
import { describeError } from '../../logger.js';
import { getDiagnostics } from '../../tools/getDiagnostics.js';
import { openFile } from '../../tools/openFile.js';
import { toolError, type ToolDefinition, type ToolEnvironment } from '../../tools/toolDefinition.js';
import { controlCharacterRefusal, pathOf } from '../../tools/workspacePaths.js';
import { ask, isResult, json, zeroBased } from '../faceAnswers.js';

/** Droid's path arguments (a path, or getIdeDiagnostics' file:// URI): one with a control character is refused first. */
const PATH_ARGUMENTS = [['filePath'], ['uri']] as const;

const DESCRIPTIONS = {
  openDiff: "Show a proposed new content of a file as a diff in the user's editor (a preview; the decision is taken in the CLI).",
  closeDiff: 'Close the diff openDiff showed for a file.',
  openFile: "Open a file inside the workspace folders in the user's editor. waitForSave is not waited on: the answer comes once the file is shown.",
  getIdeDiagnostics:
    "The errors and warnings the user's editor shows for one file (a file:// URI), from its language servers and linters. Returns JSON {diagnostics: [{severity (0 error, 1 warning, 2 information, 3 hint), message, source, range (0-based), code}]}.",
} as const satisfies Record<keyof typeof DROID_TOOLS, string>;

/** Registers Droid's tools on one session's server (each only where the companion has what it needs). */
export function registerDroidTools(server: McpServer, offered: readonly ToolDefinition[], env: ToolEnvironment): void {
  const register = (name: keyof typeof DROID_TOOLS, schema: unknown, run: (args: never, sessionId: string) => Promise<CallToolResult>) => {
    const callback = (args: unknown, extra: { sessionId?: string }) => {
      const control = controlCharacterRefusal(name, args, PATH_ARGUMENTS);
      return control ? Promise.resolve(toolError(control.message)) : run(args as never, extra.sessionId ?? 'unknown-session');
    };
    server.registerTool(DROID_TOOLS[name], { description: DESCRIPTIONS[name], inputSchema: schema as never }, callback as never);
  };

  if (env.diffs.enabled) {
    register('openDiff', DroidOpenDiffArgumentsSchema, async ({ filePath, newContent }: { filePath: string; newContent: string }, sessionId) => {
      try {
        // The roots and the file are checked there, as for every face's diff.
        await env.diffs.open(sessionId, filePath, newContent, AGENT_DISPLAY_NAMES.droid);
      } catch (err) {
        env.logger.warn('openDiff refused', { filePath, error: describeError(err) });
        return toolError(describeError(err));
      }
      return json({ success: true });
    });
    register('closeDiff', DroidCloseDiffArgumentsSchema, async ({ filePath }: { filePath: string }, sessionId) => {
      const text = await env.diffs.close(sessionId, filePath);
      return json({ success: true, alreadyClosed: text === undefined });
    });
  }

  if (offered.includes(openFile)) {
    register('openFile', DroidOpenFileArgumentsSchema, async ({ filePath }: { filePath: string }, sessionId) => {
      const answer = await ask<{ opened: string }>(openFile, { path: filePath }, env, sessionId);
      return isResult(answer) ? answer : json({ success: true, opened: answer.opened });
    });
  }

  if (offered.includes(getDiagnostics)) {
    register('getIdeDiagnostics', DroidDiagnosticsArgumentsSchema, async ({ uri }: { uri: string }, sessionId) => {
      const answer = await ask<{ diagnostics: Diagnostic[] }>(getDiagnostics, { path: pathOf(uri) }, env, sessionId);
      return isResult(answer) ? answer : json(droidDiagnostics(answer.diagnostics));
    });
  }
}

/** Our diagnostics (1-based, named severities) as the CLI reads them (0-based, VS Code's numbers). */
export function droidDiagnostics(diagnostics: readonly Diagnostic[]): DroidDiagnosticsResult {
  return {
    diagnostics: diagnostics.map((d) => ({
      severity: DROID_SEVERITY[d.severity],
      message: d.message,
      range: zeroBased(d.range),
      ...(d.source !== undefined && { source: d.source }),
      ...(d.code !== undefined && { code: d.code }),
    })),
  };
}
