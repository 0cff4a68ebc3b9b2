/**
 * Applies an editor event (the one vocabulary, packages/protocol/src/editor/events.ts)
 * to a companion. Every editor end feeds the companion through here: the
 * JSON-lines bridge, the Neovim host, the terminal end, the VS Code extension.
 */
import * as z from 'zod/mini';
import { EditorEventSchema, type EditorEvent } from '@ide-companion/protocol';
import type { Companion } from './companion.js';
import { describeRootRefusals } from './workspaceRoots.js';

export class EditorEventError extends Error {
  override name = 'EditorEventError';
}

/** Validates an event from outside (a script, an RPC peer); throws EditorEventError saying what is wrong. */
export function parseEditorEvent(value: unknown): EditorEvent {
  const parsed = EditorEventSchema.safeParse(value);
  if (!parsed.success) throw new EditorEventError(`invalid editor event: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * Applies one event. Returns false when it names a diff that is no longer
 * pending (already decided, closed by the CLI, replaced): nothing changes then.
 */
export function applyEditorEvent(companion: Companion, event: EditorEvent): boolean {
  const context = companion.context;
  switch (event.type) {
    case 'focus':
      context.focus(event.path, { cursor: event.cursor, selectedText: event.selectedText, selectionBackward: event.selectionBackward });
      return true;
    case 'cursor':
      context.setCursor(event.path, event.cursor, event.selectedText, event.selectionBackward);
      return true;
    case 'selection':
      context.setSelection(event.path, event.selectedText, event.selectionBackward);
      return true;
    case 'open':
      context.open(event.path, event.timestamp);
      return true;
    case 'close':
      context.close(event.path);
      return true;
    case 'rename':
      context.rename(event.from, event.to);
      return true;
    case 'delete':
      context.delete(event.path);
      return true;
    case 'saved':
      context.saved(event.path);
      return true;
    case 'roots': {
      // Refused roots are said in the log and, thrown, to the editor (each end reports an event's error its own way); the sane ones are kept.
      const refused = context.setRoots(event.roots);
      if (refused.length === 0) return true;
      const message = describeRootRefusals(refused);
      companion.logger.warn(message);
      throw new EditorEventError(message);
    }
    case 'trust':
      context.setTrusted(event.trusted);
      return true;
    case 'diffAccepted':
      return companion.diffs.accept(event.diffId, event.content);
    case 'diffRejected':
      return companion.diffs.reject(event.diffId);
    case 'mention':
      // False when no connected agent takes a mention: the end says so.
      return companion.mention(event.path, event.startLine, event.endLine) > 0;
  }
}
