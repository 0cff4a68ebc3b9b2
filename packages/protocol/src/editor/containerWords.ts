/**
 * What an end whose host gives its terminals REMOTE_CONTAINERS=1 (the
 * bridge's `ready.env`, in a container: containerHost.ts) says when it opens
 * the agent's terminal, so the user knows why gemini connects there and what
 * a terminal opened elsewhere needs. `editor`: the end's display name.
 */
import { CONTAINER_ENV, LOOPBACK_HOST } from '../constants.js';

export function containerTerminalWords(editor: string): string {
  const variable = CONTAINER_ENV.REMOTE_CONTAINERS;
  return `in a container: terminals opened from ${editor} carry ${variable}=1, so gemini there dials this ${editor} on ${LOOPBACK_HOST}; in a terminal opened elsewhere, run \`export ${variable}=1\` before gemini`;
}
