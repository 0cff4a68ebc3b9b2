/**
 * What a CLI elsewhere (a container, `gemini --sandbox`, an SSH session)
 * needs to reach the companion of this folder, shared by `container`,
 * `sandbox` and `ssh`: the stable per-user address (one folder, one socket per
 * workspace folder, bound by whichever companion serves it now:
 * workspaceSockets.ts), the workspace root that holds this folder, and the
 * discovery file that CLI reads over there (no port: the relay over stdio with
 * --reconnect, paths mapped to where the project is there). Set up once, it
 * outlives editor restarts; with no editor running yet, this folder is the
 * workspace root (the folder the editor will open).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discoverCompanion } from '@ide-companion/client/discovery';
import { discoveryFileName, type IdeInfo, type RelayDiscoveryFile } from '@ide-companion/protocol';
import { writeFileAtomicPrivate } from '@ide-companion/server/discoveryFile';
import { ensureStableSocketDir, stableSocketDir, workspaceSocketPath } from '@ide-companion/server/workspaceSockets';
import { RELAY_BUNDLE_PATH } from '../connect/build/bundle.js';

/** Where the pieces go on the other side (a container's paths; ssh puts them in a private folder instead). */
export const THERE = {
  relay: '/opt/ide-companion/connect.mjs',
  socketDir: '/run/ide-companion',
  /** The relay's copy in the stable folder, as a container sees it (one mount for socket and relay). */
  stableRelay: '/run/ide-companion/connect.mjs',
  /** Where gemini looks for discovery files: a container mounts the stable folder's `gemini-ide` there. */
  discoveryDir: '/tmp/gemini/ide',
  /** Where gemini looks (os.tmpdir()/gemini/ide), under a name the CLI reads (PID 1: the container's init). */
  discoveryFile: `/tmp/gemini/ide/${discoveryFileName(1, 1)}`,
} as const;

export class RemotePlanError extends Error {
  override name = 'RemotePlanError';
}

export interface RemotePlan {
  /** The workspace's socket at the stable address, and that address (the folder a container mounts) on this machine. */
  socketPath: string;
  socketDir: string;
  /** Whether a companion serves the folder now (else the plan is for the editor to come). */
  served: boolean;
  /** The workspace root holding the folder the command ran in, and that folder relative to it. */
  hostRoot: string;
  relative: string;
  ideInfo: IdeInfo;
  /** The relay bundle on this machine. */
  relay: string;
}

/**
 * The plan for `cwd`: the root of the companion that serves it when one does
 * (and its editor's name for /ide status); else `cwd` itself, for the editor
 * to come (a companion for another folder is no reason to stop: this one's
 * may start later). RemotePlanError when the address cannot be made.
 */
export async function planRemote(cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<RemotePlan> {
  const found = await discoverCompanion({ cwd, wellKnownPorts: false });
  const chosen = found.chosen;
  const served = !!chosen?.config && !!chosen.workspace?.ok;
  const hostRoot = served
    ? chosen!
        .workspace!.roots.filter((root) => found.realCwd === root || found.realCwd.startsWith(root.endsWith(path.sep) ? root : root + path.sep))
        .sort((a, b) => b.length - a.length)[0]!
    : found.realCwd;
  let socketDir: string;
  try {
    socketDir = ensureStableSocketDir(stableSocketDir({ env }));
  } catch (err) {
    throw new RemotePlanError(`the stable address cannot be made: ${(err as Error).message}`);
  }
  return {
    socketPath: workspaceSocketPath(socketDir, hostRoot),
    socketDir,
    served,
    hostRoot,
    relative: path.relative(hostRoot, found.realCwd),
    ideInfo: (served && chosen!.ideInfo) || { name: 'ide-companion', displayName: 'IDE Companion' },
    relay: RELAY_BUNDLE_PATH,
  };
}

export interface ThereOptions {
  /** Where the project is for that CLI. */
  cliRoot: string;
  /** The relay's path there, and the socket's. */
  relay: string;
  socketPath: string;
  /** The command that runs the relay there (default `node`). */
  node?: string;
  /** That CLI's files are its own, not the editor's (an SSH remote): the relay sends each diff's base from there. */
  remoteFiles?: boolean;
}

/** Where things are in a container or sandbox: the stable folder at /run/ide-companion, the workspace's socket in it. */
export function thereFor(plan: RemotePlan, cliRoot: string, relay: string = THERE.relay): ThereOptions {
  return { cliRoot, relay, socketPath: path.posix.join(THERE.socketDir, path.basename(plan.socketPath)) };
}

/** The relay's argv there: the socket, and the map from this machine's root to that CLI's. */
export function relayArgs(plan: RemotePlan, there: ThereOptions): string[] {
  const args = [there.relay, '--socket', there.socketPath, '--reconnect'];
  if (plan.hostRoot !== there.cliRoot) args.push('--map', `${plan.hostRoot}=${there.cliRoot}`);
  if (there.remoteFiles) args.push('--remote-files');
  return args;
}

/** The discovery file that CLI reads: no port, the relay over stdio, the editor's name for /ide status. */
export function discoveryFileThere(plan: RemotePlan, there: ThereOptions): RelayDiscoveryFile {
  return {
    workspacePath: there.cliRoot,
    ideInfo: plan.ideInfo,
    stdio: { command: there.node ?? 'node', args: relayArgs(plan, there) },
  };
}

/**
 * Writes that file privately (0600, atomic) into the stable address's folder,
 * one per workspace and place the project is mounted at, and returns its path
 * here: it stays, as the address does, for a container made once.
 */
export function writeDiscoveryFileThere(plan: RemotePlan, there: ThereOptions): string {
  const name = `remote-${createHash('sha256').update(`${plan.hostRoot}\0${there.cliRoot}`).digest('hex').slice(0, 12)}.json`;
  const file = path.join(plan.socketDir, name);
  writeFileAtomicPrivate(file, JSON.stringify(discoveryFileThere(plan, there)));
  return file;
}

/** The stable folder's folder of discovery files, which a container mounts where gemini looks. */
export const CONTAINER_DISCOVERY_DIR = 'gemini-ide';
export const STABLE_RELAY_NAME = 'connect.mjs';

/**
 * What a container mounts, all in the stable folder, so that a compose file
 * or a devcontainer.json can name it without running anything: the relay's
 * copy (`connect.mjs`, refreshed at each run: an upgrade reaches containers
 * made before it) and the discovery file in `gemini-ide/`, under a name of
 * its own per project and place (PID 1: the container's init, alive there;
 * gemini picks the file whose folder holds its own). Returns that folder.
 */
export function writeContainerFiles(plan: RemotePlan, there: ThereOptions): string {
  const relay = path.join(plan.socketDir, STABLE_RELAY_NAME);
  const temporary = `${relay}.${process.pid}.tmp`;
  fs.copyFileSync(plan.relay, temporary);
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, relay);
  const dir = path.join(plan.socketDir, CONTAINER_DISCOVERY_DIR);
  fs.mkdirSync(dir, { mode: 0o700, recursive: true });
  const id = (parseInt(createHash('sha256').update(`${plan.hostRoot}\0${there.cliRoot}`).digest('hex').slice(0, 8), 16) % 65534) + 2;
  writeFileAtomicPrivate(path.join(dir, discoveryFileName(1, id)), JSON.stringify(discoveryFileThere(plan, there)));
  return dir;
}
