/**
 * Editor events: what the user did, as every editor end reports it to the
 * companion (docs/editor-protocol.md). One vocabulary for in-process ends,
 * the Neovim host and the JSON-lines bridge; the server applies an event with
 * `applyEditorEvent`.
 */
import * as z from 'zod/mini';
import { AbsolutePathSchema } from '../editorTypes.js';
import { CursorSchema } from '../ideContext.js';

const path = AbsolutePathSchema;

export const FocusEventSchema = z.object({
  type: z.literal('focus'),
  path,
  cursor: z.optional(CursorSchema),
  selectedText: z.optional(z.string()),
});
export const CursorEventSchema = z.object({ type: z.literal('cursor'), path, cursor: CursorSchema, selectedText: z.optional(z.string()) });
export const SelectionEventSchema = z.object({ type: z.literal('selection'), path, selectedText: z.optional(z.string()) });
export const OpenEventSchema = z.object({ type: z.literal('open'), path, timestamp: z.optional(z.number()) });
export const CloseEventSchema = z.object({ type: z.literal('close'), path });
export const RenameEventSchema = z.object({ type: z.literal('rename'), from: path, to: path });
export const DeleteEventSchema = z.object({ type: z.literal('delete'), path });
export const SavedEventSchema = z.object({ type: z.literal('saved'), path });
export const RootsEventSchema = z.object({ type: z.literal('roots'), roots: z.array(path) });
export const TrustEventSchema = z.object({ type: z.literal('trust'), trusted: z.boolean() });
/** The user accepted; `content` is the proposal as edited (omitted: unedited). */
export const DiffAcceptedEventSchema = z.object({ type: z.literal('diffAccepted'), diffId: z.string().check(z.minLength(1)), content: z.optional(z.string()) });
export const DiffRejectedEventSchema = z.object({ type: z.literal('diffRejected'), diffId: z.string().check(z.minLength(1)) });

export const EditorEventSchema = z.discriminatedUnion('type', [
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
]);
export type EditorEvent = z.infer<typeof EditorEventSchema>;
export type EditorEventType = EditorEvent['type'];
