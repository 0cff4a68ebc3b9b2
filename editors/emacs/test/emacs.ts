/** The `emacs` the tests run (IDE_COMPANION_EMACS picks another, for a version matrix). */
import { spawnSync } from 'node:child_process';
import { which } from '@ide-companion/testkit';

export const emacsPath = process.env['IDE_COMPANION_EMACS'] || which('emacs');
export const emacsclientPath = which('emacsclient');
export const hasEmacs = emacsPath !== undefined;

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
