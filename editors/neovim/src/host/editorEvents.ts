/**
 * The notifications the Lua side sends (`vim.rpcnotify(channel, method, payload)`)
 * and how each becomes a ContextTracker call. This is the whole editor->protocol
 * translation: the Lua side only reports what happened, the tracker decides
 * what the CLI sees (ordering, existence on disk, coalescing).
 */
import * as path from 'node:path';
import { z } from 'zod';
import type { ContextTracker } from '@ide-companion/server';
import { BufferStateSchema } from './bufferText.js';

const AbsolutePath = z
  .string()
  .min(1)
  .refine((p) => path.isAbsolute(p), 'must be an absolute path');

const Position = {
  path: AbsolutePath,
  line: z.number().int().min(1),
  character: z.number().int().min(1),
  selectedText: z.string().optional(),
};

export const EditorEventSchemas = {
  /** The host's first message: who the editor is and what it looks at. */
  start: z.object({
    pid: z.number().int().positive(),
    roots: z.array(AbsolutePath),
    trusted: z.boolean().optional(),
    logFile: z.string().min(1).optional(),
    ideInfo: z.object({ name: z.string().min(1), displayName: z.string().min(1) }).optional(),
  }),
  stop: z.object({}).passthrough(),
  /** A file buffer got focus (BufEnter, WinEnter, FocusGained). */
  focus: z.object(Position),
  /** The cursor moved or the visual selection changed in the focused file buffer. */
  cursor: z.object(Position),
  /** A file buffer was added without focus (`:badd`, arguments). */
  open: z.object({ path: AbsolutePath }),
  /** A file buffer was deleted or wiped. */
  close: z.object({ path: AbsolutePath }),
  /** A buffer's file name changed (`:file`, `:saveas`). */
  rename: z.object({ from: AbsolutePath, to: AbsolutePath }),
  /** A buffer was written (a new file may exist on disk only now). */
  saved: z.object({ path: AbsolutePath }),
  /** Workspace roots: global, tab-local and window-local cwds plus configured roots. */
  roots: z.object({ roots: z.array(AbsolutePath) }),
  /** The user accepted a diff (`:w` in the proposal, :GeminiAccept); the buffer as it stands. */
  diffAccept: z.object({ id: z.string().min(1), buffer: BufferStateSchema }),
  /** The user rejected a diff (closed the proposal, :GeminiReject). */
  diffReject: z.object({ id: z.string().min(1) }),
} as const;

export type EditorEventName = keyof typeof EditorEventSchemas;
export type EditorEvent<K extends EditorEventName> = z.infer<(typeof EditorEventSchemas)[K]>;

export class EditorEventError extends Error {
  override name = 'EditorEventError';
}

export function isEditorEventName(method: string): method is EditorEventName {
  return Object.prototype.hasOwnProperty.call(EditorEventSchemas, method);
}

/** Validates a notification's single argument; throws EditorEventError with a readable reason. */
export function parseEditorEvent<K extends EditorEventName>(method: K, args: unknown): EditorEvent<K> {
  const payload = Array.isArray(args) ? args[0] : undefined;
  const result = EditorEventSchemas[method].safeParse(payload ?? {});
  if (!result.success) {
    const reason = result.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ');
    throw new EditorEventError(`bad ${method} notification: ${reason}`);
  }
  return result.data as EditorEvent<K>;
}

type ContextEventName = 'focus' | 'cursor' | 'open' | 'close' | 'rename' | 'saved' | 'roots';

const cursorOf = (e: EditorEvent<'cursor'>) => ({ line: e.line, character: e.character });

/** How each context event becomes a ContextTracker call. */
const CONTEXT_EVENTS: { [K in ContextEventName]: (tracker: ContextTracker, e: EditorEvent<K>) => void } = {
  focus: (tracker, e) => tracker.focus(e.path, { cursor: cursorOf(e), selectedText: e.selectedText }),
  cursor: (tracker, e) => tracker.setCursor(e.path, cursorOf(e), e.selectedText),
  open: (tracker, e) => tracker.open(e.path),
  close: (tracker, e) => tracker.close(e.path),
  rename: (tracker, e) => tracker.rename(e.from, e.to),
  saved: (tracker, e) => tracker.saved(e.path),
  roots: (tracker, e) => tracker.setRoots(e.roots),
};

/** Applies a context event to the tracker. Returns false for events that are not context events. */
export function applyContextEvent(tracker: ContextTracker, method: EditorEventName, args: unknown): boolean {
  if (!Object.prototype.hasOwnProperty.call(CONTEXT_EVENTS, method)) return false;
  const apply = CONTEXT_EVENTS[method as ContextEventName] as (tracker: ContextTracker, e: unknown) => void;
  apply(tracker, parseEditorEvent(method, args));
  return true;
}
