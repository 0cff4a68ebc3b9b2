/**
 * JSON.parse of a request body's bytes that never holds the whole body as one
 * JavaScript string. For a 32 MiB openDiff that string is ~70 MiB (two bytes a
 * unit once the text holds any non-Latin-1 character), alive beside the body's
 * bytes and the parsed `newContent`.
 *
 * Each large string value (a diff's content) is checked, unescaped in place in
 * the body buffer (an escape's UTF-8 is never longer than the escape) and
 * decoded once with `buffer.toString('utf8', start, end)`; the rest of the body,
 * with those strings replaced by placeholders, is small and goes through
 * JSON.parse itself, which checks the structure. Anything this path does not
 * handle exactly as JSON.parse would (an invalid string, an escaped lone
 * surrogate, a body JSON.parse refuses) falls back to JSON.parse of the whole
 * text before the buffer was touched, so results and error messages are
 * JSON.parse's own.
 *
 * The byte loops read the body through a small plain scratch buffer, a block at
 * a time: the body's buffer is backed by a resizable ArrayBuffer (body.ts), and
 * V8 reads those element by element several times slower.
 */
import { randomBytes } from 'node:crypto';

/** Bodies from this size take the large-string path (below, the whole text is at most 8 MiB). */
export const LARGE_BODY_BYTES = 4 << 20;
/** String values at least this long (raw bytes between the quotes) are decoded from the buffer. */
export const LARGE_STRING_BYTES = 1 << 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** What each one-character escape stands for, 0 where it is no escape. */
const SIMPLE_ESCAPES = new Uint8Array(256);
for (const [escape, byte] of [
  [0x22, 0x22],
  [0x5c, 0x5c],
  [0x2f, 0x2f],
  [0x62, 0x08],
  [0x66, 0x0c],
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
] as const) {
  SIMPLE_ESCAPES[escape] = byte;
}
/** Bytes the loops take from the body at a time. */
const BLOCK = 1 << 16;
/** Read past a block's end: an escape starting in the block is at most 12 bytes (a surrogate pair). */
const LOOKAHEAD = 12;

interface LargeString {
  /** First byte after the opening quote. */
  start: number;
  /** The closing quote. */
  end: number;
  escaped: boolean;
}

/**
 * The body parsed as JSON.parse(bytes.toString('utf8')) would, with the same
 * result or the same error. May overwrite the large strings' bytes in `bytes`:
 * the caller must not use the buffer afterwards.
 */
export function parseJsonBytes(bytes: Buffer, largeBody = LARGE_BODY_BYTES, largeString = LARGE_STRING_BYTES): unknown {
  if (bytes.length >= largeBody) {
    const parsed = parseWithLargeStrings(bytes, largeString);
    if (parsed !== undefined) return parsed.value;
  }
  return JSON.parse(bytes.toString('utf8'));
}

/**
 * The large-string path alone (exported for its tests). undefined: not handled
 * here, the buffer untouched (the caller parses the whole text, for
 * JSON.parse's result or error).
 */
export function parseWithLargeStrings(bytes: Buffer, largeString: number): { value: unknown } | undefined {
  const scratch = Buffer.allocUnsafeSlow(BLOCK + LOOKAHEAD);
  const large = findLargeStrings(bytes, largeString, scratch);
  if (large === undefined || large.length === 0) return undefined;
  let nonce: string;
  do nonce = randomBytes(16).toString('hex');
  while (bytes.includes(nonce, 0, 'latin1'));
  const placeholder = (i: number) => `ide-companion:large-string:${nonce}:${i}`;
  const parts: string[] = [];
  let from = 0;
  large.forEach((s, i) => {
    parts.push(bytes.toString('utf8', from, s.start), placeholder(i));
    from = s.end;
  });
  parts.push(bytes.toString('utf8', from));
  const small = parts.join('');
  try {
    JSON.parse(small); // the structure, checked before any byte of the buffer changes
  } catch {
    return undefined;
  }
  const decoded = new Map<string, string>();
  large.forEach((s, i) => {
    const end = s.escaped ? unescapeInPlace(bytes, s.start, s.end, scratch) : s.end;
    decoded.set(placeholder(i), bytes.toString('utf8', s.start, end));
  });
  const value: unknown = JSON.parse(small, (_key, v: unknown) => (typeof v === 'string' ? (decoded.get(v) ?? v) : v));
  return { value };
}

/**
 * The string tokens of at least `min` raw bytes that are values (not keys), in
 * order; undefined when a string is not closed or a large one is not handled
 * here (checkString). Outside strings a quote can only open one, so jumping
 * from a string's end to the next quote finds every string token.
 */
function findLargeStrings(bytes: Buffer, min: number, scratch: Buffer): LargeString[] | undefined {
  const found: LargeString[] = [];
  let pos = 0;
  for (;;) {
    const open = bytes.indexOf(QUOTE, pos);
    if (open < 0) return found;
    const close = checkString(bytes, open + 1, scratch);
    if (close < 0) return undefined;
    if (close - open - 1 >= min && !isKey(bytes, close + 1)) {
      if (lastString.invalid) return undefined;
      found.push({ start: open + 1, end: close, escaped: lastString.escaped });
    }
    pos = close + 1;
  }
}

/** Whether the next byte after whitespace at `pos` is a colon: the string before was a key. */
function isKey(bytes: Buffer, pos: number): boolean {
  while (pos < bytes.length) {
    const b = bytes[pos]!;
    if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b === 0x3a;
    pos++;
  }
  return false;
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

/** The code unit of the `\uXXXX` whose `u` is at `pos` (hex digits before `end`), or -1. */
function unicodeEscape(buf: Buffer, pos: number, end: number): number {
  if (pos + 4 >= end) return -1;
  let unit = 0;
  for (let i = 1; i <= 4; i++) {
    const h = hexValue(buf[pos + i]!);
    if (h < 0) return -1;
    unit = (unit << 4) | h;
  }
  return unit;
}

/** What checkString found in the string it last walked. */
const lastString = { escaped: false, invalid: false };

/**
 * Walks a string body from `start` to its closing quote, whose offset it
 * returns (-1 if none). Sets lastString: whether it has escapes, and invalid
 * unless it is a JSON string this path decodes exactly: no control
 * characters, only JSON's escapes, escaped surrogates only in pairs (UTF-8
 * cannot carry a lone one).
 */
function checkString(bytes: Buffer, start: number, scratch: Buffer): number {
  let escaped = false;
  let invalid = false;
  for (let base = start; base < bytes.length;) {
    // Positions base..base+BLOCK are walked; an escape begun there may read on into the lookahead.
    const available = bytes.copy(scratch, 0, base, Math.min(bytes.length, base + BLOCK + LOOKAHEAD));
    const limit = Math.min(available, BLOCK);
    let j = 0;
    for (; j < limit; j++) {
      const b = scratch[j]!;
      if (b === QUOTE) {
        lastString.escaped = escaped;
        lastString.invalid = invalid;
        return base + j;
      }
      if (b < 0x20) invalid = true;
      if (b !== BACKSLASH) continue;
      escaped = true;
      if (++j >= available) break;
      const e = scratch[j]!;
      if (e === 0x75) {
        const unit = unicodeEscape(scratch, j, available);
        if (unit < 0 || (unit >= 0xdc00 && unit <= 0xdfff)) {
          invalid = true;
          continue;
        }
        j += 4;
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const low = j + 2 < available && scratch[j + 1] === BACKSLASH && scratch[j + 2] === 0x75 ? unicodeEscape(scratch, j + 2, available) : -1;
          if (low < 0xdc00 || low > 0xdfff) invalid = true;
          else j += 6;
        }
      } else if (SIMPLE_ESCAPES[e] === 0) {
        invalid = true;
      }
    }
    base += j;
  }
  return -1;
}

/**
 * Unescapes a string checked by checkString into UTF-8 over its own bytes,
 * block by block through `scratch` (a block's output is never longer than its
 * input, so it is written in place there and copied back); returns the new end.
 */
function unescapeInPlace(bytes: Buffer, start: number, end: number, scratch: Buffer): number {
  let w = start;
  for (let base = start; base < end;) {
    const available = bytes.copy(scratch, 0, base, Math.min(end, base + BLOCK + LOOKAHEAD));
    const limit = Math.min(available, BLOCK);
    let j = 0;
    let o = 0;
    while (j < limit) {
      const b = scratch[j]!;
      if (b !== BACKSLASH) {
        scratch[o++] = b;
        j++;
        continue;
      }
      const e = scratch[j + 1]!;
      if (e !== 0x75) {
        scratch[o++] = SIMPLE_ESCAPES[e]!;
        j += 2;
        continue;
      }
      let cp = unicodeEscape(scratch, j + 1, available);
      j += 6;
      if (cp >= 0xd800 && cp <= 0xdbff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (unicodeEscape(scratch, j + 1, available) - 0xdc00);
        j += 6;
      }
      if (cp < 0x80) {
        scratch[o++] = cp;
      } else if (cp < 0x800) {
        scratch[o++] = 0xc0 | (cp >> 6);
        scratch[o++] = 0x80 | (cp & 0x3f);
      } else if (cp < 0x10000) {
        scratch[o++] = 0xe0 | (cp >> 12);
        scratch[o++] = 0x80 | ((cp >> 6) & 0x3f);
        scratch[o++] = 0x80 | (cp & 0x3f);
      } else {
        scratch[o++] = 0xf0 | (cp >> 18);
        scratch[o++] = 0x80 | ((cp >> 12) & 0x3f);
        scratch[o++] = 0x80 | ((cp >> 6) & 0x3f);
        scratch[o++] = 0x80 | (cp & 0x3f);
      }
    }
    scratch.copy(bytes, w, 0, o);
    w += o;
    base += j;
  }
  return w;
}
