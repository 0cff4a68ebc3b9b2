/**
 * A context seed (serve's git status) still under way at start: a session's
 * first ide/contextUpdate waits for it, but never longer than
 * CONTEXT_SEED_WAIT_MS, so a slow or failed seed costs one late update at most.
 */
import { describeError, type Logger } from './logger.js';

/** How long a session's first ide/contextUpdate waits for `contextSeed` at most. */
export const CONTEXT_SEED_WAIT_MS = 1_000;

/** Settles when `seed` does (a failure said in the log) or after CONTEXT_SEED_WAIT_MS, whichever is first. */
export function boundedSeed(seed: Promise<unknown>, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CONTEXT_SEED_WAIT_MS);
    timer.unref();
  });
  const settled = seed.then(
    () => undefined,
    (err: unknown) => logger.warn('the context seed failed', { error: describeError(err) }),
  );
  return Promise.race([settled, waited]).then(() => clearTimeout(timer));
}
