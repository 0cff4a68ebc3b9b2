/**
 * A watch on one file's writes by another process (an agent writing what the
 * user accepted): its folder is watched, as the file may not exist yet or be
 * replaced by a rename, and each write is looked at once it has settled.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Quiet time after the last change event before the file is read: a write in several chunks is seen whole. */
const WRITE_SETTLE_MS = 30;

/**
 * Watches `file` until `timeoutMs`: after each write, settled, calls `onWrite`
 * with `holds()` (whether the file now holds what is awaited); once it does,
 * the watch ends. A no-op when the folder cannot be watched. Returns a
 * function that stops the watch.
 */
export function watchWrites(file: string, holds: () => boolean, timeoutMs: number, onWrite: (holds: boolean) => void): () => void {
  const base = path.basename(file);
  let watcher: fs.FSWatcher | undefined;
  let settle: NodeJS.Timeout | undefined;
  const stop = () => {
    clearTimeout(deadline);
    clearTimeout(settle);
    watcher?.close();
    watcher = undefined;
  };
  const deadline = setTimeout(stop, timeoutMs);
  deadline.unref();
  try {
    watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (!watcher || (name !== null && name.toString() !== base)) return;
      clearTimeout(settle);
      settle = setTimeout(() => {
        if (!watcher) return;
        const held = holds();
        if (held) stop();
        onWrite(held);
      }, WRITE_SETTLE_MS);
      settle.unref();
    });
    watcher.on('error', stop);
  } catch {
    stop();
  }
  return stop;
}
