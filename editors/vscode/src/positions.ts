/**
 * VS Code counts a position's character in UTF-16 code units; the protocol
 * counts characters (code points), 1-based. Pure functions, no vscode import.
 */

const SURROGATE = /[\uD800-\uDFFF]/;

/** 1-based code-point column of UTF-16 offset `utf16Character` in `lineText`. */
export function codePointColumn(lineText: string, utf16Character: number): number {
  const before = lineText.slice(0, utf16Character);
  // The common case (no astral characters) costs one regex test, no iteration.
  if (!SURROGATE.test(before)) return before.length + 1;
  let count = 0;
  for (const _ of before) count++;
  return count + 1;
}

/** The UTF-16 offset in `lineText` of 1-based code-point column `column` (clamped to the line). */
export function utf16Offset(lineText: string, column: number): number {
  if (column <= 1) return 0;
  if (!SURROGATE.test(lineText)) return Math.min(column - 1, lineText.length);
  let offset = 0;
  let seen = 0;
  for (const ch of lineText) {
    if (seen === column - 1) break;
    offset += ch.length;
    seen++;
  }
  return offset;
}
