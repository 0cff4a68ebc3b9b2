/**
 * Editor events in the vocabulary of docs/editor-protocol.md. The extension
 * produces these and `applyEditorEvent` hands them to the companion; the
 * seam's own `applyEditorEvent(companion, event)` takes the same objects.
 */
import type { Companion } from '@ide-companion/server';

export interface Cursor {
  line: number;
  character: number;
}

export type EditorEvent =
  | { type: 'focus'; path: string; cursor?: Cursor; selectedText?: string }
  | { type: 'cursor'; path: string; cursor: Cursor; selectedText?: string }
  | { type: 'open'; path: string; timestamp?: number }
  | { type: 'close'; path: string }
  | { type: 'rename'; from: string; to: string }
  | { type: 'delete'; path: string }
  | { type: 'saved'; path: string }
  | { type: 'roots'; roots: string[] }
  | { type: 'trust'; trusted: boolean };

export function applyEditorEvent(companion: Companion, event: EditorEvent): void {
  const context = companion.context;
  switch (event.type) {
    case 'focus':
      return context.focus(event.path, { ...(event.cursor && { cursor: event.cursor }), selectedText: event.selectedText });
    case 'cursor':
      return context.setCursor(event.path, event.cursor, event.selectedText);
    case 'open':
      return context.open(event.path, event.timestamp);
    case 'close':
      return context.close(event.path);
    case 'rename':
      return context.rename(event.from, event.to);
    case 'delete':
      return context.delete(event.path);
    case 'saved':
      return context.saved(event.path);
    case 'roots':
      return context.setRoots(event.roots);
    case 'trust':
      return context.setTrusted(event.trusted);
  }
}
