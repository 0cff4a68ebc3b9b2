/**
 * A WebSocket face's text messages written as one frame in one write to the
 * connection's socket. `ws` writes a frame as its header and its text, corked
 * and written together (a writev); the same frame (`ws`'s own framing) joined
 * into one buffer and written once costs ~0.06 ms less per context event
 * (issue 36's budget, bench/agent-faces.mjs), with the same bytes on the wire.
 *
 * Safe beside `ws`'s own writes on the same socket because its sender writes
 * each frame whole and at once: it only queues while compressing (off on our
 * servers: webSocketFace.ts) or reading a Blob (we send none).
 */
import type { Duplex } from 'node:stream';
import * as wsModule from 'ws';
import type { WebSocket } from 'ws';

/** Each accepted WebSocket's socket, as the upgrade handed it to `ws`. */
const sockets = new WeakMap<WebSocket, Duplex>();

/** `ws` took over `socket` for `ws`: its text frames may go to it directly. */
export function adoptSocket(ws: WebSocket, socket: Duplex): void {
  sockets.set(ws, socket);
}

/** Sends `text` as one text frame (the caller checked the WebSocket is open); through `ws` when its socket is not known or not writable. */
export function sendText(ws: WebSocket, text: string): void {
  const socket = sockets.get(ws);
  if (socket === undefined || socket.destroyed || !socket.writable) {
    ws.send(text);
    return;
  }
  socket.write(textFrame(text));
}

/** `ws`'s own framing: its Sender's static `frame` (exported by ws, not declared in @types/ws). */
const frameWithWs = (wsModule as unknown as { Sender: { frame(data: Buffer, options: FrameOptions): Buffer[] } }).Sender.frame;

interface FrameOptions {
  fin: boolean;
  opcode: number;
  mask: boolean;
  readOnly: boolean;
  rsv1: boolean;
}

/** `text` as a server's final text frame, framed by `ws`: header and UTF-8 payload joined in one buffer. */
function textFrame(text: string): Buffer {
  return Buffer.concat(frameWithWs(Buffer.from(text, 'utf8'), { fin: true, opcode: 0x1, mask: false, readOnly: false, rsv1: false }));
}
