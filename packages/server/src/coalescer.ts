/**
 * Turns a stream of "something changed" pokes into flushes:
 * - an isolated change is flushed after `quietMs` (a few ms), not a whole window late;
 * - changes arriving together (each within `quietMs` of the last) are flushed once,
 *   at most `windowMs` after the first of them;
 * - after a flush, further changes wait for the end of that flush's window, so
 *   flushes are at least `windowMs` apart and a long burst costs one flush per window.
 * A trailing-only debounce would make every lone change `windowMs` late.
 */
export interface CoalescerOptions {
  windowMs: number;
  quietMs: number;
}

export class Coalescer {
  private timer: NodeJS.Timeout | undefined;
  private lastFlushAt = Number.NEGATIVE_INFINITY;
  private firstPendingAt: number | undefined;

  constructor(
    private readonly flush: () => void,
    private readonly options: CoalescerOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  poke(): void {
    const now = this.now();
    this.firstPendingAt ??= now;
    const { windowMs, quietMs } = this.options;
    const windowEnd = this.lastFlushAt + windowMs;
    const delay =
      now >= windowEnd
        ? Math.min(quietMs, this.firstPendingAt + windowMs - now) // leading edge: wait for quiet, bounded
        : windowEnd - now; // inside the last flush's window: trailing edge
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), Math.max(0, delay));
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.firstPendingAt = undefined;
  }

  private fire(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.firstPendingAt = undefined;
    this.lastFlushAt = this.now();
    this.flush();
  }
}
