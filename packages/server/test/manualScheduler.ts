/** A Scheduler on a manual clock: time moves only when a test says so. */
import type { Scheduler } from '../src/index.js';

interface Job {
  at: number;
  seq: number;
  fn: () => void;
}

export class ManualScheduler implements Scheduler {
  private time = 0;
  private seq = 0;
  private readonly jobs = new Map<number, Job>();

  now(): number {
    return this.time;
  }

  nextTurn(fn: () => void): unknown {
    return this.add(this.time, fn);
  }

  setTimer(fn: () => void, ms: number): unknown {
    return this.add(this.time + Math.max(0, ms), fn);
  }

  cancel(handle: unknown): void {
    this.jobs.delete(handle as number);
  }

  /** Ends the current turn: runs what is due now, without moving the clock. */
  turn(): void {
    this.advance(0);
  }

  /** Moves the clock by `ms`, running every job that falls due, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.jobs.entries()].filter(([, j]) => j.at <= end).sort(([, a], [, b]) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.jobs.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].fn();
    }
    this.time = end;
  }

  get pending(): number {
    return this.jobs.size;
  }

  private add(at: number, fn: () => void): number {
    const id = ++this.seq;
    this.jobs.set(id, { at, seq: id, fn });
    return id;
  }
}
