/**
 * What every end shows the user about a diff, in each situation: the words
 * once, here, sent with the action that needs them (an end only shows them).
 * `file` is the file's name as the user reads it; `agent` who proposed it
 * ("Claude Code"); `ide` the end's `hello.ide.name`, for its keys.
 */
import type { DiffCloseReason } from './actions.js';

/** How each end saves a kept buffer under a name of the user's. */
const SAVE_AS_KEYS: Readonly<Record<string, string>> = { neovim: ':w FILE', vim: ':w FILE', emacs: 'C-x C-w', kakoune: ':write FILE' };

/** How each end accepts and rejects a proposal. */
const DECIDE_KEYS: Readonly<Record<string, string>> = {
  neovim: ':w accepts, :q! rejects',
  vim: ':w accepts, :q! or :GeminiReject rejects',
  emacs: 'C-c C-c accepts, C-c C-k rejects',
  kakoune: ':ide-accept accepts, :ide-reject rejects',
};

/** Where each end keeps a proposal when nobody can take its answer. */
const KEPT_IN: Readonly<Record<string, string>> = { neovim: 'its tab', vim: 'its tab', emacs: 'its buffer' };

/** " (:w FILE saves it)", or nothing for an end whose keys are not known here. */
function savesIt(ide: string): string {
  const keys = SAVE_AS_KEYS[ide];
  return keys ? ` (${keys} saves it)` : '';
}

export const diffWords = {
  /**
   * `showDiff`'s words: the proposal, or (the user's buffer modified) that the diff is against the disk. `remote`: the
   * file the agent writes is on another machine (`HOST:PATH`, an SSH remote's checkout), and the diff is against it.
   */
  shown: (file: string, agent: string, ide: string, remote?: string) => ({
    proposed: `${agent} proposes changes to ${remote ?? file}${DECIDE_KEYS[ide] ? `: ${DECIDE_KEYS[ide]}` : ''}`,
    unsaved: remote
      ? `${file} has unsaved changes here: the diff is against ${remote}, the file ${agent} writes; your changes stay in the buffer`
      : `${file} has unsaved changes: the diff is against the file on disk; your changes stay in the buffer`,
  }),
  /** `reload` with the user's buffer modified: their changes are never dropped. */
  notReloaded: (file: string, agent: string) =>
    `${file} was written by ${agent} but was not reloaded: it has unsaved changes (reloading from disk would drop them)`,
  /**
   * `closeDiff`'s message (`sessionClosed`) for a text the user accepted that a companion stopped (killed) before the
   * agent wrote it: the next companion shows it, kept, beside the user's windows.
   */
  keptAfterStop: (file: string, agent: string, ide: string) =>
    `the companion stopped before ${agent} wrote ${file}; the text you accepted is kept in its buffer${savesIt(ide)}, shown beside your windows without taking yours`,
  /** `closeDiff`'s message, by reason; undefined: nothing to say (the companion stops). `kept`: shown only to be kept, without taking the user's window. */
  closed(reason: DiffCloseReason, file: string, agent: string, ide: string, kept = false): string | undefined {
    switch (reason) {
      case 'sessionClosed':
        return `the ${agent} session that proposed ${file} went away; the proposal is kept in its buffer${savesIt(ide)}${kept ? ', shown beside your windows without taking yours' : ''}`;
      case 'closedByCli':
        return `${agent} closed the diff for ${file}`;
      case 'replaced':
        return `a newer proposal for ${file} replaced the diff`;
      case 'companionStopped':
      case 'accepted':
        return undefined;
    }
  },
} as const;

/**
 * The words an end needs when its host is gone (it cannot send them then):
 * given in `ready` (Neovim: `on_started`), kept by the end, which puts the
 * file's name for `{file}` (a literal replace, never a format).
 */
export interface HostGoneWords {
  /** The accept could not be sent: the proposal stays where it is. */
  acceptUnsent: string;
}

export function hostGoneWords(ide: string): HostGoneWords {
  return {
    acceptUnsent: `the companion is not running, so the accept reached no one; your proposal for {file} is kept in its buffer${savesIt(ide)}`,
  };
}

/** How each end's user starts the companion again once its host gave up (hostRestarts.ts). */
const START_AGAIN: Readonly<Record<string, string>> = {
  neovim: ':GeminiStart tries again, :checkhealth ide_companion tells why',
  vim: ':GeminiStart tries again, :GeminiHealth tells why',
  emacs: 'M-x ide-companion-start tries again',
};

/**
 * What a host started again after its end's host died says (server/hostRestarts.ts): `how` the last one ended
 * (hostEnded: "exit code 137"), the files whose proposals the end kept then, the deaths counted.
 */
export const hostRestartWords = {
  restarted: (ide: string, how: string | undefined, kept: readonly string[]) =>
    `the companion host stopped${how ? ` (${how})` : ''} and was restarted${keptAtDeath(ide, kept)}`,
  /** Said by the host that gives up (its editor's host died `deaths` times within 3 minutes) and exits instead of serving. */
  notRestarted: (ide: string, how: string | undefined, kept: readonly string[], deaths: number) =>
    `the companion host stopped ${deaths} times in 3 minutes${how ? ` (${how})` : ''}; it is not restarted${keptAtDeath(ide, kept)}${START_AGAIN[ide] ? `. ${START_AGAIN[ide]}` : ''}`,
};

function keptAtDeath(ide: string, kept: readonly string[]): string {
  return kept.length === 0 ? '' : `; your proposal for ${kept.join(', ')} is kept in ${KEPT_IN[ide] ?? 'its buffer'}${savesIt(ide)}`;
}
