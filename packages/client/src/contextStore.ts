/**
 * What the CLI would send the model: the companion's last `ide/contextUpdate`,
 * normalised as the CLI's IdeContextStore does it (newest first by timestamp,
 * only the newest file may be active and carry cursor/selectedText, selected
 * text cut at 16 KiB with the CLI's marker, at most 10 files). Unlike the CLI
 * we never mutate the caller's object.
 */
import { MAX_OPEN_FILES, MAX_SELECTED_TEXT_LENGTH, SELECTED_TEXT_TRUNCATION_MARKER, type File, type IdeContext } from '@ide-companion/protocol';

export type ContextListener = (context: IdeContext | undefined) => void;

/** The CLI's normalisation, as a pure function. */
export function normalizeContext(input: IdeContext): IdeContext {
  const state = input.workspaceState;
  if (!state) return { ...input };
  const openFiles = state.openFiles;
  if (!openFiles || openFiles.length === 0) return { ...input, workspaceState: { ...state } };
  // Array.prototype.sort is stable, as the CLI relies on for equal timestamps.
  const files: File[] = openFiles.map((f) => ({ ...f })).sort((a, b) => b.timestamp - a.timestamp);
  const newest = files[0]!;
  files.forEach((file, index) => {
    if (index !== 0 || !newest.isActive) {
      file.isActive = false;
      file.cursor = undefined;
      file.selectedText = undefined;
    }
  });
  if (newest.isActive && newest.selectedText && newest.selectedText.length > MAX_SELECTED_TEXT_LENGTH) {
    newest.selectedText = newest.selectedText.substring(0, MAX_SELECTED_TEXT_LENGTH) + SELECTED_TEXT_TRUNCATION_MARKER;
  }
  return { ...input, workspaceState: { ...state, openFiles: files.slice(0, MAX_OPEN_FILES) } };
}

/** Drops the keys set to undefined, so JSON and deepEqual see what the model sees. */
export function toModelJson(context: IdeContext | undefined): unknown {
  return context === undefined ? undefined : JSON.parse(JSON.stringify(context));
}

export class ContextStore {
  private current: IdeContext | undefined;
  private readonly listeners = new Set<ContextListener>();

  get(): IdeContext | undefined {
    return this.current;
  }

  /** The active file (newest, if active), or undefined. */
  activeFile(): File | undefined {
    const first = this.current?.workspaceState?.openFiles?.[0];
    return first?.isActive ? first : undefined;
  }

  set(context: IdeContext): void {
    this.current = normalizeContext(context);
    this.emit();
  }

  clear(): void {
    if (this.current === undefined) return;
    this.current = undefined;
    this.emit();
  }

  /** Called on every change (not with the current value); returns an unsubscribe function. */
  subscribe(listener: ContextListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    for (const listener of this.listeners) {
      try {
        listener(this.current);
      } catch {
        // A subscriber's bug must not stop the others or the connection.
      }
    }
  }
}
