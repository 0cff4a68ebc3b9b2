/**
 * What an end says as CLI sessions come and go (the `sessions` line's `said`):
 * "Claude Code connected", "Gemini CLI disconnected", once per agent whose
 * presence changed. The words once, here; the end only shows them.
 */
export function sessionChangeWords(before: readonly string[], after: readonly string[]): string[] {
  const now = new Set(after);
  const was = new Set(before);
  return [...[...now].filter((a) => !was.has(a)).map((a) => `${a} connected`), ...[...was].filter((a) => !now.has(a)).map((a) => `${a} disconnected`)];
}
