/**
 * Pings a face's WebSockets while any is open (idle costs nothing): a socket
 * that has not answered (pong) since the last ping is ended and its face told.
 * Claude Code's and Amp's faces each hold one.
 */
import type { WebSocket } from 'ws';

export class KeepAlive {
  private timer: NodeJS.Timeout | undefined;
  private readonly watched = new Map<WebSocket, { alive: boolean; onDead: () => void }>();

  constructor(private readonly intervalMs: number) {}

  /** Pings `socket` from now on; `onDead` runs once it is ended for silence. */
  watch(socket: WebSocket, onDead: () => void): void {
    const entry = { alive: true, onDead };
    this.watched.set(socket, entry);
    socket.on('pong', () => (entry.alive = true));
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** No more pings for `socket` (its session ended); the timer stops with the last one. */
  forget(socket: WebSocket): void {
    this.watched.delete(socket);
    if (this.watched.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    for (const [socket, entry] of [...this.watched]) {
      if (!entry.alive) {
        this.watched.delete(socket);
        socket.terminate();
        entry.onDead();
        continue;
      }
      entry.alive = false;
      socket.ping();
    }
    if (this.watched.size === 0) this.stop();
  }
}
