/**
 * The line-delimited JSON protocol between a companion host and a small
 * editor-side script (Vim, Emacs, others): one JSON object per line. The
 * editor reports events and decisions; the host asks it to show and close
 * diffs. Defined once here, as zod schemas.
 */
import { z } from 'zod';
import { CursorSchema } from '@ide-companion/protocol';

const AbsPath = z.string().min(1);

/** Editor -> host. */
export const EditorMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('focus'), path: AbsPath, cursor: CursorSchema.optional(), selectedText: z.string().optional() }),
  z.object({ type: z.literal('open'), path: AbsPath, timestamp: z.number().optional() }),
  z.object({ type: z.literal('close'), path: AbsPath }),
  z.object({ type: z.literal('cursor'), path: AbsPath, cursor: CursorSchema, selectedText: z.string().optional() }),
  z.object({ type: z.literal('selection'), path: AbsPath, selectedText: z.string().optional() }),
  z.object({ type: z.literal('rename'), from: AbsPath, to: AbsPath }),
  z.object({ type: z.literal('delete'), path: AbsPath }),
  z.object({ type: z.literal('saved'), path: AbsPath }),
  z.object({ type: z.literal('roots'), roots: z.array(AbsPath) }),
  z.object({ type: z.literal('trust'), trusted: z.boolean() }),
  z.object({ type: z.literal('diffAccepted'), id: z.string(), content: z.string().optional() }),
  z.object({ type: z.literal('diffRejected'), id: z.string() }),
  /** Answer to `currentText`: the proposal as edited, or null when unchanged / unknown. */
  z.object({ type: z.literal('currentText'), requestId: z.number(), text: z.string().nullable() }),
]);
export type EditorMessage = z.infer<typeof EditorMessageSchema>;

/** Host -> editor. */
export type HostMessage =
  | { type: 'ready'; port: number; env: Record<string, string>; discoveryFile: string }
  | { type: 'showDiff'; id: string; filePath: string; newContent: string }
  | { type: 'closeDiff'; id: string; reason: string }
  | { type: 'currentText'; requestId: number; id: string }
  | { type: 'sessions'; count: number }
  | { type: 'error'; message: string };
