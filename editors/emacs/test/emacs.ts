/** The `emacs` the tests run (IDE_COMPANION_EMACS picks another, for a version matrix). */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipUnless, which } from '@ide-companion/testkit';

const chosen = process.env['IDE_COMPANION_EMACS'];
export const emacsPath = chosen || which('emacs');
/** The chosen Emacs's own emacsclient beside it (scripts/install-emacs-30.sh puts one there), else the one on PATH. */
export const emacsclientPath = (chosen && [path.join(path.dirname(chosen), 'emacsclient')].find((p) => fs.existsSync(p))) || which('emacsclient');
export const hasEmacs = emacsPath !== undefined;

/** Why Emacs cannot be run as the tests run it here (emacs -nw in tmux, reached with emacsclient), or false. */
export const skipEmacsInTmux =
  skipUnless(hasEmacs && emacsclientPath !== undefined, 'emacs and emacsclient', 'apt-get install -y emacs-nox') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

/** Runs `emacs --batch -Q ARGS` and returns its status and output. */
export function emacsBatch(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}) {
  const r = spawnSync(emacsPath!, ['--batch', '-Q', ...args], {
    encoding: 'utf8',
    cwd: options.cwd,
    env: options.env ?? process.env,
    timeout: options.timeoutMs ?? 120_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}
