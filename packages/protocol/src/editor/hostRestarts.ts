/**
 * A script end's host that dies unasked is started again by the end, which
 * tells the new host how the last one ended; the new host applies the policy
 * (server/hostRestarts.ts: it counts the deaths, backs off, gives up) and says
 * what happened (diffWords.ts hostRestartWords). The end only starts it again,
 * unless the host exited with HOST_GAVE_UP_EXIT_CODE.
 */

/** Set by the end for the host it starts after its host died unasked: that host's exit code (`137`, `-1`), or the signal that ended it (`SIGKILL`, `signal 9`); empty when the end cannot tell. */
export const HOST_DIED_ENV = 'IDE_COMPANION_HOST_DIED';
/** With HOST_DIED_ENV: the files whose proposals (or accepted texts) the end kept when its host died, a JSON array of strings. */
export const HOST_KEPT_ENV = 'IDE_COMPANION_HOST_KEPT';
/** The exit code of a host that gave up (its editor's host died 5 times in 3 minutes): the end starts no other. */
export const HOST_GAVE_UP_EXIT_CODE = 75;

/**
 * How the last host ended, as the user reads it, from HOST_DIED_ENV's value: "exit code 137", "killed by SIGKILL";
 * undefined when it says nothing (the end could not tell) or nothing valid: the value only ever reaches these words.
 */
export function hostEnded(value: string | undefined, signalName: (n: number) => string | undefined = () => undefined): string | undefined {
  const v = value?.trim() ?? '';
  if (/^-?\d{1,9}$/.test(v)) return `exit code ${Number(v)}`;
  if (/^SIG[A-Z0-9]{1,12}$/.test(v)) return `killed by ${v}`;
  const n = /^signal (\d{1,3})$/.exec(v);
  if (n) return `killed by ${signalName(Number(n[1])) ?? `signal ${n[1]}`}`;
  return undefined;
}
