/**
 * Editor events: what the user did, as every editor end reports it to the
 * companion (docs/editor-protocol.md). One vocabulary for in-process ends,
 * the Neovim host and the JSON-lines bridge; the server applies an event with
 * `applyEditorEvent`.
 */
import * as z from 'zod/mini';
import { lazySchema } from '../lazySchema.js';
import { AbsolutePathSchema } from '../editorTypes.js';
import { CursorSchema } from '../ideContext.js';

const path = AbsolutePathSchema;

/**
 * `selectionBackward`: the selection was made backward, so the cursor is at
 * its start (left out: at its end). Gemini CLI takes the text alone; Claude
 * Code's selection_changed also gives the range, which needs this.
 */
const selectionBackward = z.optional(z.boolean());
/**
 * A selection sent as its range: `anchor` is its other end (the cursor is
 * one end), in the cursor's units, and `selectionKind` how it spans them
 * (left out: characterwise). The host reads the text with the `selectedText`
 * action, only when the range changed and at most once per context update,
 * and works out `selectionBackward` itself: a move inside a big selection
 * then costs the editor what a plain move costs. Ends that send
 * `selectedText` instead (VS Code, scripted bridges) still may.
 */
export const SELECTION_KINDS = ['char', 'line', 'block'] as const;
export type SelectionKind = (typeof SELECTION_KINDS)[number];
const anchor = z.optional(CursorSchema);
const selectionKind = z.optional(z.enum(SELECTION_KINDS));
export const FocusEventSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    type: z.literal('focus'),
    path,
    cursor: z.optional(CursorSchema),
    selectedText: z.optional(z.string()),
    selectionBackward,
    anchor,
    selectionKind,
  }),
);
export const CursorEventSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    type: z.literal('cursor'),
    path,
    cursor: CursorSchema,
    selectedText: z.optional(z.string()),
    selectionBackward,
    anchor,
    selectionKind,
  }),
);
export const SelectionEventSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ type: z.literal('selection'), path, selectedText: z.optional(z.string()), selectionBackward }),
);
export const OpenEventSchema = /* @__PURE__ */ lazySchema(() => z.object({ type: z.literal('open'), path, timestamp: z.optional(z.number()) }));
export const CloseEventSchema = /* @__PURE__ */ lazySchema(() => z.object({ type: z.literal('close'), path }));
export const RenameEventSchema = /* @__PURE__ */ lazySchema(() => z.object({ type: z.literal('rename'), from: path, to: path }));
export const DeleteEventSchema = /* @__PURE__ */ lazySchema(() => z.object({ type: z.literal('delete'), path }));
export const SavedEventSchema = /* @__PURE__ */ lazySchema(() => z.object({ type: z.literal('saved'), path }));
export const RootsEventSchema = /* @__PURE__ */ lazySchema(() => z.object({ type: z.literal('roots'), roots: z.array(path) }));
export const TrustEventSchema = /* @__PURE__ */ lazySchema(() => z.object({ type: z.literal('trust'), trusted: z.boolean() }));
/** The user accepted; `content` is the proposal as edited (omitted: unedited). */
export const DiffAcceptedEventSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ type: z.literal('diffAccepted'), diffId: z.string().check(z.minLength(1)), content: z.optional(z.string()) }),
);
export const DiffRejectedEventSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({ type: z.literal('diffRejected'), diffId: z.string().check(z.minLength(1)) }),
);
/**
 * "Send to agent": the user sends a file, or lines of it (1-based,
 * inclusive), to the agents that take such a mention (Claude Code's
 * at_mentioned; docs/agents.md).
 */
export const MentionEventSchema = /* @__PURE__ */ lazySchema(() =>
  z.object({
    type: z.literal('mention'),
    path,
    startLine: z.optional(z.int().check(z.minimum(1))),
    endLine: z.optional(z.int().check(z.minimum(1))),
  }),
);

export const EditorEventSchema = /* @__PURE__ */ lazySchema(() =>
  z.discriminatedUnion('type', [
    FocusEventSchema,
    CursorEventSchema,
    SelectionEventSchema,
    OpenEventSchema,
    CloseEventSchema,
    RenameEventSchema,
    DeleteEventSchema,
    SavedEventSchema,
    RootsEventSchema,
    TrustEventSchema,
    DiffAcceptedEventSchema,
    DiffRejectedEventSchema,
    MentionEventSchema,
  ]),
);
export type EditorEvent = z.infer<typeof EditorEventSchema>;
export type EditorEventType = EditorEvent['type'];
