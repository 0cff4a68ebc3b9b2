/**
 * Claude Code's vocabulary: its tool names and shapes (0-based positions,
 * `filePath`, `uri`, `{success, ...}` answers), each a thin mapping onto the
 * companion's own tools (the same path checks, the same editor actions) or
 * onto the diff coordinator. Nothing of diffs or context is decided here.
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  CLAUDE_TOOLS,
  CLAUDE_DIFF_OUTCOME,
  ClaudeDiagnosticsArgumentsSchema,
  ClaudeFilePathArgumentsSchema,
  ClaudeNoArgumentsSchema,
  ClaudeOpenDiffArgumentsSchema,
  ClaudeOpenFileArgumentsSchema,
  type ClaudeOpenFileArguments,
  ClaudeTabNameArgumentsSchema,
  type Diagnostic,
  type GetOpenEditorsResult,
} from '@ide-companion/protocol';
import { describeError } from '../logger.js';
import { readPinned } from '@ide-companion/shared/pinnedFiles';
import { checkDocumentDirty } from '../tools/checkDocumentDirty.js';
import { getDiagnostics } from '../tools/getDiagnostics.js';
import { getOpenEditors } from '../tools/getOpenEditors.js';
import { openFile } from '../tools/openFile.js';
import { saveDocument } from '../tools/saveDocument.js';
import { textResult, toolError, type ToolDefinition, type ToolEnvironment } from '../tools/toolDefinition.js';
import { controlCharacterRefusal, pathOf } from '../tools/workspacePaths.js';
import { AGENT_DISPLAY_NAMES } from '@ide-companion/shared/agentPaths';
import type { ClaudeSession } from './claude.js';
import { selectionOf } from './selection.js';
import { claudeTab } from './claudeTabs.js';
import { ask, diagnosticsByFile, isResult, json, zeroBased } from './faceAnswers.js';
import { MAX_SEARCHED_BYTES, lineCountOf, openFileTarget } from './openFileRange.js';

/** Claude's path arguments (a path or a `file://` URI), in every tool: one with a control character is refused before anything else. */
const PATH_ARGUMENTS = [['filePath'], ['old_file_path'], ['new_file_path'], ['uri']] as const;

const SEVERITY = { error: 'Error', warning: 'Warning', information: 'Info', hint: 'Hint' } as const;

/** Registers Claude's tools for one session: diffs always (any editor shows them), the rest as the editor's capabilities allow. */
export function registerClaudeTools(server: McpServer, offered: readonly ToolDefinition[], env: ToolEnvironment, session: ClaudeSession): void {
  const has = (definition: ToolDefinition) => offered.includes(definition);
  const register = (name: string, description: string, schema: unknown, run: (args: never, signal: AbortSignal) => Promise<CallToolResult>) => {
    const callback = (args: unknown, extra: { signal: AbortSignal }) => {
      const control = controlCharacterRefusal(name, args, PATH_ARGUMENTS);
      return control ? Promise.resolve(toolError(control.message)) : run(args as never, extra.signal);
    };
    server.registerTool(name, { description, inputSchema: schema as never }, callback as never);
  };

  if (env.diffs.enabled) {
    register(
      CLAUDE_TOOLS.openDiff,
      "Show the proposed new contents of a file as a diff in the user's editor, and wait until the user accepts (answer FILE_SAVED and the final text, with the user's edits) or rejects it (DIFF_REJECTED).",
      ClaudeOpenDiffArgumentsSchema,
      async ({ new_file_path, new_file_contents, tab_name }: { new_file_path: string; new_file_contents: string; tab_name: string }, signal) => {
        const filePath = pathOf(new_file_path);
        const { outcome, replacedFile } = session.diffs.wait(tab_name, filePath);
        // The tab named another file: that proposal goes (tabbedDiffs.ts).
        if (replacedFile !== undefined) await env.diffs.close(session.id, replacedFile);
        const opened = env.diffs.open(session.id, filePath, new_file_contents, AGENT_DISPLAY_NAMES[session.agent]).then(
          () => true,
          (err: unknown) => {
            session.diffs.settleTab(tab_name, toolError(describeError(err)));
            env.logger.warn('openDiff refused', { filePath, error: describeError(err) });
            return false;
          },
        );
        // The user may decide while the editor is still opening the view (VS Code's opens once the diff is
        // computed): the answer goes when the outcome is known, not when the opening ends.
        if (await Promise.race([opened, outcome.then(() => false)]))
          // The CLI gave up (the user answered in its terminal): the view closes, the waiting ends.
          signal.addEventListener('abort', () => void (session.diffs.holds(tab_name, filePath) && closeTab(env, session, tab_name)), {
            once: true,
          });
        return outcome;
      },
    );
    register(
      CLAUDE_TOOLS.closeTab,
      'Close a diff opened by openDiff, by its tab name.',
      ClaudeTabNameArgumentsSchema,
      async ({ tab_name }: { tab_name: string }) => {
        await closeTab(env, session, tab_name);
        return textResult(CLAUDE_DIFF_OUTCOME.closed);
      },
    );
    register(CLAUDE_TOOLS.closeAllDiffTabs, 'Close every diff this session opened.', ClaudeNoArgumentsSchema, async () => {
      const tabs = session.diffs.tabs;
      for (const tab of tabs) await closeTab(env, session, tab);
      return textResult(`CLOSED_${tabs.length}_DIFF_TABS`);
    });
  }

  register(CLAUDE_TOOLS.getWorkspaceFolders, 'List the workspace folders open in the editor.', ClaudeNoArgumentsSchema, async () => {
    const roots = env.context.getRoots();
    return json({
      success: true,
      folders: roots.map((root) => ({ name: path.basename(root), uri: pathToFileURL(root).href, path: root })),
      rootPath: roots[0] ?? null,
    });
  });
  for (const name of [CLAUDE_TOOLS.getCurrentSelection, CLAUDE_TOOLS.getLatestSelection]) {
    register(name, 'The text selected in the active editor, with its file and 0-based range.', ClaudeNoArgumentsSchema, async () => {
      const selection = selectionOf(env.context.snapshot(), env.context.selectionBackward);
      return json(selection ? { success: true, ...selection } : { success: false, message: 'No active editor found' });
    });
  }

  if (has(getDiagnostics)) {
    register(
      CLAUDE_TOOLS.getDiagnostics,
      'Diagnostics the editor shows, for one file (uri) or all.',
      ClaudeDiagnosticsArgumentsSchema,
      async ({ uri }: { uri?: string }) => {
        const answer = await ask<{ diagnostics: Diagnostic[] }>(getDiagnostics, uri === undefined ? {} : { path: pathOf(uri) }, env, session.id);
        if (isResult(answer)) return answer;
        return json(
          [...diagnosticsByFile(answer.diagnostics)].map(([file, list]) => ({
            uri: pathToFileURL(file).href,
            diagnostics: list.map((d) => ({ message: d.message, severity: SEVERITY[d.severity], range: zeroBased(d.range), source: d.source, code: d.code })),
          })),
        );
      },
    );
  }
  if (has(getOpenEditors)) {
    register(CLAUDE_TOOLS.getOpenEditors, 'The files open in the editor.', ClaudeNoArgumentsSchema, async () => {
      const answer = await ask<GetOpenEditorsResult>(getOpenEditors, {}, env, session.id);
      if (isResult(answer)) return answer;
      const selection = selectionOf(env.context.snapshot(), env.context.selectionBackward);
      // One file read at a time (where the editor gave no line count): a long list never holds many files at once.
      const tabs = [];
      for (const e of answer.editors) tabs.push(await claudeTab(e, selection, env.context.selectionBackward));
      return json({ tabs });
    });
  }
  if (has(checkDocumentDirty)) {
    register(
      CLAUDE_TOOLS.checkDocumentDirty,
      'Whether a file open in the editor has unsaved changes.',
      ClaudeFilePathArgumentsSchema,
      async ({ filePath }: { filePath: string }) => {
        const answer = await ask<{ isOpen: boolean; isDirty: boolean }>(checkDocumentDirty, { path: pathOf(filePath) }, env, session.id);
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
    register(CLAUDE_TOOLS.saveDocument, 'Save a file open in the editor.', ClaudeFilePathArgumentsSchema, async ({ filePath }: { filePath: string }) => {
      const answer = await ask<{ saved: boolean; message?: string }>(saveDocument, { path: pathOf(filePath) }, env, session.id);
      if (isResult(answer)) return answer;
      return json({ success: answer.saved, filePath, saved: answer.saved, message: answer.message ?? 'Document saved successfully' });
    });
  }
  if (has(openFile)) {
    register(
      CLAUDE_TOOLS.openFile,
      'Open a file in the editor and select a range: from startText to endText (or the end of its line), or the lines startLine to endLine.',
      ClaudeOpenFileArgumentsSchema,
      async (args: ClaudeOpenFileArguments) => {
        const file = pathOf(args.filePath);
        // The anchors are searched in the file only once openFile's own check passed, read asynchronously and bounded.
        const content = args.startText ? await searchableText(file, env.context.getRoots()) : undefined;
        const { message, ...range } = openFileTarget(file, args, content);
        const answer = await ask<{ opened: string }>(
          openFile,
          {
            path: file,
            ...range,
            ...(args.preview !== undefined && { preview: args.preview }),
            ...(args.makeFrontmost !== undefined && { focus: args.makeFrontmost }),
          },
          env,
          session.id,
        );
        if (isResult(answer)) return answer;
        // makeFrontmost false asks for details instead of a sentence (claudecode.nvim, the VS Code extension).
        if (args.makeFrontmost === false) {
          const listed = has(getOpenEditors) ? await ask<GetOpenEditorsResult>(getOpenEditors, {}, env, session.id) : undefined;
          const languageId = listed && !isResult(listed) ? listed.editors.find((e) => e.path === answer.opened)?.languageId : undefined;
          return json({ success: true, filePath: answer.opened, languageId, lineCount: await lineCountOf(answer.opened, env.context.getRoots()) });
        }
        return textResult(message.replace(file, answer.opened));
      },
    );
  }
}

async function closeTab(env: ToolEnvironment, session: ClaudeSession, tabName: string): Promise<void> {
  const waiter = session.diffs.settleTab(tabName, textResult(CLAUDE_DIFF_OUTCOME.closed));
  if (waiter) await env.diffs.close(session.id, waiter.filePath);
}

/**
 * The text of `file` to search openFile's anchors in; undefined when it may not be read (openFile itself then refuses or
 * opens it without a range). Read only once openFile's own check passed (a regular file in the workspace), asynchronously
 * and bounded: a FIFO would freeze the companion, /dev/zero grow it without end.
 */
async function searchableText(file: string, roots: readonly string[]): Promise<string | undefined> {
  try {
    // By descriptor, inside the roots by its real path, a regular file (openFile's own check, made once here, not
    // twice): a link swapped in since is refused, never searched through.
    return await readPinned(file, MAX_SEARCHED_BYTES, { roots, use: 'read' });
  } catch {
    return undefined;
  }
}
