/**
 * Text <-> Neovim buffer lines, byte for byte.
 *
 * A buffer holds lines without separators; whether the file ends with a line
 * break lives in 'endofline' / 'fixendofline', the break itself in
 * 'fileformat'. `bufferFromText` chooses those so that `textFromBuffer` of an
 * unedited buffer gives back exactly the text it started from, and an edited
 * buffer gives what `:w` would have written.
 */
import * as z from 'zod/mini';

export type FileFormat = 'unix' | 'dos' | 'mac';

/** What the Lua side needs to fill a buffer. */
export interface BufferContent {
  lines: string[];
  fileformat: FileFormat;
  /** The text ends with a line break ('endofline' and 'fixendofline'). */
  eol: boolean;
}

/** A buffer as the Lua side reads it back (lua/ide_companion/diff.lua `state`). */
export const BufferStateSchema = z.object({
  lines: z.array(z.string()).check(z.minLength(1)),
  fileformat: z.enum(['unix', 'dos', 'mac']),
  eol: z.boolean(),
  fixeol: z.boolean(),
  binary: z.boolean(),
  /** Vim's "--No lines in buffer--" state, which `:w` writes as an empty file. */
  empty: z.boolean(),
});
export type BufferState = z.infer<typeof BufferStateSchema>;

const SEPARATOR: Record<FileFormat, string> = { unix: '\n', dos: '\r\n', mac: '\r' };

/** CRLF only when every line break is one; anything mixed stays 'unix' and keeps its lone CRs in the lines. */
function detectFileFormat(text: string): FileFormat {
  const lf = text.split('\n').length - 1;
  if (lf === 0) return 'unix';
  const crlf = text.split('\r\n').length - 1;
  return crlf === lf ? 'dos' : 'unix';
}

export function bufferFromText(text: string): BufferContent {
  const fileformat = detectFileFormat(text);
  const lines = text.split(SEPARATOR[fileformat]);
  // split() leaves one empty string after a final separator: that is 'endofline'.
  const eol = lines.length > 1 && lines[lines.length - 1] === '';
  if (eol) lines.pop();
  return { lines, fileformat, eol };
}

export function textFromBuffer(state: BufferState): string {
  if (state.empty) return '';
  const separator = SEPARATOR[state.fileformat];
  // As Vim writes: a final line break with 'eol', or with 'fixeol' unless 'binary'.
  const finalBreak = state.eol || (state.fixeol && !state.binary);
  return state.lines.join(separator) + (finalBreak ? separator : '');
}
