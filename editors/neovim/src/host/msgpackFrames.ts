/**
 * Neovim's msgpack-RPC messages cut from the host's stdin, each at most
 * `maxBytes`, before the `neovim` package decodes them (its decoder takes no
 * cap through `attach`, and one message past the engine's string limit stops
 * it for good). Only the framing is read: each value's header says how many
 * values it holds and how many bytes it carries, so a message ends when no
 * value is left to read. A longer message is reported once and its bytes are
 * dropped as they come; the next message passes as usual.
 */
import { PassThrough } from 'node:stream';

export interface MsgpackFramesOptions {
  maxBytes: number;
  /** A message passed `maxBytes`: its msgpack-RPC type and msgid when its head said them. */
  onOversize: (head: Buffer) => void;
}

/** Bytes after the type byte (`extra`), and how to read the payload size / child count from them. */
function headerOf(b: number): { extra: number; size: (h: Buffer) => { skip: number; children: number } } | undefined {
  const fixed = (skip: number) => ({ extra: 0, size: () => ({ skip, children: 0 }) });
  if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) return fixed(0);
  if (b >= 0x80 && b <= 0x8f) return { extra: 0, size: () => ({ skip: 0, children: 2 * (b & 0x0f) }) };
  if (b >= 0x90 && b <= 0x9f) return { extra: 0, size: () => ({ skip: 0, children: b & 0x0f }) };
  if (b >= 0xa0 && b <= 0xbf) return fixed(b & 0x1f);
  const uint = (h: Buffer, n: number) => (n === 1 ? h[1]! : n === 2 ? h.readUInt16BE(1) : h.readUInt32BE(1));
  const length = (n: number, plus = 0) => ({ extra: n + plus, size: (h: Buffer) => ({ skip: uint(h, n), children: 0 }) });
  switch (b) {
    case 0xc4:
    case 0xd9:
      return length(1);
    case 0xc5:
    case 0xda:
      return length(2);
    case 0xc6:
    case 0xdb:
      return length(4);
    case 0xc7:
      return length(1, 1);
    case 0xc8:
      return length(2, 1);
    case 0xc9:
      return length(4, 1);
    case 0xca:
      return fixed(4);
    case 0xcb:
      return fixed(8);
    case 0xcc:
    case 0xd0:
      return fixed(1);
    case 0xcd:
    case 0xd1:
      return fixed(2);
    case 0xce:
    case 0xd2:
      return fixed(4);
    case 0xcf:
    case 0xd3:
      return fixed(8);
    case 0xd4:
      return fixed(2);
    case 0xd5:
      return fixed(3);
    case 0xd6:
      return fixed(5);
    case 0xd7:
      return fixed(9);
    case 0xd8:
      return fixed(17);
    case 0xdc:
      return { extra: 2, size: (h) => ({ skip: 0, children: h.readUInt16BE(1) }) };
    case 0xdd:
      return { extra: 4, size: (h) => ({ skip: 0, children: h.readUInt32BE(1) }) };
    case 0xde:
      return { extra: 2, size: (h) => ({ skip: 0, children: 2 * h.readUInt16BE(1) }) };
    case 0xdf:
      return { extra: 4, size: (h) => ({ skip: 0, children: 2 * h.readUInt32BE(1) }) };
    default:
      return undefined; // 0xc1: never used
  }
}

/** The head of a message kept for the report: enough for its type and msgid. */
const HEAD_BYTES = 16;

/** `input` as a stream of whole messages of at most `maxBytes` each. */
export function msgpackFrames(input: NodeJS.ReadableStream, options: MsgpackFramesOptions): PassThrough {
  const out = new PassThrough();
  let parts: Buffer[] = [];
  let size = 0;
  let oversized = false;
  let head: Buffer = Buffer.alloc(0);
  /** Values still to read in the current message; 0 between messages. */
  let need = 0;
  /** Payload bytes of the current value still to pass. */
  let skip = 0;
  /** A value header split across chunks. */
  let header: Buffer = Buffer.alloc(0);
  let broken = false;

  const take = (bytes: Buffer) => {
    if (head.length < HEAD_BYTES) head = Buffer.concat([head, bytes.subarray(0, HEAD_BYTES - head.length)]);
    size += bytes.length;
    if (oversized) return;
    if (size > options.maxBytes) {
      oversized = true;
      parts = [];
      options.onOversize(head);
      return;
    }
    parts.push(bytes);
  };
  const done = () => {
    if (!oversized) out.write(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size));
    parts = [];
    size = 0;
    oversized = false;
    head = Buffer.alloc(0);
  };

  input.on('data', (chunk: Buffer) => {
    if (broken) return void out.write(chunk); // not msgpack as we know it: the decoder says why
    let i = 0;
    while (i < chunk.length) {
      if (skip > 0) {
        const n = Math.min(skip, chunk.length - i);
        take(chunk.subarray(i, i + n));
        i += n;
        skip -= n;
      } else {
        if (need === 0) need = 1;
        const type = header.length > 0 ? header[0]! : chunk[i]!;
        const shape = headerOf(type);
        if (!shape) {
          broken = true;
          out.write(Buffer.concat([...parts, header, chunk.subarray(i)]));
          return;
        }
        const want = 1 + shape.extra - header.length;
        const got = chunk.subarray(i, i + want);
        header = header.length > 0 ? Buffer.concat([header, got]) : got;
        take(got);
        i += got.length;
        if (header.length < 1 + shape.extra) break; // the rest of the header is in the next chunk
        const { skip: payload, children } = shape.size(header);
        header = Buffer.alloc(0);
        need += children - 1;
        skip = payload;
      }
      if (need === 0 && skip === 0) done();
    }
  });
  input.once('end', () => out.end());
  input.once('error', (err) => out.destroy(err as Error));
  return out;
}

/**
 * The msgpack-RPC error response to the request whose message starts with
 * `head` (`[0, msgid, method, params]`), or undefined when it is no request.
 */
export function oversizeAnswer(head: Buffer, message: string): Buffer | undefined {
  if (head[0] !== 0x94 || head[1] !== 0x00) return undefined;
  const t = head[2];
  const idBytes = t === undefined ? 0 : t <= 0x7f ? 1 : t === 0xcc ? 2 : t === 0xcd ? 3 : t === 0xce ? 5 : 0;
  if (idBytes === 0 || head.length < 2 + idBytes) return undefined;
  const text = Buffer.from(message.slice(0, 255));
  return Buffer.concat([Buffer.from([0x94, 0x01]), head.subarray(2, 2 + idBytes), Buffer.from([0xd9, text.length]), text, Buffer.from([0xc0])]);
}
