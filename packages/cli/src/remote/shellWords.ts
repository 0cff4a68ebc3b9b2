/**
 * Words for `$(ide-companion ...)`: a command substitution is split on white
 * space and globbed, with no quote removal. Words made of these characters
 * come through as they are; any other word (a path with a space) needs quotes,
 * which only `eval` removes, so then every word is quoted and the caller says
 * to use eval.
 */
const SAFE = /^[A-Za-z0-9_@%+=:,./\-[\]"]+$/;

export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function shellLine(words: readonly string[]): { text: string; needsEval: boolean } {
  const needsEval = words.some((w) => !SAFE.test(w));
  return { text: words.map((w) => (needsEval ? shellQuote(w) : w)).join(' '), needsEval };
}
