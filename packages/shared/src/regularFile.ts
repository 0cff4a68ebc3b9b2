/**
 * A small file of ours read synchronously without trusting what is at its
 * path: opened without blocking (a FIFO or device put there never holds the
 * event loop), checked on its descriptor (a regular file, at most `maxBytes`),
 * then read. Lock files, discovery files and our records are read this way.
 */
import * as fs from 'node:fs';

export type RegularFileRead = { text: string; stat: fs.Stats } | { refused: string; stat?: fs.Stats };

export function readRegularFileSync(file: string, maxBytes: number): RegularFileRead {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return { refused: 'not a regular file', stat };
    if (stat.size > maxBytes) return { refused: `${stat.size} bytes, more than ${maxBytes}`, stat };
    return { text: fs.readFileSync(fd, 'utf8'), stat };
  } catch (err) {
    return { refused: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
