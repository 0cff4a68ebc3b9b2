/**
 * A path rewritten inside a large message's bytes, without parsing the message
 * and serializing it again (a whole file rides in openDiff and in
 * ide/diffAccepted). Where each key's value stands comes from the message's
 * outline (jsonOutline.ts), which exists only when the bytes say for certain
 * what JSON.parse will read there. When each key is there with a plain string,
 * the value is replaced where it stands; in any other case the caller parses
 * the message whole.
 */
import { stringAt, type Fields } from './jsonOutline.js';

export type InPlace = { bytes: Buffer } | { outside: string } | undefined;

/**
 * `bytes` with the string value of each of `keys` in `fields` (one object of
 * its outline) translated by `map`, when every key is there with a string
 * value; `{ outside }` when `map` refuses one (the path it refused); undefined
 * when the message must be parsed whole.
 */
export function rewriteInPlace(bytes: Buffer, fields: Fields | undefined, keys: readonly string[], map: (p: string) => string | undefined): InPlace {
  if (!fields) return undefined;
  const edits: Array<{ start: number; end: number; text: Buffer }> = [];
  for (const key of keys) {
    const span = fields.get(key);
    const original = stringAt(bytes, span);
    if (original === undefined) return undefined;
    const mapped = map(original);
    if (mapped === undefined) return { outside: original };
    edits.push({ start: span!.start, end: span!.end, text: Buffer.from(JSON.stringify(mapped)) });
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
