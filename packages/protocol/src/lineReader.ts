/**
 * Lines read from a byte stream (JSON lines on stdio: the relay, `ide-companion
 * mcp`, the bridge host), each at most `maxBytes`. A longer line is reported
 * once, the moment it passes the cap, and its bytes are dropped up to its
 * newline: no reader holds more than the cap, none builds a string the engine
 * cannot hold (Node's limit is 512 MiB), and the next line is read as usual.
 * Pure: the caller feeds the chunks and decides what to answer.
 */

const NEWLINE = 0x0a;
const CR = 0x0d;

export interface LineReaderOptions {
  /** The longest line taken, in bytes, without its newline. */
  maxBytes: number;
  /** Each complete line, without `\n` or a trailing `\r`. */
  onLine: (line: Buffer) => void;
  /** A line passed `maxBytes`; its bytes up to the next newline are dropped. */
  onOversize: (maxBytes: number) => void;
}

export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(private readonly options: LineReaderOptions) {}

  push(chunk: Buffer): void {
    const { maxBytes } = this.options;
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (!this.skipping) {
        if (this.size + (end - start) > maxBytes) {
          this.skipping = true;
          this.parts = [];
          this.size = 0;
          this.options.onOversize(maxBytes);
        } else if (end > start) {
          this.parts.push(chunk.subarray(start, end));
          this.size += end - start;
        }
      }
      if (newline === -1) return;
      start = newline + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      this.flush();
    }
  }

  /** The stream ended: a last line without a newline is a line too. */
  end(): void {
    if (!this.skipping && this.size > 0) this.flush();
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }

  private flush(): void {
    const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    this.options.onLine(line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, -1) : line);
  }
}

/** How a reader words a refused message (one wording in every process). */
export function oversizeMessage(maxBytes: number): string {
  return `message too large: over ${Math.round(maxBytes / (1024 * 1024))} MiB (the cap on one message); it was dropped, the next is read`;
}
