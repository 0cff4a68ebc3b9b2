/**
 * What the Neovim plugin shows, in words made here (the Lua only shows them):
 * the diff window's hint bar and the kept and mention notices. `{file}` is put in by
 * the Lua (the file's name relative to Neovim's cwd), literally.
 */
import { UNHEARD_MENTION } from '@ide-companion/protocol';

/** The keys first: a bar too narrow is cut at its end, not where the keys are. */
const KEYS = ':w accepts, :q! rejects';
const SAVE = ' · :w FILE saves it';

export interface DiffHints {
  proposed: string;
  unsaved: string;
  /** Kept once the agent's session went away. */
  sessionGone: string;
}

/** The hint bar of a proposal window from `agent`. */
export function diffHints(agent: string): DiffHints {
  return {
    proposed: `${KEYS} · ${agent} proposes changes to {file}`,
    unsaved: `${KEYS} · {file} has unsaved changes (diff against disk; kept in its buffer)`,
    sessionGone: `kept: the ${agent} session went away${SAVE}`,
  };
}

export interface NeovimWords {
  /** The hint of a proposal kept when the host is gone (it cannot send these then). */
  keptNotRunning: string;
  keptStopped: string;
  /** A mention no connected agent took. */
  unheardMention: string;
}

export function neovimWords(): NeovimWords {
  return {
    keptNotRunning: `kept: the companion is not running${SAVE}`,
    keptStopped: `kept: the companion stopped${SAVE}`,
    unheardMention: UNHEARD_MENTION,
  };
}
