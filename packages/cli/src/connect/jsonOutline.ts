/**
 * Where the values of a large message's few keys stand, read from its bytes
 * without parsing it: the message, its `params` and its `params.arguments`.
 * The relay decides on what the companion will parse (JSON.parse: escapes
 * decoded, the last duplicate key wins), so the outline is given only when
 * that reading is certain: a key written with an escape anywhere, a key twice
 * in an outlined object, or anything that is not one well-formed object gives
 * undefined, and the caller parses the message whole. String values are
 * skipped with indexOf, so a file inside costs a scan for its quotes.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** A value's bytes: [start, end). */
export interface Span {
  start: number;
  end: number;
}
export type Fields = Map<string, Span>;

/** The fields of the outlined objects; a path is the keys from the root joined by '.', '' for the root. */
export type Outline = Map<string, Fields>;

/** The object paths outlined: the message, its params, a tool call's arguments. */
const OUTLINED = new Set(['', 'params', 'params.arguments']);

class NotCertain extends Error {}
const notCertain = new NotCertain();

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** The outline of `bytes`, or undefined when it cannot be read for certain (see above). */
export function outline(bytes: Buffer): Outline | undefined {
  const out: Outline = new Map();
  let i = 0;
  const n = bytes.length;
  const space = () => {
    while (i < n && isSpace(bytes[i])) i++;
  };

  /** Past the string whose opening quote is at i (a quote after an odd run of backslashes is inside it). */
  const string = (): void => {
    let from = i + 1;
    for (;;) {
      const q = bytes.indexOf(QUOTE, from);
      if (q === -1) throw notCertain;
      let k = q - 1;
      while (bytes[k] === BACKSLASH) k--;
      if ((q - 1 - k) % 2 === 0) {
        i = q + 1;
        return;
      }
      from = q + 1;
    }
  };

  /** Past a value nobody reads: strings skipped, brackets counted (no recursion, however deep). */
  const skip = () => {
    const first = bytes[i];
    if (first === QUOTE) return string();
    if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
      while (i < n && !isSpace(bytes[i]) && bytes[i] !== COMMA && bytes[i] !== CLOSE_OBJECT && bytes[i] !== CLOSE_ARRAY) i++;
      return;
    }
    let depth = 0;
    // Inside, keys are strings too: one with an escape makes nothing uncertain here, as nobody reads it.
    while (i < n) {
      const b = bytes[i]!;
      if (b === QUOTE) {
        string();
        continue;
      }
      if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) depth--;
      i++;
      if (depth === 0) return;
    }
    throw notCertain;
  };

  const object = (path: string) => {
    const fields: Fields = new Map();
    out.set(path, fields);
    i++; // {
    space();
    if (bytes[i] === CLOSE_OBJECT) {
      i++;
      return;
    }
    for (;;) {
      space();
      if (bytes[i] !== QUOTE) throw notCertain;
      const keyStart = i + 1;
      string();
      // An escaped key (`"file\u0050ath"`): only JSON.parse says which key it is.
      if (bytes.subarray(keyStart, i - 1).includes(BACKSLASH)) throw notCertain;
      const key = bytes.toString('utf8', keyStart, i - 1);
      space();
      if (bytes[i] !== COLON) throw notCertain;
      i++;
      space();
      if (fields.has(key)) throw notCertain; // the last one wins in JSON.parse: parse it whole
      const start = i;
      const child = path === '' ? key : `${path}.${key}`;
      if (bytes[i] === OPEN_OBJECT && OUTLINED.has(child)) object(child);
      else skip();
      if (i === start) throw notCertain;
      fields.set(key, { start, end: i });
      space();
      if (bytes[i] === COMMA) {
        i++;
        continue;
      }
      if (bytes[i] === CLOSE_OBJECT) {
        i++;
        return;
      }
      throw notCertain;
    }
  };

  try {
    space();
    if (bytes[i] !== OPEN_OBJECT) return undefined;
    object('');
    space();
    return i === n ? out : undefined;
  } catch (err) {
    if (err === notCertain) return undefined;
    throw err;
  }
}

/** The value at `span` when it is a JSON string, else undefined. */
export function stringAt(bytes: Buffer, span: Span | undefined): string | undefined {
  if (!span || bytes[span.start] !== QUOTE) return undefined;
  const value: unknown = JSON.parse(bytes.toString('utf8', span.start, span.end));
  return typeof value === 'string' ? value : undefined;
}
