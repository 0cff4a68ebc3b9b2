/**
 * External programs a test needs (nvim, tmux, the pinned Gemini CLI). Missing
 * locally: the test skips with a message saying what to install. Missing with
 * CI=true: the test fails, because CI installs everything (.ci/run).
 */
import { spawnSync } from 'node:child_process';

export const inCI = process.env['CI'] === 'true';

/** Absolute path of `command` on PATH, or undefined. */
export function which(command: string): string | undefined {
  const r = spawnSync('sh', ['-c', `command -v ${JSON.stringify(command)}`], { encoding: 'utf8' });
  const out = r.stdout.trim();
  return r.status === 0 && out ? out : undefined;
}

/**
 * For node:test's `skip` option: false when available; a reason to skip when
 * missing locally; throws (failing the file) when missing in CI.
 */
export function skipUnless(available: boolean, what: string, howToGet = 'run .ci/run or install it'): string | false {
  if (available) return false;
  const message = `${what} is not available (${howToGet})`;
  if (inCI) throw new Error(`${message}: required when CI=true`);
  return `${message}: skipped`;
}
