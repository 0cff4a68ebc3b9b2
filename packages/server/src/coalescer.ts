/**
 * Turns a stream of "something changed" pokes into flushes:
 * - a lone change is flushed once the current job is done (a microtask): no
 *   quiet-time wait, yet a synchronous burst (many events handled in one job,
 *   e.g. one chunk read from the editor) is one flush;
 * - a change within `windowMs` of the last flush waits for the end of that
 *   window, and everything arriving meanwhile goes out in that one flush.
 * So flushes are at least `windowMs` apart (at most two in any window), the
 * flush reads the final state, and it comes at most `windowMs` after the last
 * change. A trailing-only debounce would make every lone change `windowMs` late.
 */
export interface CoalescerOptions {
  windowMs: number;
}

/** What the coalescer needs of time; injected by tests (no wall-clock waits there). */
export interface Scheduler {
  now(): number;
  /** Runs `fn` once the current job is done (before any timer). */
  nextTurn(fn: () => void): unknown;
  setTimer(fn: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
}

type RealHandle = { queued: { cancelled: boolean } } | { timeout: NodeJS.Timeout };

export const realScheduler: Scheduler = {
  now: () => performance.now(),
  // A microtask, not setImmediate: it runs once the current job (a whole chunk of
  // editor events) is done, without waiting for the loop's poll phase (~0.1 ms).
  nextTurn: (fn): RealHandle => {
    const queued = { cancelled: false };
    queueMicrotask(() => {
      if (!queued.cancelled) fn();
    });
    return { queued };
  },
  setTimer: (fn, ms): RealHandle => ({ timeout: setTimeout(fn, ms) }),
  cancel: (handle) => {
    const h = handle as RealHandle;
    if ('queued' in h) h.queued.cancelled = true;
    else clearTimeout(h.timeout);
  },
};

export class Coalescer {
  /** The scheduled flush, if one is pending. */
  private handle: unknown;
  private lastFlushAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly flush: () => void,
    private readonly options: CoalescerOptions,
    private readonly scheduler: Scheduler = realScheduler,
  ) {}

  poke(): void {
    if (this.handle !== undefined) return; // the pending flush will read the final state
    const wait = this.lastFlushAt + this.options.windowMs - this.scheduler.now();
    this.handle = wait > 0 ? this.scheduler.setTimer(() => this.fire(), wait) : this.scheduler.nextTurn(() => this.fire());
  }

  dispose(): void {
    if (this.handle !== undefined) this.scheduler.cancel(this.handle);
    this.handle = undefined;
  }

  private fire(): void {
    this.handle = undefined;
    this.lastFlushAt = this.scheduler.now();
    this.flush();
  }
}
