/**
 * Reads the file a diff is about, for the editor to show beside the proposal:
 * by descriptor, bounded, regular files only (shared/pinnedFiles.ts, the one
 * implementation). A FIFO would block a synchronous read (freezing every
 * client), /dev/zero would grow the process without end, and a file or folder
 * swapped for a link after the check would be read through it.
 */
import { readPinned } from '@ide-companion/shared/pinnedFiles';

export { NotARegularFileError, PinnedFileError, OutsideRootsError, kindOf } from '@ide-companion/shared/pinnedFiles';

/**
 * The file's text, or undefined when it does not exist (a new file). With `roots`, a file whose real path is outside
 * them is refused (OutsideRootsError), and the folder chain is pinned from the root holding it.
 */
export function readOriginal(filePath: string, maxBytes: number, roots?: readonly string[]): Promise<string | undefined> {
  return readPinned(filePath, maxBytes, { roots, use: 'diff' });
}
