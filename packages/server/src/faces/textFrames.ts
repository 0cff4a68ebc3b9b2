/**
 * A WebSocket face's text messages written as one frame in one write to the
 * connection's socket. `ws` writes a frame as its header and its text, corked
 * and written together (a writev); one buffer made here and written once
 * cost ~0.06 ms less per context event (issue 36's budget, bench/agent-faces.mjs),
 * the same bytes on the wire (RFC 6455: FIN, text, unmasked as a server's are).
 *
 * Safe beside `ws`'s own writes on the same socket because its sender writes
 * each frame whole and at once: it only queues while compressing (off on our
 * servers: webSocketFace.ts) or reading a Blob (we send none).
 */
import type { Duplex } from 'node:stream';
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

/** `text` as a server's final text frame: header and UTF-8 payload in one buffer. */
export function textFrame(text: string): Buffer {
  const length = Buffer.byteLength(text, 'utf8');
  const head = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(head + length);
  frame[0] = 0x81;
  if (head === 2) frame[1] = length;
  else if (head === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    // A buffer is far below 2^53 bytes: the 64-bit length as two 32-bit halves.
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  frame.write(text, head, 'utf8');
  return frame;
}
