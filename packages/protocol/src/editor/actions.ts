/**
 * Editor actions: what the companion asks of an editor (docs/editor-protocol.md).
 * Diffs are required of every editor; the rest are capabilities an editor
 * declares, and the companion offers the MCP tool of the same name only for
 * those. Params and results are the tools' own schemas, defined once in
 * their modules.
 */
import * as z from 'zod/mini';
import { lazySchema } from '../lazySchema.js';
import { CheckDocumentDirtyParamsSchema } from '../checkDocumentDirty.js';
import { EditorDiagnosticsSchema, GetDiagnosticsParamsSchema } from '../getDiagnostics.js';
import { GetOpenEditorsParamsSchema, GetOpenEditorsResultSchema } from '../getOpenEditors.js';
import { GetSelectionParamsSchema, GetSelectionResultSchema } from '../getSelection.js';
import { OpenFileParamsSchema } from '../openFile.js';
import { SaveDocumentParamsSchema, SaveDocumentResultSchema } from '../saveDocument.js';
import { DiagnosticItemsParamsSchema, DiagnosticItemsResultSchema } from './diagnosticItems.js';

/**
 * Why a diff's view closes. `accepted`: the host took the user's accept (its copy written, the CLI told); a script end
 * holds an accepted proposal, hidden, until then, and keeps it as at the host's death if it never comes (issue 37).
 */
export const DIFF_CLOSE_REASONS = ['closedByCli', 'replaced', 'sessionClosed', 'companionStopped', 'accepted'] as const;
export const DiffCloseReasonSchema = /* @__PURE__ */ lazySchema(() => z.enum(DIFF_CLOSE_REASONS));
export type DiffCloseReason = z.infer<typeof DiffCloseReasonSchema>;

export const ShowDiffParamsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    diffId: z.string().check(z.minLength(1)),
    filePath: z.string().check(z.minLength(1)),
    newContent: z.string(),
    /** The file as it is on disk, read by the companion (over SSH: the remote file, read by the relay there); null for a new file. */
    originalContent: z.nullable(z.string()),
    /** Who proposed it ("Claude Code"), for the view's title; absent from older companions. */
    agent: z.optional(z.string()),
    /** What the editor says as it shows it (diffWords.ts): `unsaved` when the user's buffer of the file has unsaved changes, else `proposed`. */
    words: z.optional(z.object({ proposed: z.string(), unsaved: z.string() })),
    /** true: shown only to be kept at once (closeDiff `sessionClosed` follows): show it without taking the user's window or focus. */
    kept: z.optional(z.boolean()),
  }),
);
export const DiffTextParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ diffId: z.string().check(z.minLength(1)) }));
/** `text: null`: the proposal is unchanged (or the editor no longer has it). */
export const DiffTextResultSchema = /* @__PURE__ */ lazySchema(() => z.object({ text: z.nullable(z.string()) }));
/** `message`: what the editor shows once it closed (for `sessionClosed`: kept) the view, in the companion's words (diffWords.ts); absent: nothing. */
export const CloseDiffParamsSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ diffId: z.string().check(z.minLength(1)), reason: DiffCloseReasonSchema, message: z.optional(z.string()) }),
);
/**
 * `closeFile`: the companion takes back an `openFile` whose path was swapped
 * while the editor opened it (it led elsewhere than the file checked): the
 * editor closes the buffer it holds for `path` unless it has unsaved changes.
 * Asked only of editors that declared `openFile`; no tool of its own.
 */
export const CloseFileParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ path: z.string().check(z.minLength(1)) }));
/**
 * `reload`: the agent wrote a file the user accepted a proposal for (the
 * companion watches it, once, for every end): the editor rereads the
 * unmodified buffers showing `path` without a "changed on disk" prompt, and
 * shows `unsavedWarning` for a modified one instead of dropping its changes.
 * Asked only of editors that declared `reload`; no tool of its own. (It
 * carried `holdsAccepted` once, for a copy the ends kept of the accepted text;
 * the companion keeps the only one now, acceptedWrites.ts.)
 */
export const ReloadParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ path: z.string().check(z.minLength(1)), unsavedWarning: z.string() }));

/**
 * The editor's answer to `checkDocumentDirty`: the tool's fields, and what
 * the companion checks before it writes a file under a buffer (Amp's
 * `buffer` mode, server/src/bufferWrites.ts): `readOnly`, the buffer is
 * read-only in the editor; `changedOnDisk`, the file changed on disk since
 * the buffer read it (ends that can tell). The tool answers the first two only.
 */
export const EditorDirtyResultSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ isOpen: z.boolean(), isDirty: z.boolean(), readOnly: z.optional(z.boolean()), changedOnDisk: z.optional(z.boolean()) }),
);
/**
 * `writeBuffer`: an in-process end's own way to put Amp's text in its
 * document (VS Code: one edit the user undoes, saved), asked after the
 * companion's checks (bufferWrites.ts). A script end declares none: the
 * companion writes the file and asks it to `reload`.
 */
export const WriteBufferParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ path: z.string().check(z.minLength(1)), content: z.string() }));

/**
 * The text of the selection the editor has now, read for the host (asked of
 * ends whose focus/cursor events carry an `anchor`): at most `maxChars`
 * characters of it from its start, null when nothing is selected. The host
 * cuts it to the CLI's limit and marks the cut (one rule, in UTF-16 units);
 * `maxChars` only bounds the editor's work, one past that limit.
 */
export const SelectedTextParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ maxChars: z.int().check(z.minimum(1)) }));
export const SelectedTextResultSchema = /* @__PURE__ */ lazySchema(() => z.object({ text: z.nullable(z.string()) }));

export interface ActionType<N extends string, P extends z.ZodMiniType, R extends z.ZodMiniType> {
  readonly name: N;
  readonly params: P;
  readonly result: R;
  /** How long the companion waits for the editor's answer. */
  readonly timeoutMs: number;
}

function actionType<const N extends string, P extends z.ZodMiniType, R extends z.ZodMiniType>(
  name: N,
  params: P,
  result: R,
  timeoutMs: number,
): ActionType<N, P, R> {
  return { name, params, result, timeoutMs };
}

export const EDITOR_ACTIONS = {
  showDiff: actionType('showDiff', ShowDiffParamsSchema, z.null(), 10_000),
  diffText: actionType('diffText', DiffTextParamsSchema, DiffTextResultSchema, 2_000),
  closeDiff: actionType('closeDiff', CloseDiffParamsSchema, z.null(), 5_000),
  openFile: actionType('openFile', OpenFileParamsSchema, z.null(), 5_000),
  getOpenEditors: actionType('getOpenEditors', GetOpenEditorsParamsSchema, GetOpenEditorsResultSchema, 5_000),
  getSelection: actionType('getSelection', GetSelectionParamsSchema, GetSelectionResultSchema, 5_000),
  getDiagnostics: actionType('getDiagnostics', GetDiagnosticsParamsSchema, EditorDiagnosticsSchema, 5_000),
  checkDocumentDirty: actionType('checkDocumentDirty', CheckDocumentDirtyParamsSchema, EditorDirtyResultSchema, 5_000),
  saveDocument: actionType('saveDocument', SaveDocumentParamsSchema, SaveDocumentResultSchema, 5_000),
  closeFile: actionType('closeFile', CloseFileParamsSchema, z.null(), 5_000),
  selectedText: actionType('selectedText', SelectedTextParamsSchema, SelectedTextResultSchema, 2_000),
  reload: actionType('reload', ReloadParamsSchema, z.null(), 5_000),
  writeBuffer: actionType('writeBuffer', WriteBufferParamsSchema, z.null(), 10_000),
  diagnosticItems: actionType('diagnosticItems', DiagnosticItemsParamsSchema, DiagnosticItemsResultSchema, 5_000),
} as const;

export type EditorActionName = keyof typeof EDITOR_ACTIONS;
export type ActionParams<N extends EditorActionName> = z.infer<(typeof EDITOR_ACTIONS)[N]['params']>;
export type ActionResult<N extends EditorActionName> = z.infer<(typeof EDITOR_ACTIONS)[N]['result']>;

/** The actions every editor answers. */
export const REQUIRED_ACTIONS = ['showDiff', 'diffText', 'closeDiff'] as const satisfies readonly EditorActionName[];
/** The optional actions, each a capability an editor declares. */
export const CAPABILITIES = [
  'openFile',
  'getOpenEditors',
  'getSelection',
  'getDiagnostics',
  'checkDocumentDirty',
  'saveDocument',
] as const satisfies readonly EditorActionName[];
export const CapabilitySchema = /* @__PURE__ */ lazySchema(() => z.enum(CAPABILITIES));
export type Capability = z.infer<typeof CapabilitySchema>;
