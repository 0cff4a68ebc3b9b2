/**
 * Neovim's side of the editor actions (docs/editor-protocol.md), as the host core
 * (server/scriptHost.ts) sends them: diffs through lua/ide_companion/diff.lua (the
 * host splits disk text and proposal into exact buffer lines, the Lua shows them
 * in a tab), the optional capabilities through lua/ide_companion/actions.lua.
 * The user's decisions come back as events.
 */
import type { ActionParams, ActionResult, DiagnosticItem, EditorActionName } from '@ide-companion/protocol';
import { BufferStateSchema, bufferFromText, textFromBuffer, type BufferContent } from './bufferText.js';
import type { LuaBridge } from './luaBridge.js';
import { diffHints, type DiffHints } from './neovimWords.js';

const DIFF_MODULE = 'ide_companion.diff';
const ACTIONS_MODULE = 'ide_companion.actions';
const CONTEXT_MODULE = 'ide_companion.context';

export interface DiffSpec {
  id: string;
  path: string;
  proposal: BufferContent;
  /** Absent for a new file. */
  original?: BufferContent;
  /** Who proposed it ("Claude Code"). */
  agent: string;
  /** What to say as it shows (diffWords.ts). */
  words?: ActionParams<'showDiff'>['words'];
  /** The proposal window's hint bar. */
  hints: DiffHints;
  /** Shown without taking the user's window (a kept accept its CLI never wrote). */
  kept?: boolean;
}

/** actions.lua answers vim.diagnostic's lists unshaped: the core shapes them (server/diagnosticItems.ts). */
export const NEOVIM_DECLARES = ['diagnosticItems'];

type Handlers = { [N in EditorActionName]?: (params: ActionParams<N>) => Promise<ActionResult<N>> };

/**
 * One action as Lua calls: `activeFile` is where getSelection looks out of Visual mode (the user
 * may be in the agent's terminal). An action Neovim does not answer is refused.
 */
export function neovimRequest(lua: LuaBridge, activeFile: () => string | undefined) {
  const handlers: Handlers = {
    showDiff: async (p) => {
      const agent = p.agent ?? '';
      const spec: DiffSpec = {
        id: p.diffId,
        path: p.filePath,
        proposal: bufferFromText(p.newContent),
        agent,
        hints: diffHints(agent),
        ...(p.words && { words: p.words }),
        ...(p.kept && { kept: true }),
      };
      if (p.originalContent !== null && p.originalContent !== undefined) spec.original = bufferFromText(p.originalContent);
      await lua.call(DIFF_MODULE, 'open', spec);
      return null;
    },
    diffText: async (p) => {
      const state = await lua.call(DIFF_MODULE, 'state', p.diffId);
      return { text: state === null || state === undefined ? null : textFromBuffer(BufferStateSchema.parse(state)) };
    },
    // No argument rather than null: a msgpack nil is vim.NIL in Lua, which is truthy.
    closeDiff: (p) => lua.call(DIFF_MODULE, 'close', p.diffId, p.reason, ...(p.message !== undefined ? [p.message] : [])),
    reload: (p) => lua.call(DIFF_MODULE, 'reload', p),
    openFile: (p) => lua.call(ACTIONS_MODULE, 'open_file', p),
    getOpenEditors: () => lua.call(ACTIONS_MODULE, 'open_editors'),
    getSelection: async () => {
      const raw = await lua.call<NeovimSelection | null>(ACTIONS_MODULE, 'selection', activeFile());
      return { selection: raw ? selectionFromNeovim(raw) : null };
    },
    diagnosticItems: async () => ({ items: (await lua.call<DiagnosticItem[] | null>(ACTIONS_MODULE, 'diagnostics')) ?? [] }),
    checkDocumentDirty: (p) => lua.call(ACTIONS_MODULE, 'dirty', p),
    saveDocument: (p) => lua.call(ACTIONS_MODULE, 'save', p),
    closeFile: (p) => lua.call(ACTIONS_MODULE, 'close_file', p),
    selectedText: async (p) => ({ text: await lua.call<string | null>(CONTEXT_MODULE, 'selected_text', p.maxChars) }),
  };
  return <N extends EditorActionName>(action: N, params: ActionParams<N>): Promise<ActionResult<N>> => {
    const handler = handlers[action] as ((params: ActionParams<N>) => Promise<ActionResult<N>>) | undefined;
    return handler ? handler(params) : Promise.reject(new Error(`Neovim does not answer ${action}`));
  };
}

/**
 * A selection as actions.lua reads it: its two ends as Neovim has them (line,
 * 0-based byte column), the Visual mode it was made in (`v`, `V` or CTRL-V) and
 * the buffer lines from the first of its lines to the last.
 */
export interface NeovimSelection {
  path: string;
  kind: string;
  anchor: [number, number];
  cursor: [number, number];
  /** The line of lines[0]. */
  first: number;
  lines: string[];
}

/** Characters (code points, as Neovim's strchars) in the first `bytes` bytes of `line`; bytes for a line not read (an unloaded buffer). */
const charsIn = (line: Buffer | undefined, bytes: number) => (line ? [...line.subarray(0, bytes).toString('utf8')].length : bytes);

/**
 * The vocabulary's selection (1-based character columns) of a Neovim one: in
 * order whichever way it was made; linewise, whole lines; charwise (and
 * blockwise, approximated by its corners) up to the end of the last character.
 */
export function selectionFromNeovim(raw: NeovimSelection): NonNullable<ActionResult<'getSelection'>['selection']> {
  let [s, e] = [raw.anchor, raw.cursor];
  if (s[0] > e[0] || (s[0] === e[0] && s[1] > e[1])) [s, e] = [e, s];
  const lines = raw.lines.map((l) => Buffer.from(l, 'utf8'));
  const line = (n: number): Buffer | undefined => lines[n - raw.first];
  let text: string;
  if (raw.kind === 'V') {
    text = raw.lines.join('\n');
    s = [s[0], 0];
    e = [e[0], Math.max((line(e[0])?.length ?? 0) - 1, 0)];
  } else {
    const last = line(e[0]) ?? Buffer.alloc(0);
    const lead = last[e[1]] ?? 0;
    const end = Math.min(e[1] + (lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1), last.length);
    const parts = lines.slice(s[0] - raw.first, e[0] - raw.first + 1);
    if (parts.length === 0) parts.push(Buffer.alloc(0));
    // The end cut first: on one line, s[1] still counts from the line's start.
    parts[parts.length - 1] = parts[parts.length - 1]!.subarray(0, end);
    parts[0] = parts[0]!.subarray(s[1]);
    text = parts.map((p) => p.toString('utf8')).join('\n');
  }
  return {
    path: raw.path,
    text,
    start: { line: s[0], character: charsIn(line(s[0]), s[1]) + 1 },
    end: { line: e[0], character: charsIn(line(e[0]), e[1]) + 1 },
  };
}
