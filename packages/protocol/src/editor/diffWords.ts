/**
 * What every end shows the user about a diff, in each situation: the words
 * once, here, sent with the action that needs them (an end only shows them).
 * `file` is the file's name as the user reads it; `agent` who proposed it
 * ("Claude Code").
 */
export const diffWords = {
  /** `reload` with the user's buffer modified: their changes are never dropped. */
  notReloaded: (file: string, agent: string) =>
    `${file} was written by ${agent} but was not reloaded: it has unsaved changes (reloading from disk would drop them)`,
} as const;
