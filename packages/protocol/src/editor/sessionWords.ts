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

/**
 * How an end names its sessions: `summary` in a line (Emacs's status: "for
 * Gemini CLI, Claude Code; 1 session connected (GitHub Copilot CLI)"),
 * `label` in a word (its mode line: "Copilot[1]", "Gemini+Claude[2]", "IDE"
 * with none). `served`: the agents served; `sessions`, `short`: each
 * connected session's agent, by its name and its short name.
 */
export function sessionsWords(served: readonly string[], sessions: readonly string[], short: readonly string[]): { summary: string; label: string } {
  const n = sessions.length;
  return {
    summary: `for ${served.join(', ')}; ${n} session${n === 1 ? '' : 's'} connected${n > 0 ? ` (${[...new Set(sessions)].join(', ')})` : ''}`,
    label: n > 0 ? `${[...new Set(short)].join('+')}[${n}]` : 'IDE',
  };
}

/**
 * What an end says when "Send to agent" reached nobody: the agents with a
 * mention channel (the faces with `mention`: Claude Code's, which opencode
 * borrows, Copilot CLI's and Amp's; Gemini CLI, Qwen Code, Codex CLI and
 * Factory Droid have none).
 */
export const UNHEARD_MENTION = 'no connected agent takes what you send (Claude Code, opencode, GitHub Copilot CLI and Amp do)';
