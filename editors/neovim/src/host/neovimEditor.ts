/**
 * Neovim's editor actions (docs/editor-protocol.md): diffs through
 * lua/ide_companion/diff.lua (the host splits disk text and proposal into exact
 * buffer lines, the Lua shows them in a tab), the optional capabilities through
 * lua/ide_companion/actions.lua. The user's decisions come back as events.
 */
import type { ActionParams, ActionResult, DiagnosticItem } from '@ide-companion/protocol';
import { diagnosticsFromItems } from '@ide-companion/server/diagnosticItems';
import { editorWithCapabilities, type DiffCloseReason, type EditorActions, type PendingDiff } from '@ide-companion/server/editorActions';
import { BufferStateSchema, bufferFromText, textFromBuffer, type BufferContent } from './bufferText.js';
import type { LuaBridge } from './luaBridge.js';
import { diffHints, type DiffHints } from './neovimWords.js';

const DIFF_MODULE = 'ide_companion.diff';
const ACTIONS_MODULE = 'ide_companion.actions';

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

/** What the host's PositionIntake knows of the selection (positionIntake.ts), as the JSON-lines bridge uses it too. */
export interface PositionHooks {
  /**
   * Where getSelection looks out of Visual mode: null once the cursor moved on from the last selection
   * (PositionIntake.noSelection: it answers none), else the active file (the user may be in the agent's terminal).
   */
  selectionFile: () => string | null | undefined;
  /** openFile moved the cursor or selected (PositionIntake.expectMove): getSelection asks Neovim until it reports. */
  expectMove: () => void;
}

/** Neovim's actions, with the capabilities the Lua side declared in its hello. */
export function neovimEditor(
  lua: LuaBridge,
  declared: readonly string[],
  roots?: () => readonly string[] | undefined,
  position?: PositionHooks,
): EditorActions {
  const all = new NeovimEditor(lua, roots, position);
  const bind = <K extends keyof NeovimEditor>(k: K) => (all[k] as (...a: never[]) => unknown).bind(all) as NeovimEditor[K];
  return editorWithCapabilities(
    { showDiff: bind('showDiff'), diffText: bind('diffText'), closeDiff: bind('closeDiff') },
    {
      openFile: bind('openFile'),
      getOpenEditors: bind('getOpenEditors'),
      getSelection: bind('getSelection'),
      getDiagnostics: bind('getDiagnostics'),
      checkDocumentDirty: bind('checkDocumentDirty'),
      saveDocument: bind('saveDocument'),
      closeFile: bind('closeFile'),
      reload: bind('reload'),
    },
    declared,
  );
}

class NeovimEditor implements EditorActions {
  constructor(
    private readonly lua: LuaBridge,
    private readonly roots?: () => readonly string[] | undefined,
    private readonly position?: PositionHooks,
  ) {}

  async showDiff(diff: PendingDiff, words?: ActionParams<'showDiff'>['words']): Promise<void> {
    const spec: DiffSpec = {
      id: diff.id,
      path: diff.filePath,
      proposal: bufferFromText(diff.newContent),
      agent: diff.agent,
      hints: diffHints(diff.agent),
      ...(words && { words }),
      ...(diff.kept && { kept: true }),
    };
    if (diff.originalContent !== undefined) spec.original = bufferFromText(diff.originalContent);
    await this.lua.call(DIFF_MODULE, 'open', spec);
  }

  async diffText(diff: PendingDiff): Promise<string | undefined> {
    const state = await this.lua.call(DIFF_MODULE, 'state', diff.id);
    if (state === null || state === undefined) return undefined;
    return textFromBuffer(BufferStateSchema.parse(state));
  }

  async closeDiff(diff: PendingDiff, reason: DiffCloseReason, message?: string): Promise<void> {
    // No argument rather than null: a msgpack nil is vim.NIL in Lua, which is truthy.
    await this.lua.call(DIFF_MODULE, 'close', diff.id, reason, ...(message !== undefined ? [message] : []));
  }

  async reload(params: ActionParams<'reload'>): Promise<void> {
    await this.lua.call(DIFF_MODULE, 'reload', params);
  }

  async openFile(params: ActionParams<'openFile'>): Promise<void> {
    await this.lua.call(ACTIONS_MODULE, 'open_file', params);
    // After its answer: a position Neovim sent before the move has come in by then (one ordered channel) and cannot undo it.
    this.position?.expectMove();
  }

  getOpenEditors(): Promise<ActionResult<'getOpenEditors'>> {
    return this.lua.call(ACTIONS_MODULE, 'open_editors');
  }

  async getSelection(): Promise<ActionResult<'getSelection'>> {
    const file = this.position?.selectionFile();
    if (file === null) return { selection: null };
    const raw = await this.lua.call<NeovimSelection | null>(ACTIONS_MODULE, 'selection', file);
    return { selection: raw ? selectionFromNeovim(raw) : null };
  }

  /** vim.diagnostic as Neovim has it, shaped (and kept to params.path, else to the workspace) as every end's (server/diagnosticItems.ts). */
  async getDiagnostics(params: ActionParams<'getDiagnostics'>): Promise<ActionResult<'getDiagnostics'>> {
    return diagnosticsFromItems((await this.lua.call<DiagnosticItem[] | null>(ACTIONS_MODULE, 'diagnostics')) ?? [], params.path, this.roots?.());
  }

  checkDocumentDirty(params: ActionParams<'checkDocumentDirty'>): Promise<ActionResult<'checkDocumentDirty'>> {
    return this.lua.call(ACTIONS_MODULE, 'dirty', params);
  }

  saveDocument(params: ActionParams<'saveDocument'>): Promise<ActionResult<'saveDocument'>> {
    return this.lua.call(ACTIONS_MODULE, 'save', params);
  }

  async closeFile(params: ActionParams<'closeFile'>): Promise<void> {
    await this.lua.call(ACTIONS_MODULE, 'close_file', params);
  }
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
