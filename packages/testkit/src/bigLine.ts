/**
 * An oversized message for the size tests (issue 27): `head`, then filler up
 * to `bytes`, then a newline, written in 1 MiB chunks as the reader drains
 * them, so no test holds the whole line in memory.
 */
const CHUNK = Buffer.alloc(1024 * 1024, 'a');

/** Resolves when every byte is written, or rejects when the reader goes (EPIPE). */
export async function writeBigLine(out: NodeJS.WritableStream, bytes: number, head = ''): Promise<void> {
  const write = (chunk: Buffer | string) =>
    new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      out.once('error', onError);
      const ok = out.write(chunk, (err) => {
        out.off('error', onError);
        if (err) reject(err);
        else if (ok) resolve();
      });
      if (!ok) out.once('drain', () => resolve());
    });
  await write(head);
  let left = bytes - Buffer.byteLength(head);
  while (left > 0) {
    const n = Math.min(left, CHUNK.length);
    await write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n));
    left -= n;
  }
  await write('\n');
}
