/**
 * Which host the CLI dials. Inside a container it is `host.docker.internal`
 * (the IDE runs on the host), unless the CLI came in over SSH or runs in a VS
 * Code dev container, where the companion is reachable on loopback.
 */
import * as fs from 'node:fs';
import { CONTAINER_ENV, CONTAINER_HOST, CONTAINER_MARKER_FILES, LOOPBACK_HOST } from '@ide-companion/protocol';

export interface HostMapping {
  host: string;
  inContainer: boolean;
  /** The marker file that says "container", if any. */
  containerMarker?: string;
  /** Why the host is what it is, in words. */
  reason: string;
}

export function companionHost(env: NodeJS.ProcessEnv = process.env, exists: (p: string) => boolean = fs.existsSync): HostMapping {
  const marker = CONTAINER_MARKER_FILES.find((f) => exists(f));
  if (!marker) return { host: LOOPBACK_HOST, inContainer: false, reason: 'not in a container: dialling loopback' };
  if (env[CONTAINER_ENV.SSH_CONNECTION]) {
    return { host: LOOPBACK_HOST, inContainer: true, containerMarker: marker, reason: `in a container (${marker}) but SSH_CONNECTION is set: dialling loopback` };
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
