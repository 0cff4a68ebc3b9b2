/**
 * The bottom line of the `serve` terminal: the session status, the latest
 * notice and the review prompt, redrawn in place on a TTY so that nothing a
 * client does (connecting, being refused a thousand times) scrolls a proposal
 * off the screen. Diffs and answers print above it. On a pipe, the same text
 * goes out as plain lines.
 */
import type { WriteStream } from 'node:tty';
import type { Logger } from '@ide-companion/server/logger';
import { paint } from './renderDiff.js';
import { visibleLine } from './visible.js';

const CLEAR_LINE = '\r\x1b[2K';

export class StatusLine {
  private status = '';
  private notice = '';
  private prompt = '';
  private suspended = false;
  private pending = '';
  readonly tty: boolean;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly color: boolean,
  ) {
    this.tty = (out as WriteStream).isTTY === true;
  }

  /** Prints `text` (whole lines) above the bottom line. */
  print(text: string): void {
    if (this.suspended) {
      this.pending += text;
      return;
    }
    if (!this.tty) {
      this.out.write(text);
      return;
    }
    this.out.write(CLEAR_LINE + text);
    this.draw();
  }

  /** The lasting status (who is connected). */
  setStatus(text: string): void {
    this.status = text;
    this.changed(text);
  }

  /** A passing notice (a queued proposal, refused requests); replaces the previous one. */
  setNotice(text: string): void {
    this.notice = text;
    this.changed(text);
  }

  /** The question waiting for a key, or '' for none. */
  setPrompt(text: string): void {
    this.prompt = text;
    if (this.suspended) return;
    if (this.tty) this.draw();
    else if (text) this.out.write(text);
  }

  /** Leaves the terminal to another program ($EDITOR) until `resume`. */
  suspend(): void {
    if (this.tty && !this.suspended) this.out.write(CLEAR_LINE);
    this.suspended = true;
  }

  resume(): void {
    this.suspended = false;
    const text = this.pending;
    this.pending = '';
    if (text) this.print(text);
    else if (this.tty) this.draw();
  }

  /** Clears the bottom line for good (on exit, so the shell's prompt starts on a clean row). */
  end(): void {
    if (this.tty && !this.suspended) this.out.write(CLEAR_LINE);
    this.suspended = true;
    this.pending = '';
  }

  private changed(text: string): void {
    if (this.suspended) return;
    if (this.tty) this.draw();
    else if (text) this.out.write(`${text}\n`);
  }

  /** One row, cut to the terminal's width so it never wraps (a wrapped row could not be redrawn in place). */
  private draw(): void {
    const width = Math.max(20, ((this.out as WriteStream).columns ?? 80) - 1);
    const info = [this.status, this.notice].filter(Boolean).join(' · ');
    const room = width - this.prompt.length - (info && this.prompt ? 3 : 0);
    let shown = info;
    if (room <= 0) shown = '';
    else if ([...info].length > room) shown = `${[...info].slice(0, room - 1).join('')}…`;
    const left = shown ? paint(shown, 'dim', this.color) : '';
    const right = this.prompt ? paint(this.prompt.slice(0, width), 'bold', this.color) : '';
    this.out.write(CLEAR_LINE + left + (left && right ? ' │ ' : '') + right);
  }
}

/**
 * A logger for `serve`'s terminal: warnings and errors (refused requests above
 * all) become the notice: the first at once, then at most one summary per
 * `intervalMs` ("12 more warnings in 1 s, last: ..."), never a line each.
 */
export function statusLineLogger(line: StatusLine, intervalMs = 1_000): Logger {
  let more = 0;
  let last = '';
  let timer: NodeJS.Timeout | undefined;
  const wait = () => {
    timer = setTimeout(flush, intervalMs);
    timer.unref();
  };
  const flush = () => {
    timer = undefined;
    if (more === 0) return;
    line.setNotice(`${more} more warning${more === 1 ? '' : 's'} in ${intervalMs / 1000} s, last: ${last}`);
    more = 0;
    wait();
  };
  const warn = (message: string, fields?: Record<string, unknown>) => {
    // Fields may carry a client's path or error text: shown, never interpreted.
    last = visibleLine(`${message}${fields ? ` ${JSON.stringify(fields)}` : ''}`);
    if (timer) {
      more++;
      return;
    }
    line.setNotice(last);
    wait();
  };
  return { debug: () => {}, info: () => {}, warn, error: warn };
}
