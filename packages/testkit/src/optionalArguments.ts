/**
 * Issue 21 part 4, "every optional argument left out": one table of tool calls
 * that each end's capabilities test runs against its real editor, each
 * optional argument absent and its neighbouring values (a line past the end,
 * a column past the line, an empty file, a file not open, no `arguments` at
 * all). Every answer must be the default docs/editor-protocol.md documents,
 * never an editor error. (Neovim failed `openFile` with a path and a line but
 * no column, and with a path alone: the absent column arrived as vim.NIL.)
 */
import * as path from 'node:path';
import { CheckDocumentDirtyTool, GetDiagnosticsTool, GetOpenEditorsTool, GetSelectionTool, OpenFileTool, SaveDocumentTool } from '@ide-companion/protocol';
import type { RecordingClient } from './mcpClient.js';
import { waitFor } from './wait.js';

/** The files the table works on; each end's harness creates them in its workspace before the editor starts. */
export const OPTIONAL_ARGUMENT_FILES: Record<string, string> = {
  'open.txt': 'alpha\nbeta\ngamma\n',
  'u.txt': 'one\ntwo\nthrée x\n',
  'n.txt': 'one\nno newline',
  'e.txt': '',
  'closed.txt': 'never opened\n',
};

export interface Where {
  path: string;
  line: number;
  /** 1-based, in characters. */
  character: number;
}

/** What an end gives the table. */
export interface OptionalArgumentsEnd {
  workspace: string;
  /** The active file and its cursor, as the editor has them now. */
  cursor(): Promise<Where>;
  /** Where "the end of a line" is: Vim and Neovim (Normal mode) rest on its last character, Emacs and VS Code after it. */
  endOfLine: 'onLastCharacter' | 'afterLastCharacter';
  /** Puts a warning on line 1 of `file` as a linter would, when the end can; the diagnostics rows then expect it. */
  setWarning?(file: string): Promise<void>;
}

type Args = Record<string, unknown> | undefined;

interface Row {
  what: string;
  tool: string;
  /** undefined: the call carries no `arguments` at all. */
  args: (f: (name: string) => string) => Args;
  /** The answer (parsed JSON), or a check of it that returns a complaint. */
  answer?: (f: (name: string) => string, withWarning: boolean) => unknown;
  check?: (answer: any) => string | undefined;
  /** Where the cursor must be afterwards (openFile). */
  cursor?: (f: (name: string) => string, end: (chars: number) => number) => Where;
}

const diagnosticsSummary = (answer: any) =>
  Array.isArray(answer?.diagnostics) ? answer.diagnostics.map((d: any) => [path.basename(d.path), d.range.start.line, d.severity]) : answer;

/** The rows, run in order: openFile first (it sets the state the rest read), then every other capability tool. */
export const OPTIONAL_ARGUMENT_ROWS: readonly Row[] = [
  {
    what: 'openFile with every argument (the state the next rows start from)',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('open.txt'), line: 2, column: 3 }),
    answer: (f) => ({ opened: f('open.txt'), line: 2, column: 3 }),
    cursor: (f) => ({ path: f('open.txt'), line: 2, character: 3 }),
  },
  {
    what: 'openFile with a path alone: the cursor stays where it was',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('open.txt') }),
    answer: (f) => ({ opened: f('open.txt') }),
    cursor: (f) => ({ path: f('open.txt'), line: 2, character: 3 }),
  },
  {
    what: 'openFile with a column but no line: the column is ignored',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('open.txt'), column: 5 }),
    answer: (f) => ({ opened: f('open.txt'), column: 5 }),
    cursor: (f) => ({ path: f('open.txt'), line: 2, character: 3 }),
  },
  {
    what: 'openFile with a line and no column: the line starts at column 1',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('u.txt'), line: 2 }),
    answer: (f) => ({ opened: f('u.txt'), line: 2 }),
    cursor: (f) => ({ path: f('u.txt'), line: 2, character: 1 }),
  },
  {
    what: 'openFile with a line past the end: the last line (not the empty one after the final newline)',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('u.txt'), line: 99 }),
    answer: (f) => ({ opened: f('u.txt'), line: 99 }),
    cursor: (f) => ({ path: f('u.txt'), line: 3, character: 1 }),
  },
  {
    what: 'openFile with a column past the line: the end of the line',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('u.txt'), line: 3, column: 99 }),
    answer: (f) => ({ opened: f('u.txt'), line: 3, column: 99 }),
    cursor: (f, end) => ({ path: f('u.txt'), line: 3, character: end('thrée x'.length) }),
  },
  {
    what: 'openFile with a line past the end of a file without a final newline: its last line, column 1',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('n.txt'), line: 99 }),
    answer: (f) => ({ opened: f('n.txt'), line: 99 }),
    cursor: (f) => ({ path: f('n.txt'), line: 2, character: 1 }),
  },
  {
    what: 'openFile of a file not open yet, a path alone: the top',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('e.txt') }),
    answer: (f) => ({ opened: f('e.txt') }),
    cursor: (f) => ({ path: f('e.txt'), line: 1, character: 1 }),
  },
  {
    what: 'openFile of an empty file at a line and column past its end: line 1, column 1',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('e.txt'), line: 5, column: 5 }),
    answer: (f) => ({ opened: f('e.txt'), line: 5, column: 5 }),
    cursor: (f) => ({ path: f('e.txt'), line: 1, character: 1 }),
  },
  {
    what: 'openFile of a file that does not exist: refused by the companion, the editor not asked',
    tool: OpenFileTool.name,
    args: (f) => ({ path: f('missing.txt') }),
    check: (a) => (typeof a?.error === 'string' && /does not exist/.test(a.error) ? undefined : 'expected the refusal "does not exist"'),
    cursor: (f) => ({ path: f('e.txt'), line: 1, character: 1 }),
  },
  {
    what: 'getOpenEditors with no arguments at all',
    tool: GetOpenEditorsTool.name,
    args: () => undefined,
    check: (a) => openEditorsComplaint(a),
  },
  { what: 'getOpenEditors with {}', tool: GetOpenEditorsTool.name, args: () => ({}), check: (a) => openEditorsComplaint(a) },
  { what: 'getSelection with nothing selected, no arguments at all', tool: GetSelectionTool.name, args: () => undefined, answer: () => ({ selection: null }) },
  { what: 'getSelection with nothing selected, in an empty file', tool: GetSelectionTool.name, args: () => ({}), answer: () => ({ selection: null }) },
  {
    what: 'checkDocumentDirty of an open, empty, unmodified file',
    tool: CheckDocumentDirtyTool.name,
    args: (f) => ({ path: f('e.txt') }),
    answer: () => ({ isOpen: true, isDirty: false }),
  },
  {
    what: 'checkDocumentDirty of a file never opened',
    tool: CheckDocumentDirtyTool.name,
    args: (f) => ({ path: f('closed.txt') }),
    answer: () => ({ isOpen: false, isDirty: false }),
  },
  {
    what: 'checkDocumentDirty of a file that does not exist',
    tool: CheckDocumentDirtyTool.name,
    args: (f) => ({ path: f('missing.txt') }),
    answer: () => ({ isOpen: false, isDirty: false }),
  },
  {
    what: 'saveDocument of an open file without changes: saved, nothing to do',
    tool: SaveDocumentTool.name,
    args: (f) => ({ path: f('u.txt') }),
    check: (a) => (a?.saved === true && typeof a.message === 'string' ? undefined : 'expected {saved: true, message}'),
  },
  {
    what: 'saveDocument of a file not open: not saved, and why',
    tool: SaveDocumentTool.name,
    args: (f) => ({ path: f('closed.txt') }),
    check: (a) => (a?.saved === false && typeof a.message === 'string' && a.message.length > 0 ? undefined : 'expected {saved: false, message}'),
  },
  {
    what: 'getDiagnostics with no arguments at all: the whole workspace, every severity',
    tool: GetDiagnosticsTool.name,
    args: () => undefined,
    answer: (_f, w) => (w ? [['u.txt', 1, 'warning']] : []),
  },
  {
    what: 'getDiagnostics with a path alone: that file, every severity',
    tool: GetDiagnosticsTool.name,
    args: (f) => ({ path: f('u.txt') }),
    answer: (_f, w) => (w ? [['u.txt', 1, 'warning']] : []),
  },
  { what: 'getDiagnostics of an empty file', tool: GetDiagnosticsTool.name, args: (f) => ({ path: f('e.txt') }), answer: () => [] },
  { what: 'getDiagnostics of a file never opened', tool: GetDiagnosticsTool.name, args: (f) => ({ path: f('closed.txt') }), answer: () => [] },
  {
    what: 'getDiagnostics with a severity alone (error): none at that level',
    tool: GetDiagnosticsTool.name,
    args: () => ({ severity: 'error' }),
    answer: () => [],
  },
  {
    what: 'getDiagnostics with a severity alone (hint): everything',
    tool: GetDiagnosticsTool.name,
    args: () => ({ severity: 'hint' }),
    answer: (_f, w) => (w ? [['u.txt', 1, 'warning']] : []),
  },
];

function openEditorsComplaint(a: any): string | undefined {
  if (!Array.isArray(a?.editors)) return 'expected {editors: [...]}';
  const names = a.editors.map((e: any) => path.basename(e.path));
  for (const name of ['open.txt', 'u.txt', 'e.txt']) if (!names.includes(name)) return `expected ${name} among ${names.join(', ')}`;
  const active = a.editors.filter((e: any) => e.isActive).map((e: any) => path.basename(e.path));
  return active.length === 1 && active[0] === 'e.txt' ? undefined : `expected e.txt the one active editor, got ${active.join(', ') || 'none'}`;
}

async function callJson(c: RecordingClient, tool: string, args: Args): Promise<unknown> {
  const result = (await c.client.callTool(args === undefined ? { name: tool } : { name: tool, arguments: args })) as {
    isError?: boolean;
    content: Array<{ type: string; text: string }>;
  };
  const text = result.content.find((b) => b.type === 'text')?.text ?? '';
  if (result.isError) return { error: text };
  try {
    return JSON.parse(text);
  } catch {
    return { error: `not JSON: ${text}` };
  }
}

/**
 * Runs every row against the end's editor through `c` (a real MCP client of
 * its companion) and returns one line per row that did not get its documented
 * default: an empty list when the end holds. Rows of tools the companion does
 * not offer are skipped (each end's own test asserts its tool list).
 */
export async function runOptionalArgumentRows(c: RecordingClient, end: OptionalArgumentsEnd, timeoutMs = 3000): Promise<string[]> {
  const f = (name: string) => path.join(end.workspace, name);
  const eol = (chars: number) => (end.endOfLine === 'onLastCharacter' ? Math.max(chars, 1) : chars + 1);
  const offered = new Set((await c.client.listTools()).tools.map((t) => t.name));
  const failures: string[] = [];
  let warned = false;
  for (const row of OPTIONAL_ARGUMENT_ROWS) {
    if (!offered.has(row.tool)) continue;
    if (row.tool === GetDiagnosticsTool.name && end.setWarning && !warned) {
      await end.setWarning(f('u.txt'));
      warned = true;
    }
    const args = row.args(f);
    const label = `${row.tool} ${args === undefined ? '(no arguments)' : JSON.stringify(args).replaceAll(end.workspace, '…')}: ${row.what}`;
    const answer = await callJson(c, row.tool, args);
    const got = row.tool === GetDiagnosticsTool.name && !(answer as any)?.error ? diagnosticsSummary(answer) : answer;
    if (row.answer) {
      const expected = row.answer(f, warned);
      if (JSON.stringify(got) !== JSON.stringify(expected))
        failures.push(`${label}\n    answered ${JSON.stringify(got)}\n    expected ${JSON.stringify(expected)}`);
    }
    if (row.check) {
      const complaint = row.check(answer);
      if (complaint) failures.push(`${label}\n    answered ${JSON.stringify(answer)}\n    ${complaint}`);
    }
    if (row.cursor) {
      const expected = row.cursor(f, eol);
      let seen: Where | undefined;
      try {
        await waitFor(
          async () => {
            seen = await end.cursor();
            return seen.path === expected.path && seen.line === expected.line && seen.character === expected.character;
          },
          'the cursor',
          timeoutMs,
        );
      } catch {
        failures.push(
          `${label}\n    cursor at ${JSON.stringify(seen)?.replaceAll(end.workspace, '…')}\n    expected ${JSON.stringify(expected).replaceAll(end.workspace, '…')}`,
        );
      }
    }
  }
  return failures;
}
