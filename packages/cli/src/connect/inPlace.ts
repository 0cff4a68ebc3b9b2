/**
 * A path rewritten inside a large message's bytes, without parsing the message
 * and serializing it again (a whole file rides in openDiff and in
 * ide/diffAccepted). Sound because of how JSON is written: inside a string
 * every `"` is escaped, so the bytes `"KEY":` (a bare quote, the key, a bare
 * quote, a colon) occur only where an object has that key. When the key is
 * there exactly once, its value is a plain string and the message's method is
 * the one expected, the value is replaced where it stands; in any other case
 * the caller parses the message whole, as before.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Offsets of the JSON string value starting at `from` (its opening quote), through its closing quote; undefined if not a string. */
function stringAt(bytes: Buffer, from: number): { start: number; end: number } | undefined {
  let i = from;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  if (bytes[i] !== QUOTE) return undefined;
  for (let j = i + 1; j < bytes.length; j++) {
    if (bytes[j] === BACKSLASH) j++;
    else if (bytes[j] === QUOTE) return { start: i, end: j + 1 };
  }
  return undefined;
}

/** Where `"key":` stands, if it stands exactly once. */
function onlyKey(bytes: Buffer, key: string): number | undefined {
  const needle = Buffer.from(`${JSON.stringify(key)}:`);
  const at = bytes.indexOf(needle);
  if (at === -1 || bytes.indexOf(needle, at + 1) !== -1) return undefined;
  return at + needle.length;
}

/** The string value of the one `key` in `bytes` (with where it stands), or undefined when the key is not there once with a string. */
function onlyString(bytes: Buffer, key: string): { value: string; start: number; end: number } | undefined {
  const at = onlyKey(bytes, key);
  const range = at === undefined ? undefined : stringAt(bytes, at);
  if (!range) return undefined;
  const value: unknown = JSON.parse(bytes.toString('utf8', range.start, range.end));
  return typeof value === 'string' ? { value, ...range } : undefined;
}

/** The string value of the one `key` in `bytes` (a message's method, a tool's name), or undefined. */
export function stringValueOf(bytes: Buffer, key: string): string | undefined {
  return onlyString(bytes, key)?.value;
}

export type InPlace = { bytes: Buffer } | { outside: string } | undefined;

/**
 * `bytes` with the string value of each of `keys` translated by `map`, when
 * every key stands once with a string value; `{ outside }` when `map` refuses
 * one (the path it refused); undefined when the message must be parsed whole.
 */
export function rewriteInPlace(bytes: Buffer, keys: readonly string[], map: (p: string) => string | undefined): InPlace {
  const edits: Array<{ start: number; end: number; text: Buffer }> = [];
  for (const key of keys) {
    const found = onlyString(bytes, key);
    if (!found) return undefined;
    const { value: original } = found;
    const mapped = map(original);
    if (mapped === undefined) return { outside: original };
    edits.push({ start: found.start, end: found.end, text: Buffer.from(JSON.stringify(mapped)) });
  }
  edits.sort((a, b) => a.start - b.start);
  const parts: Buffer[] = [];
  let from = 0;
  for (const edit of edits) {
    parts.push(bytes.subarray(from, edit.start), edit.text);
    from = edit.end;
  }
  parts.push(bytes.subarray(from));
  return { bytes: Buffer.concat(parts) };
}
