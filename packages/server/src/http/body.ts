/** Reads a request body as UTF-8 text, bounded. */
import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; text: string } | { ok: false; tooLarge: true } | { ok: false; tooLarge: false; error: Error };

/**
 * Collects the body up to `limit` bytes. Past the limit the rest is drained
 * and discarded so the client can read our 413 instead of a reset socket.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > limit;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) resolve({ ok: false, tooLarge: true });
      else resolve({ ok: true, text: Buffer.concat(chunks, size).toString('utf8') });
    });
    req.on('error', (error) => resolve({ ok: false, tooLarge: false, error }));
  });
}
