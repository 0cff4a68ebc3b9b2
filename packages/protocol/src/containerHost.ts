/**
 * Which host the CLI dials. Inside a container it is `host.docker.internal`
 * (the IDE runs on the host), unless the CLI came in over SSH or runs in a VS
 * Code dev container, where the companion is reachable on loopback. Pure: the
 * caller passes the environment and how to test for a file.
 */
import { CONTAINER_ENV, CONTAINER_HOST, CONTAINER_MARKER_FILES, LOOPBACK_HOST } from './constants.js';

export interface HostMapping {
  host: string;
  inContainer: boolean;
  /** The marker file that says "container", if any. */
  containerMarker?: string;
  /** Why the host is what it is, in words. */
  reason: string;
}

export function companionHost(env: Readonly<Record<string, string | undefined>>, exists: (p: string) => boolean): HostMapping {
  const marker = CONTAINER_MARKER_FILES.find((f) => exists(f));
  if (!marker) return { host: LOOPBACK_HOST, inContainer: false, reason: 'not in a container: dialling loopback' };
  if (env[CONTAINER_ENV.SSH_CONNECTION]) {
    return {
      host: LOOPBACK_HOST,
      inContainer: true,
      containerMarker: marker,
      reason: `in a container (${marker}) but SSH_CONNECTION is set: dialling loopback`,
    };
  }
  const dev = [CONTAINER_ENV.VSCODE_REMOTE_CONTAINERS_SESSION, CONTAINER_ENV.REMOTE_CONTAINERS].find((v) => env[v]);
  if (dev) {
    return { host: LOOPBACK_HOST, inContainer: true, containerMarker: marker, reason: `in a container (${marker}) but ${dev} is set: dialling loopback` };
  }
  return {
    host: CONTAINER_HOST,
    inContainer: true,
    containerMarker: marker,
    reason: `in a container (${marker}) without SSH_CONNECTION or REMOTE_CONTAINERS: dialling ${CONTAINER_HOST}, as the real CLI does`,
  };
}

/**
 * What to do when the CLI would dial `host.docker.internal`, in one paragraph;
 * undefined when it dials loopback. `serve`, `status`, `doctor` and the
 * editors' health checks (from the hosts' `ready`) print these same words.
 */
export function containerHint(env: Readonly<Record<string, string | undefined>>, fsExists: (p: string) => boolean): string | undefined {
  return containerHintFor(companionHost(env, fsExists));
}

export function containerHintFor(host: HostMapping): string | undefined {
  if (host.host !== CONTAINER_HOST) return undefined;
  return (
    `Gemini CLI runs in a container here (${host.containerMarker} exists), so it dials ${CONTAINER_HOST} instead of ${LOOPBACK_HOST} ` +
    `and cannot reach a companion in this container. Run \`export ${CONTAINER_ENV.REMOTE_CONTAINERS}=1\` in the shell that starts gemini ` +
    `(${CONTAINER_ENV.SSH_CONNECTION} or ${CONTAINER_ENV.VSCODE_REMOTE_CONTAINERS_SESSION} work too): gemini then dials ${LOOPBACK_HOST}. ` +
    `Companions listen on loopback only, so an editor on the host is out of reach from here: run the editor, or \`ide-companion serve\`, in this container.`
  );
}
