/**
 * After the user accepts a diff, Gemini CLI writes the file itself. Watching
 * for that write lets the editor reload the user's buffer at once, before
 * Neovim would notice the new timestamp and ask "file changed on disk".
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface ReloadWatchOptions {
  /** Give up if nothing is written by then (the CLI may have gone away). */
  timeoutMs?: number;
  /** Wait this long after the last change event, so a write in several chunks is seen whole. */
  settleMs?: number;
}

/** Calls `onWrite` once after `filePath` is next written (or created). Returns a function that cancels. */
export function reloadWhenWritten(filePath: string, onWrite: () => void, options: ReloadWatchOptions = {}): () => void {
  const base = path.basename(filePath);
  let settle: NodeJS.Timeout | undefined;
  let watcher: fs.FSWatcher | undefined;
  let done = false;
  const stop = () => {
    done = true;
    clearTimeout(settle);
    clearTimeout(deadline);
    watcher?.close();
  };
  const deadline = setTimeout(stop, options.timeoutMs ?? 60_000);
  deadline.unref();
  try {
    // The directory, not the file: the file may not exist yet, or be replaced by a rename.
    watcher = fs.watch(path.dirname(filePath), (_event, name) => {
      if (done || (name !== null && name.toString() !== base)) return;
      clearTimeout(settle);
      settle = setTimeout(() => {
        stop();
        onWrite();
      }, options.settleMs ?? 30);
    });
    watcher.on('error', stop);
  } catch {
    // No such directory (a new file in a new folder): no buffer can be showing it from disk.
    stop();
  }
  return stop;
}
