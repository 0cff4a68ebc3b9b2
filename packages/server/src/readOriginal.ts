/**
 * Reads the file a diff is about, for the editor to show beside the proposal.
 * Asynchronous and bounded, and only for regular files: a FIFO would block a
 * synchronous read (freezing every client), /dev/zero would grow the process
 * without end. Opened non-blocking and checked with fstat on the same
 * descriptor, so a file swapped for a FIFO after a stat cannot slip through.
 */
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import { allocateReleasable } from './releasableBuffer.js';

export class NotARegularFileError extends Error {
  override name = 'NotARegularFileError';
}

/** What a file that is not a regular one is, as a sentence's object ("a FIFO"). */
export function kindOf(stat: import('node:fs').Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The file's text, or undefined when it does not exist (a new file). */
export async function readOriginal(filePath: string, maxBytes: number): Promise<string | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(filePath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EISDIR') throw new NotARegularFileError(`${filePath} is a directory; only regular files can be diffed`);
    throw err;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new NotARegularFileError(`${filePath} is ${kindOf(stat)}; only regular files can be diffed`);
    const tooLarge = () => new NotARegularFileError(`${filePath} is over the ${maxBytes}-byte limit for diffs`);
    if (stat.size > maxBytes) throw tooLarge();
    // Sized by stat, grown if the file grows meanwhile, never past the limit;
    // its memory given back once decoded (a 32 MiB file's bytes would otherwise
    // stay beside the diff until a full GC).
    let { buffer, release } = allocateReleasable(Math.min(stat.size, maxBytes) + 1);
    try {
      let length = 0;
      for (;;) {
        if (length === buffer.length) {
          if (length > maxBytes) throw tooLarge();
          const grown = allocateReleasable(Math.min(buffer.length * 2, maxBytes + 1));
          buffer.copy(grown.buffer, 0, 0, length);
          release();
          ({ buffer, release } = grown);
        }
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      return buffer.toString('utf8', 0, length);
    } finally {
      release();
    }
  } finally {
    await handle.close();
  }
}
