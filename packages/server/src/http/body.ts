/** Reads a request body as JSON, bounded, holding as few copies of it as it can. */
import type { IncomingMessage } from 'node:http';
import { allocateReleasable } from '@ide-companion/shared/releasableBuffer';
import { parseJsonBytes } from './largeJson.js';

export type BodyResult =
  | { ok: true; body: unknown }
  | { ok: false; tooLarge: true }
  | { ok: false; tooLarge: false; parseError: false; error: Error }
  | { ok: false; tooLarge: false; parseError: true; error: Error };

/**
 * Collects the body up to `limit` bytes into one buffer sized by Content-Length
 * (chunks, then one concatenation, when the length is not declared), and parses
 * it (a large body without ever holding its whole text as one string:
 * largeJson.ts). Neither the bytes nor a string of them outlive this call: a
 * 32 MiB diff otherwise stays in memory three times over while the tool runs.
 * A large body's buffer gives its memory back as soon as it is parsed, not at
 * the next full GC (shared/releasableBuffer.ts).
 * Past the limit the rest is drained and discarded so the client can read our
 * 413 instead of a reset socket.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    const sized = Number.isSafeInteger(declared) && declared >= 0;
    let tooLarge = sized && declared > limit;
    const sizedBuffer = sized && !tooLarge ? allocateReleasable(declared) : undefined;
    let buffer = sizedBuffer?.buffer;
    const release = () => {
      buffer = undefined;
      sizedBuffer?.release();
    };
    let chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      if (size + chunk.length > limit || (buffer && size + chunk.length > buffer.length)) {
        // Over the limit, or more bytes than Content-Length said (node refuses that first; belt and braces).
        tooLarge = true;
        release();
        chunks = [];
        return;
      }
      if (buffer) chunk.copy(buffer, size);
      else chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      if (tooLarge) return resolve({ ok: false, tooLarge: true });
      const bytes = buffer ? buffer.subarray(0, size) : Buffer.concat(chunks, size);
      chunks = [];
      try {
        resolve({ ok: true, body: parseJsonBytes(bytes) });
      } catch (err) {
        resolve({ ok: false, tooLarge: false, parseError: true, error: err instanceof Error ? err : new Error(String(err)) });
      } finally {
        release(); // every string of the result is a copy: the bytes can go
      }
    });
    req.on('error', (error) => {
      release();
      chunks = [];
      resolve({ ok: false, tooLarge: false, parseError: false, error });
    });
  });
}
