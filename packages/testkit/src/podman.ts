/**
 * Podman for the remote-flow tests (docs/remote.md): the image
 * scripts/build-container-image.sh builds offline (Debian minbase, no Node:
 * the host's node and the pinned CLI are mounted read-only), and the flags
 * this machine needs. Containers run with --network=none: the companion's
 * socket, mounted in, is their only way out.
 */
import { spawnSync } from 'node:child_process';
import { which } from './external.js';

export const TEST_IMAGE = process.env['IDE_COMPANION_TEST_IMAGE'] ?? 'localhost/ide-companion-test:bookworm';

/** runc and cgroupfs: crun refuses this machine's hybrid cgroups (also in containers.conf, which `gemini --sandbox` needs). */
export const PODMAN_GLOBAL_FLAGS = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'] as const;
/** The default ulimits exceed this machine's hard limits. */
export const PODMAN_RUN_FLAGS = ['--rm', '--network=none', '--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=4096:4096'] as const;

/** Why the container tests cannot run here, or undefined when podman runs the test image. */
export function podmanProblem(): string | undefined {
  if (!which('podman')) return 'podman is not installed (apt-get install podman runc)';
  const exists = spawnSync('podman', [...PODMAN_GLOBAL_FLAGS, 'image', 'exists', TEST_IMAGE], { encoding: 'utf8', timeout: 30_000 });
  if (exists.status !== 0) return `the image ${TEST_IMAGE} is missing (bash scripts/build-container-image.sh)`;
  const run = spawnSync('podman', [...PODMAN_GLOBAL_FLAGS, 'run', ...PODMAN_RUN_FLAGS, TEST_IMAGE, 'true'], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) return `podman cannot run a container here: ${(run.stderr || run.error?.message || '').trim().split('\n').at(-1)}`;
  return undefined;
}

/** Removes containers a test left running (by name), never failing. */
export function removeContainer(name: string): void {
  spawnSync('podman', [...PODMAN_GLOBAL_FLAGS, 'rm', '-f', '-t', '0', name], { stdio: 'ignore', timeout: 30_000 });
}
