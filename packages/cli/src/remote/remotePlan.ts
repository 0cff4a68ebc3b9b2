/**
 * What a CLI elsewhere (a container, `gemini --sandbox`, an SSH session)
 * needs to reach the companion of this folder, shared by `container`,
 * `sandbox` and `ssh`: the companion the CLI would choose here, its socket
 * folder (the socket and the token travel together), the workspace root that
 * holds this folder, and the discovery file that CLI reads over there (no
 * port: the relay over stdio, paths mapped to where the project is there).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discoverCompanion } from '@ide-companion/client/discovery';
import { discoveryFileName, type IdeInfo, type RelayDiscoveryFile } from '@ide-companion/protocol';
import { writeFileAtomicPrivate } from '@ide-companion/server/discoveryFile';
import { RELAY_BUNDLE_PATH } from '../connect/build/bundle.js';

/** Where the pieces go on the other side (a container's paths; ssh puts them in a private folder instead). */
export const THERE = {
  relay: '/opt/ide-companion/connect.mjs',
  socketDir: '/run/ide-companion',
  /** Where gemini looks (os.tmpdir()/gemini/ide), under a name the CLI reads (PID 1: the container's init). */
  discoveryFile: `/tmp/gemini/ide/${discoveryFileName(1, 1)}`,
} as const;

export class RemotePlanError extends Error {
  override name = 'RemotePlanError';
}

export interface RemotePlan {
  /** The companion's socket and its folder (with the token file) on this machine. */
  socketPath: string;
  socketDir: string;
  /** The workspace root holding the folder the command ran in, and that folder relative to it. */
  hostRoot: string;
  relative: string;
  ideInfo: IdeInfo;
  /** The relay bundle on this machine. */
  relay: string;
}

/** The companion gemini would use from `cwd`, with what a CLI elsewhere needs; RemotePlanError says what is missing. */
export async function planRemote(cwd: string): Promise<RemotePlan> {
  const found = await discoverCompanion({ cwd, wellKnownPorts: false });
  const chosen = found.chosen;
  if (!chosen?.config) {
    throw new RemotePlanError(
      `no companion serves ${found.realCwd}: start your editor's companion (or \`ide-companion serve\`) in this project first (${found.chosenBecause})`,
    );
  }
  if (!chosen.workspace?.ok) {
    throw new RemotePlanError(
      `the companion found (${chosen.fileName}) does not serve ${found.realCwd}: its folders are ${chosen.workspace?.roots.join(', ') || 'none'}`,
    );
  }
  const socketPath = chosen.config['socketPath'];
  if (typeof socketPath !== 'string' || !isSocket(socketPath)) {
    throw new RemotePlanError(
      `the companion in ${chosen.ideInfo?.displayName ?? 'the editor'} (${chosen.fileName}) has no Unix socket${typeof socketPath === 'string' ? ` at ${socketPath}` : ''}: update and restart it (the socket came with ide-companion 0.1, docs/remote.md)`,
    );
  }
  const hostRoot = chosen.workspace.roots
    .filter((root) => found.realCwd === root || found.realCwd.startsWith(root.endsWith(path.sep) ? root : root + path.sep))
    .sort((a, b) => b.length - a.length)[0]!;
  return {
    socketPath,
    socketDir: path.dirname(socketPath),
    hostRoot,
    relative: path.relative(hostRoot, found.realCwd),
    ideInfo: chosen.ideInfo ?? { name: 'ide-companion', displayName: 'IDE Companion' },
    relay: RELAY_BUNDLE_PATH,
  };
}

function isSocket(p: string): boolean {
  try {
    return fs.statSync(p).isSocket();
  } catch {
    return false;
  }
}

export interface ThereOptions {
  /** Where the project is for that CLI. */
  cliRoot: string;
  /** The relay's path there, and the socket's. */
  relay: string;
  socketPath: string;
  /** The command that runs the relay there (default `node`). */
  node?: string;
}

/** The relay's argv there: the socket, and the map from this machine's root to that CLI's. */
export function relayArgs(plan: RemotePlan, there: ThereOptions): string[] {
  const args = [there.relay, '--socket', there.socketPath];
  if (plan.hostRoot !== there.cliRoot) args.push('--map', `${plan.hostRoot}=${there.cliRoot}`);
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
 * Writes that file privately (0600, atomic) into the companion's socket
 * folder, one per place the project is mounted at, and returns its path here:
 * it goes away with the companion, as the socket it names does.
 */
export function writeDiscoveryFileThere(plan: RemotePlan, there: ThereOptions): string {
  const name = `remote-${createHash('sha256').update(there.cliRoot).digest('hex').slice(0, 12)}.json`;
  const file = path.join(plan.socketDir, name);
  writeFileAtomicPrivate(file, JSON.stringify(discoveryFileThere(plan, there)));
  return file;
}
