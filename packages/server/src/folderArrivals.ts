/**
 * Folders awaited: an agent the companion would serve but whose folder
 * (`~/.qwen`, `~/.claude`, `~/.copilot`, `~/.codex`, Amp's data folder) is
 * missing, because the user first runs it after the editor started, is served
 * once that folder appears (issue 39), not at the editor's next start.
 *
 * One non-recursive `fs.watch` per parent folder (usually the home folder: one
 * inotify watch, no wake-up while nothing there changes), its events filtered
 * by name; a parent that is missing, or whose watch is refused, is polled every
 * `pollMs` instead. Everything ends once nothing is awaited, or on close.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const ARRIVAL_POLL_MS = 2_000;

export class FolderArrivals<K extends string> {
  private readonly awaited = new Map<K, string>();
  private readonly watchers = new Map<string, fs.FSWatcher>();
  private poll: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    /** Called once per key, when its folder exists. */
    private readonly onArrive: (key: K, folder: string) => void,
    private readonly pollMs = ARRIVAL_POLL_MS,
  ) {}

  /** The keys still awaited, with their folders. */
  get pending(): ReadonlyMap<K, string> {
    return this.awaited;
  }

  /** Awaits `folder` for `key` (replacing an earlier folder for it). */
  add(key: K, folder: string): void {
    if (this.closed) return;
    this.awaited.set(key, folder);
    this.watchParent(path.dirname(folder));
    // It may have appeared between the caller's look and the watch.
    this.check();
  }

  /** Stops awaiting `key` (another way served it). */
  delete(key: K): void {
    this.awaited.delete(key);
    if (this.awaited.size === 0) this.stopAll();
  }

  close(): void {
    this.closed = true;
    this.awaited.clear();
    this.stopAll();
  }

  private watchParent(parent: string): void {
    if (this.watchers.has(parent)) return;
    let watcher: fs.FSWatcher;
    try {
      watcher = fs.watch(parent, { persistent: false }, (_event, name) => {
        // Only a change to an awaited name matters (the home folder sees other files come and go).
        if (name === null || [...this.awaited.values()].some((f) => path.dirname(f) === parent && path.basename(f) === String(name))) this.check();
      });
    } catch {
      // The parent is missing too (or refused): a slow poll notices it all.
      this.startPoll();
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      this.watchers.delete(parent);
      this.startPoll();
    });
    this.watchers.set(parent, watcher);
  }

  private startPoll(): void {
    if (this.poll || this.closed) return;
    this.poll = setInterval(() => this.check(), this.pollMs);
    this.poll.unref();
  }

  private check(): void {
    for (const [key, folder] of [...this.awaited]) {
      if (!fs.existsSync(folder)) continue;
      this.awaited.delete(key);
      try {
        this.onArrive(key, folder);
      } catch {
        // The caller says what went wrong; the others are still awaited.
      }
    }
    if (this.awaited.size === 0) {
      this.stopAll();
      return;
    }
    // Parents no longer awaited in are let go.
    const parents = new Set([...this.awaited.values()].map((f) => path.dirname(f)));
    for (const [parent, watcher] of this.watchers) {
      if (parents.has(parent)) continue;
      watcher.close();
      this.watchers.delete(parent);
    }
  }

  private stopAll(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
  }
}
