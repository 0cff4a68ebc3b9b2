/**
 * One connection on Codex's IPC socket, as frames (protocol/codex.ts): the
 * decoder with its cap, JSON values checked against the frame schemas, and
 * one way out for everything that ends it. A bad frame (over the cap, not
 * JSON, not a frame we know) is logged, ends that connection and nothing else.
 */
import type * as net from 'node:net';
import {
  CodexFrameDecoder,
  CodexFrameError,
  CodexFrameSchema,
  encodeCodexFrame,
  PARSE_ONCE,
  plainCodexRequest,
  type CodexFrame,
} from '@ide-companion/protocol';
import { describeError, type Logger } from '../logger.js';

export interface CodexConnectionHandlers {
  /** The cap for the frame whose length is read now. */
  maxFrameBytes: () => number;
  onFrame: (frame: CodexFrame) => void;
  /** Once, however it ended; `reason` says why when it was not a plain close. */
  onClose: (reason?: string) => void;
  /**
   * The router's deadlines for a peer: its first frame whole within `firstFrameMs` of connecting, and each frame
   * whole within `frameMs` of its first bytes; one missed closes the connection (a silent or trickling peer holds
   * no place). None for the face's own connection to a router.
   */
  deadlines?: { firstFrameMs: number; frameMs: number };
}

/** Where frames go: a socket connection, or the router's own face in its process (codexRouter's attachLocal). */
export interface CodexLink {
  send(frame: CodexFrame): void;
  close(reason?: string): void;
  readonly isClosed: boolean;
}

export class CodexConnection implements CodexLink {
  private readonly decoder: CodexFrameDecoder;
  private closed = false;
  private framed = false;
  /** The deadline running now (the first frame's, or the partial frame's), and since when its frame is awaited. */
  private deadline: NodeJS.Timeout | undefined;

  constructor(
    readonly socket: net.Socket,
    private readonly handlers: CodexConnectionHandlers,
    private readonly logger: Logger,
  ) {
    this.decoder = new CodexFrameDecoder(handlers.maxFrameBytes);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (err) => this.close(describeError(err)));
    socket.on('close', () => this.close());
    const deadlines = handlers.deadlines;
    if (deadlines) this.arm(deadlines.firstFrameMs, `no whole frame within ${deadlines.firstFrameMs} ms of connecting`);
  }

  private arm(ms: number, reason: string): void {
    clearTimeout(this.deadline);
    this.deadline = setTimeout(() => {
      this.logger.warn('Codex IPC: a peer was too slow; its connection is closed', { reason });
      this.close(reason);
    }, ms);
    this.deadline.unref();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  send(frame: CodexFrame): void {
    if (this.closed) return;
    this.socket.write(encodeCodexFrame(frame));
  }

  /** Ends the connection (once); the peer sees it closed. */
  close(reason?: string): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.deadline);
    this.socket.destroy();
    this.handlers.onClose(reason);
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    let values: unknown[];
    try {
      values = this.decoder.push(chunk);
    } catch (err) {
      const reason = err instanceof CodexFrameError ? err.message : describeError(err);
      this.logger.warn('Codex IPC: a peer sent what is not a frame; its connection is closed', { reason });
      this.close(reason);
      return;
    }
    const deadlines = this.handlers.deadlines;
    if (deadlines) {
      // A frame completed: the next one's clock starts with its first bytes. Before the first frame, its own deadline runs.
      if (values.length > 0) {
        this.framed = true;
        clearTimeout(this.deadline);
        this.deadline = undefined;
      }
      if (this.framed && this.decoder.pending > 0 && this.deadline === undefined) {
        this.arm(deadlines.frameMs, `a frame not whole within ${deadlines.frameMs} ms of its first bytes`);
      }
    }
    for (const value of values) {
      if (this.closed) return;
      // A plain request (each /ide's) without zod; anything else as the schema reads it.
      const plain = plainCodexRequest(value);
      const parsed = plain ? { success: true as const, data: plain } : CodexFrameSchema.safeParse(value, PARSE_ONCE);
      if (!parsed.success) {
        const type = typeof value === 'object' && value !== null ? String((value as { type?: unknown }).type) : typeof value;
        this.logger.warn('Codex IPC: a peer sent a frame we do not know; its connection is closed', { type });
        this.close(`unknown frame (type ${type})`);
        return;
      }
      try {
        this.handlers.onFrame(parsed.data);
      } catch (err) {
        this.logger.error('Codex IPC: a frame could not be handled', { error: describeError(err) });
      }
    }
  }
}
