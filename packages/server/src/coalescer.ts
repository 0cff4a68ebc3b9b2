/**
 * Turns a stream of "something changed" pokes into flushes:
 * - a lone change is flushed on the next turn of the event loop: no quiet-time
 *   wait, yet a synchronous burst (many events handled in one turn) is one flush;
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
  /** Runs `fn` after the current turn (before any timer of the same age). */
  nextTurn(fn: () => void): unknown;
  setTimer(fn: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
}

type RealHandle = { immediate: NodeJS.Immediate } | { timeout: NodeJS.Timeout };

export const realScheduler: Scheduler = {
  now: () => performance.now(),
  nextTurn: (fn): RealHandle => ({ immediate: setImmediate(fn) }),
  setTimer: (fn, ms): RealHandle => ({ timeout: setTimeout(fn, ms) }),
  cancel: (handle) => {
    // Each clear function must get its own kind of handle: clearImmediate on a Timeout corrupts Node's bookkeeping.
    const h = handle as RealHandle;
    if ('immediate' in h) clearImmediate(h.immediate);
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
