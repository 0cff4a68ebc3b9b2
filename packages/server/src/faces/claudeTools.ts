/**
 * Claude Code's vocabulary: its tool names and shapes (0-based positions,
 * `filePath`, `uri`, `{success, ...}` answers), each a thin mapping onto the
 * companion's own tools (the same path checks, the same editor actions) or
 * onto the diff coordinator. Nothing of diffs or context is decided here.
 */
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  CLAUDE_DIFF_OUTCOME,
  ClaudeDiagnosticsArgumentsSchema,
  ClaudeFilePathArgumentsSchema,
  ClaudeNoArgumentsSchema,
  ClaudeOpenDiffArgumentsSchema,
  ClaudeOpenFileArgumentsSchema,
  ClaudeTabNameArgumentsSchema,
  type Diagnostic,
  type GetOpenEditorsResult,
  type Range,
} from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { readOriginal } from '../readOriginal.js';
import { checkDocumentDirty } from '../tools/checkDocumentDirty.js';
import { getDiagnostics } from '../tools/getDiagnostics.js';
import { getOpenEditors } from '../tools/getOpenEditors.js';
import { runTool } from '../tools/index.js';
import { openFile } from '../tools/openFile.js';
import { saveDocument } from '../tools/saveDocument.js';
import { textResult, toolError, type ToolDefinition, type ToolEnvironment } from '../tools/toolDefinition.js';
import { checkToolPath, controlCharacterIn, quotedPath } from '../tools/workspacePaths.js';
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';
import { selectionOf, type ClaudeSession } from './claude.js';

/** Largest file searched for openFile's `startText`. */
const MAX_SEARCHED_BYTES = 8 * 1024 * 1024;

const json = (value: unknown): CallToolResult => textResult(JSON.stringify(value));

/** The JSON answer of one of our tools, or its error as Claude's tool error. */
async function ask<T>(definition: ToolDefinition, args: unknown, env: ToolEnvironment, session: ClaudeSession): Promise<T | CallToolResult> {
  const result = await runTool(definition, args, env, { sessionId: session.id });
  if (result.isError) return result;
  const block = result.content[0];
  return JSON.parse(block?.type === 'text' ? block.text : 'null') as T;
}

function isResult(value: unknown): value is CallToolResult {
  return typeof value === 'object' && value !== null && 'content' in value && Array.isArray((value as CallToolResult).content);
}

/** A `file://` URI or a path, as Claude Code sends either. */
function pathOf(uriOrPath: string): string {
  return uriOrPath.startsWith('file://') ? fileURLToPath(uriOrPath) : uriOrPath;
}

const zeroBased = (range: Range) => ({
  start: { line: range.start.line - 1, character: range.start.character - 1 },
  end: { line: range.end.line - 1, character: range.end.character - 1 },
});

/** Claude's path arguments (a path or a `file://` URI), in every tool: one with a control character is refused before anything else. */
const PATH_ARGUMENTS = ['filePath', 'old_file_path', 'new_file_path', 'uri'] as const;

function controlCharacterRefusal(tool: string, args: unknown): CallToolResult | undefined {
  for (const key of PATH_ARGUMENTS) {
    const given = (args as Record<string, unknown> | undefined)?.[key];
    if (typeof given !== 'string') continue;
    let control = controlCharacterIn(given);
    if (!control && given.startsWith('file://')) {
      try {
        control = controlCharacterIn(fileURLToPath(given));
      } catch {
        // A malformed URI is the tool's own error to give.
      }
    }
    if (control) return toolError(`${tool} refused ${quotedPath(given)}: ${control}.`);
  }
  return undefined;
}

const SEVERITY = { error: 'Error', warning: 'Warning', information: 'Information', hint: 'Hint' } as const;

/** Registers Claude's tools for one session: diffs always (any editor shows them), the rest as the editor's capabilities allow. */
export function registerClaudeTools(server: McpServer, offered: readonly ToolDefinition[], env: ToolEnvironment, session: ClaudeSession): void {
  const has = (definition: ToolDefinition) => offered.includes(definition);
  const register = (name: string, description: string, schema: unknown, run: (args: never, signal: AbortSignal) => Promise<CallToolResult>) => {
    const callback = (args: unknown, extra: { signal: AbortSignal }) => {
      const control = controlCharacterRefusal(name, args);
      return control ? Promise.resolve(control) : run(args as never, extra.signal);
    };
    server.registerTool(name, { description, inputSchema: schema as never }, callback as never);
  };

  if (env.diffs.enabled) {
    register(
      'openDiff',
      "Show the proposed new contents of a file as a diff in the user's editor, and wait until the user accepts (answer FILE_SAVED and the final text, with the user's edits) or rejects it (DIFF_REJECTED).",
      ClaudeOpenDiffArgumentsSchema,
      async ({ new_file_path, new_file_contents, tab_name }: { new_file_path: string; new_file_contents: string; tab_name: string }, signal) => {
        const filePath = pathOf(new_file_path);
        const outcome = session.waitForOutcome(filePath, tab_name);
        const opened = env.diffs.open(session.id, filePath, new_file_contents, AGENT_DISPLAY_NAMES.claude).then(
          () => true,
          (err: unknown) => {
            session.settle(filePath, toolError(describeError(err)));
            env.logger.warn('openDiff refused', { filePath, error: describeError(err) });
            return false;
          },
        );
        // The user may decide while the editor is still opening the view (VS Code's opens once the diff is
        // computed): the answer goes when the outcome is known, not when the opening ends.
        if (await Promise.race([opened, outcome.then(() => false)]))
          // The CLI gave up (the user answered in its terminal): the view closes, the waiting ends.
          signal.addEventListener('abort', () => void closeTab(env, session, filePath), { once: true });
        return outcome;
      },
    );
    register('close_tab', 'Close a diff opened by openDiff, by its tab name.', ClaudeTabNameArgumentsSchema, async ({ tab_name }: { tab_name: string }) => {
      const file = session.fileOfTab(tab_name);
      if (file !== undefined) await closeTab(env, session, file);
      return textResult(CLAUDE_DIFF_OUTCOME.closed);
    });
    register('closeAllDiffTabs', 'Close every diff this session opened.', ClaudeNoArgumentsSchema, async () => {
      const files = [...session.waiting.keys()];
      for (const file of files) await closeTab(env, session, file);
      return textResult(`CLOSED_${files.length}_DIFF_TABS`);
    });
  }

  register('getWorkspaceFolders', 'List the workspace folders open in the editor.', ClaudeNoArgumentsSchema, async () => {
    const roots = env.context.getRoots();
    return json({
      success: true,
      folders: roots.map((root) => ({ name: path.basename(root), uri: pathToFileURL(root).href, path: root })),
      rootPath: roots[0] ?? null,
    });
  });
  for (const name of ['getCurrentSelection', 'getLatestSelection']) {
    register(name, 'The text selected in the active editor, with its file and 0-based range.', ClaudeNoArgumentsSchema, async () => {
      const selection = selectionOf(env.context.snapshot(), env.context.selectionBackward);
      return json(selection ? { success: true, ...selection } : { success: false, message: 'No active editor found' });
    });
  }

  if (has(getDiagnostics)) {
    register(
      'getDiagnostics',
      'Diagnostics the editor shows, for one file (uri) or all.',
      ClaudeDiagnosticsArgumentsSchema,
      async ({ uri }: { uri?: string }) => {
        const answer = await ask<{ diagnostics: Diagnostic[] }>(getDiagnostics, uri === undefined ? {} : { path: pathOf(uri) }, env, session);
        if (isResult(answer)) return answer;
        const byFile = new Map<string, Diagnostic[]>();
        for (const d of answer.diagnostics) byFile.set(d.path, [...(byFile.get(d.path) ?? []), d]);
        return json(
          [...byFile].map(([file, list]) => ({
            uri: pathToFileURL(file).href,
            diagnostics: list.map((d) => ({ message: d.message, severity: SEVERITY[d.severity], range: zeroBased(d.range), source: d.source, code: d.code })),
          })),
        );
      },
    );
  }
  if (has(getOpenEditors)) {
    register('getOpenEditors', 'The files open in the editor.', ClaudeNoArgumentsSchema, async () => {
      const answer = await ask<GetOpenEditorsResult>(getOpenEditors, {}, env, session);
      if (isResult(answer)) return answer;
      return json({
        tabs: answer.editors.map((e) => ({
          uri: pathToFileURL(e.path).href,
          isActive: e.isActive,
          label: path.basename(e.path),
          languageId: e.languageId,
          isDirty: e.isDirty,
        })),
      });
    });
  }
  if (has(checkDocumentDirty)) {
    register(
      'checkDocumentDirty',
      'Whether a file open in the editor has unsaved changes.',
      ClaudeFilePathArgumentsSchema,
      async ({ filePath }: { filePath: string }) => {
        const answer = await ask<{ isOpen: boolean; isDirty: boolean }>(checkDocumentDirty, { path: pathOf(filePath) }, env, session);
        if (isResult(answer)) return answer;
        return json(
          answer.isOpen
            ? { success: true, filePath, isDirty: answer.isDirty, isUntitled: false }
            : { success: false, message: `Document not open: ${filePath}` },
        );
      },
    );
  }
  if (has(saveDocument)) {
    register('saveDocument', 'Save a file open in the editor.', ClaudeFilePathArgumentsSchema, async ({ filePath }: { filePath: string }) => {
      const answer = await ask<{ saved: boolean; message?: string }>(saveDocument, { path: pathOf(filePath) }, env, session);
      if (isResult(answer)) return answer;
      return json({ success: answer.saved, filePath, saved: answer.saved, message: answer.message ?? 'Document saved successfully' });
    });
  }
  if (has(openFile)) {
    register(
      'openFile',
      'Open a file in the editor, at the first line holding startText if given.',
      ClaudeOpenFileArgumentsSchema,
      async ({ filePath, startText }: { filePath: string; startText?: string }) => {
        const file = pathOf(filePath);
        const line = startText ? await lineOf(file, startText, env.context.getRoots()) : undefined;
        const answer = await ask<{ opened: string }>(openFile, { path: file, ...(line !== undefined && { line }) }, env, session);
        if (isResult(answer)) return answer;
        return textResult(`Opened file: ${answer.opened}`);
      },
    );
  }
}

async function closeTab(env: ToolEnvironment, session: ClaudeSession, filePath: string): Promise<void> {
  if (!session.waiting.has(filePath)) return;
  session.settle(filePath, textResult(CLAUDE_DIFF_OUTCOME.closed));
  await env.diffs.close(session.id, filePath);
}

/**
 * The 1-based line of `text`'s first occurrence in `file`; undefined when absent or unreadable (openFile still opens the
 * file, or refuses it). Read only once openFile's own check passed (a regular file in the workspace), asynchronously and
 * bounded: a FIFO would freeze the companion, /dev/zero grow it without end.
 */
async function lineOf(file: string, text: string, roots: readonly string[]): Promise<number | undefined> {
  const checked = checkToolPath(file, roots, 'act');
  if (checked instanceof Error) return undefined;
  try {
    const content = await readOriginal(checked.path, MAX_SEARCHED_BYTES);
    const at = content?.indexOf(text) ?? -1;
    return at < 0 ? undefined : content!.slice(0, at).split('\n').length;
  } catch {
    return undefined;
  }
}
