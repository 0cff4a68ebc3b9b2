/**
 * Text from a proposal (its path, its content) made safe to print: every
 * control character is shown as a visible symbol instead of reaching the
 * terminal. A proposal holding `\r` + `ESC[2K` would otherwise print one
 * harmless line over the command it really contains.
 */

// C0 controls but tab and newline, DEL, C1 controls (0x9b is a one-byte CSI to
// some terminals), bidi embeddings/overrides/isolates (reorder what is shown),
// and line/paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

function symbol(ch: string): string {
  const code = ch.codePointAt(0)!;
  if (code < 0x20) return String.fromCodePoint(0x2400 + code); // ␀..␟: ESC is ␛, CR is ␍
  if (code === 0x7f) return '\u2421'; // ␡
  return `\\u{${code.toString(16)}}`;
}

/** `text` with every control character but tab and newline replaced by a visible symbol. */
export function visible(text: string): string {
  return text.replace(UNSAFE, symbol);
}

/** A single-line form (a path, a status): newlines and tabs are shown too. */
export function visibleLine(text: string): string {
  return visible(text).replace(/[\n\t]/g, (ch) => (ch === '\n' ? '\u240a' : '\u2409'));
}
