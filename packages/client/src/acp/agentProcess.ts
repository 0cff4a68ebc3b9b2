/**
 * The agent as a subprocess speaking ACP (JSON-RPC, one message a line) on its
 * stdio, and the SDK's Stream over it. Ours rather than the SDK's ndJsonStream
 * because an agent is not trusted: a line is capped (LineReader drops a longer
 * one without holding it), a line that is not a JSON-RPC message is reported
 * and skipped, and the agent's exit (with the tail of its stderr) is a value
 * the session can wait on instead of a hang.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { LineReader, cleanText, oversizeMessage } from '@ide-companion/protocol';
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';

/** The longest message taken from an agent: a file it writes travels in one (fs/write_text_file). */
export const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** How much of the agent's stderr is kept for the message when it exits. */
const STDERR_TAIL_BYTES = 4 * 1024;
/** Malformed lines reported one by one before the rest are only counted. */
const MAX_REPORTED_PROBLEMS = 5;

export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last few KiB of its stderr, cleaned for a terminal. */
  stderrTail: string;
  /** Set when it could not be started at all. */
  spawnError?: string;
}

export interface AgentProcessOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  env?: NodeJS.ProcessEnv;
  maxMessageBytes?: number;
  /** A line we refused (not JSON-RPC, too large): in words for the user. */
  onProblem: (message: string) => void;
}

export class AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stream: Stream;
  /** Resolves once the agent has exited (or failed to start); never rejects. */
  readonly exited: Promise<AgentExit>;
  private stderrTail = Buffer.alloc(0);
  private problems = 0;
  private exitInfo: AgentExit | undefined;

  constructor(private readonly options: AgentProcessOptions) {
    this.child = spawn(options.command, [...options.args], { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (chunk: Buffer) => {
      const joined = Buffer.concat([this.stderrTail, chunk]);
      this.stderrTail = joined.subarray(Math.max(0, joined.length - STDERR_TAIL_BYTES));
    });
    // A write to an agent that died is answered by its exit, not by an unhandled error.
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise<AgentExit>((resolve) => {
      const done = (info: Omit<AgentExit, 'stderrTail'>) => {
        if (this.exitInfo) return;
        this.exitInfo = { ...info, stderrTail: cleanText(this.stderrTail.toString('utf8')).trim() };
        resolve(this.exitInfo);
      };
      this.child.once('error', (err) => done({ code: null, signal: null, spawnError: err.message }));
      this.child.once('close', (code, signal) => done({ code, signal }));
    });
    this.stream = { readable: this.readable(), writable: this.writable() };
  }

  get hasExited(): AgentExit | undefined {
    return this.exitInfo;
  }

  /** Ends the agent: stdin closed, SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 2_000): Promise<AgentExit> {
    if (!this.exitInfo) {
      this.child.stdin.end();
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    return this.exited;
  }

  private problem(message: string): void {
    this.problems++;
    if (this.problems <= MAX_REPORTED_PROBLEMS) this.options.onProblem(message);
    else if (this.problems === MAX_REPORTED_PROBLEMS + 1) this.options.onProblem('more malformed output from the agent: no longer reported');
  }

  private readable(): ReadableStream<AnyMessage> {
    const { child } = this;
    const maxBytes = this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    // Once the SDK cancels the stream (the connection closed), what the agent still sends is dropped.
    let open = true;
    return new ReadableStream<AnyMessage>({
      start: (controller) => {
        const reader = new LineReader({
          maxBytes,
          onLine: (line) => {
            const message = parseMessage(line);
            if (typeof message === 'string') this.problem(message);
            else if (message && open) controller.enqueue(message);
          },
          onOversize: (max) => this.problem(`the agent sent a ${oversizeMessage(max)}`),
        });
        child.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
        child.stdout.once('close', () => {
          reader.end();
          if (!open) return;
          open = false;
          controller.close();
        });
      },
      cancel: () => {
        open = false;
      },
    });
  }

  private writable(): WritableStream<AnyMessage> {
    const { stdin } = this.child;
    return new WritableStream<AnyMessage>({
      write: (message) =>
        new Promise<void>((resolve, reject) => {
          if (this.exitInfo || stdin.destroyed) {
            reject(new Error('the agent has exited'));
            return;
          }
          stdin.write(`${JSON.stringify(message)}\n`, (err) => (err ? reject(err) : resolve()));
        }),
      close: () => {
        stdin.end();
      },
    });
  }
}

/** A JSON-RPC message, undefined for a blank line, or why the line is refused. */
export function parseMessage(line: Buffer): AnyMessage | string | undefined {
  const text = line.toString('utf8');
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `the agent wrote a line that is not JSON, ignored: ${JSON.stringify(cleanText(text.slice(0, 80)))}${text.length > 80 ? '...' : ''}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || (value as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
    return `the agent wrote JSON that is not a JSON-RPC 2.0 message, ignored: ${JSON.stringify(cleanText(text.slice(0, 80)))}${text.length > 80 ? '...' : ''}`;
  }
  return value as AnyMessage;
}
