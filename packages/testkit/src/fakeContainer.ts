/**
 * A container or toolbox as Gemini CLI tells one (protocol/containerHost.ts),
 * for an editor under test and everything it starts: a private mount
 * namespace whose /run holds the marker file the CLI looks for, seen by that
 * process tree alone (unshare -m, as root). Without REMOTE_CONTAINERS,
 * SSH_CONNECTION or VSCODE_REMOTE_CONTAINERS_SESSION (CONTAINER_UNSET) the CLI
 * there dials host.docker.internal, as a user's does.
 */
import { spawnSync } from 'node:child_process';
import { skipUnless, which } from './external.js';
import { geminiEnv } from './geminiHome.js';

export const FAKE_CONTAINER_MARKER = '/run/.containerenv';

/** The variables that send the CLI to loopback in a container: unset them for the editor under test. */
export const CONTAINER_UNSET = ['REMOTE_CONTAINERS', 'SSH_CONNECTION', 'VSCODE_REMOTE_CONTAINERS_SESSION'] as const;

/** geminiEnv as a user's shell in a container has it: without REMOTE_CONTAINERS (the editor's terminals must bring it). */
export function geminiEnvInContainer(options: { home: string; tmpdir: string }): Record<string, string> {
  const { REMOTE_CONTAINERS: _set, ...env } = geminiEnv(options);
  return env;
}

/** argv that runs the sh command line `sh` in the fake container. */
export function inFakeContainer(sh: string): string[] {
  return ['unshare', '-m', '--propagation', 'private', 'sh', '-c', `mount -t tmpfs tmpfs /run && : > ${FAKE_CONTAINER_MARKER} && ${sh}`];
}

/** `text` as one sh word. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * argv that runs the sh command line `sh` outside any container as Gemini CLI
 * tells one, on a machine that may itself be one (a CI runner, this sandbox):
 * a private mount namespace whose root is an overlay of / with /.dockerenv
 * whited out and a fresh /run (no /run/.containerenv). /proc, /dev, /sys, /tmp
 * and `keep` are the real folders there (what is written in them is seen
 * outside); elsewhere writes land in the overlay and go with it. `sh` starts in /.
 */
export function outsideAnyContainer(sh: string, keep: readonly string[] = []): string[] {
  const binds = ['/proc', '/dev', '/sys', '/tmp', ...keep].map(shQuote).join(' ');
  const script =
    'mount -t tmpfs tmpfs /run && mkdir /run/u /run/w /run/m && mknod /run/u/.dockerenv c 0 0 && ' +
    'mount -t overlay overlay -o lowerdir=/,upperdir=/run/u,workdir=/run/w /run/m && mount -t tmpfs tmpfs /run/m/run && ' +
    `for d in ${binds}; do mount --rbind "$d" "/run/m$d" || exit 97; done && exec chroot /run/m sh -c ${shQuote(sh)}`;
  return ['unshare', '-m', '--propagation', 'private', 'sh', '-c', script];
}

let outside: boolean | undefined;
/** Why `outsideAnyContainer` cannot run here, or false. */
export function skipOutsideContainer(): string | false {
  if (outside === undefined) {
    const probe = outsideAnyContainer(`test ! -e /.dockerenv && test ! -e ${FAKE_CONTAINER_MARKER}`);
    outside = which('unshare') !== undefined && which('chroot') !== undefined && spawnSync(probe[0]!, probe.slice(1)).status === 0;
  }
  return skipUnless(outside, 'a private mount namespace with an overlay of / (unshare -m, mount -t overlay, chroot: as root)', 'run the tests as root');
}

let can: boolean | undefined;
/** Why a fake container cannot be made here, or false. */
export function skipFakeContainer(): string | false {
  if (can === undefined) {
    const probe = inFakeContainer(`test -e ${FAKE_CONTAINER_MARKER}`);
    can = which('unshare') !== undefined && spawnSync(probe[0]!, probe.slice(1)).status === 0;
  }
  return skipUnless(can, 'a private mount namespace (unshare -m, as root)', 'run the tests as root');
}
