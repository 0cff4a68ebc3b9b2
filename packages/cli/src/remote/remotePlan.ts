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
import { DISCOVERY_FILE_PATTERN, discoveryFileName, type IdeInfo, type RelayDiscoveryFile } from '@ide-companion/protocol';
import { ensurePrivateDirectory, writeFileAtomicPrivate } from '@ide-companion/server/discoveryFile';
import { ensureStableSocketDir, stableSocketDir, workspaceSocketPath } from '@ide-companion/server/workspaceSockets';
import { RELAY_BUNDLE_PATH } from '../connect/build/bundle.js';

/** Where the pieces go on the other side (a container's paths; ssh puts them in a private folder instead). */
export const THERE = {
  relay: '/opt/ide-companion/connect.mjs',
  socketDir: '/run/ide-companion',
  /** The relay's copy in the stable folder, as a container sees it (one mount for socket and relay). */
  stableRelay: '/run/ide-companion/connect.mjs',
  /** Where gemini looks for discovery files: a container mounts its project's folder of them there. */
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

/**
 * The stable folder's folder of per-project discovery folders. A container
 * mounts ONE of them where gemini looks (`projects/<the project's path here>`),
 * never the whole: gemini picks among the discovery files it sees by PID and
 * readdir order only, so two projects used at one container path (or a file
 * left from another project) must not be in its view at all. Named by the
 * project's path, mirrored, so a compose file (`${PWD}`) or a devcontainer.json
 * (`${localWorkspaceFolder}`) can name it without running anything.
 */
const PROJECTS_DIR = 'projects';
/** Where the files of every project were before (one folder mounted by all): swept at each `container` run. */
const LEGACY_DISCOVERY_DIR = 'gemini-ide';
const STABLE_RELAY_NAME = 'connect.mjs';
/** Bounds of the sweep of project folders (entries read), so a huge tree never stalls the command. */
const SWEEP_MAX_ENTRIES = 5_000;

/** Makes `projects/<dir>` (the project folder `dir`, an absolute path here, mirrored) privately, each level 0700, ours, not a link (ensurePrivateDirectory refuses otherwise). */
function ensureProjectDiscoveryDir(socketDir: string, dir: string): string {
  let current = path.join(socketDir, PROJECTS_DIR);
  ensurePrivateDirectory(current);
  for (const segment of path.resolve(dir).split(path.sep).filter(Boolean)) {
    current = path.join(current, segment);
    ensurePrivateDirectory(current);
  }
  return current;
}

/** Whether one of two container paths holds the other (or they are one): gemini inside would take either. */
function nested(a: string, b: string): boolean {
  const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
  return within(a, b) || within(b, a);
}

/** The discovery files in `dir` (ours: gemini's names), with the container path each names. */
function placeFiles(dir: string): Array<{ name: string; workspacePath: string | undefined }> {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => DISCOVERY_FILE_PATTERN.test(n));
  } catch {
    return [];
  }
  return names.map((name) => {
    try {
      const parsed = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { workspacePath?: unknown };
      return { name, workspacePath: typeof parsed.workspacePath === 'string' ? parsed.workspacePath : undefined };
    } catch {
      return { name, workspacePath: undefined };
    }
  });
}

/**
 * Sweeps what no container should find any more: the folder every project
 * shared before (its files could send one project's gemini to another's
 * editor), and the discovery files of project folders whose project is gone
 * from this machine (moved or deleted), with the folders left empty. Bounded.
 */
function sweepContainerFiles(socketDir: string): void {
  const legacy = path.join(socketDir, LEGACY_DISCOVERY_DIR);
  try {
    if (fs.lstatSync(legacy).isDirectory()) fs.rmSync(legacy, { recursive: true, force: true });
  } catch {
    // None.
  }
  const root = path.join(socketDir, PROJECTS_DIR);
  let budget = SWEEP_MAX_ENTRIES;
  // Depth first; returns whether the folder is left empty (then its parent removes it).
  const visit = (dir: string, hostPath: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    budget -= entries.length;
    if (budget < 0) return false;
    const projectGone = !fs.existsSync(hostPath);
    let left = entries.length;
    for (const entry of entries) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (visit(p, path.join(hostPath, entry.name)) && rmdirQuietly(p)) left--;
      } else if (projectGone && DISCOVERY_FILE_PATTERN.test(entry.name)) {
        fs.rmSync(p, { force: true });
        left--;
      }
    }
    return left === 0;
  };
  visit(root, path.sep);
}

function rmdirQuietly(dir: string): boolean {
  try {
    fs.rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a container mounts: the relay's copy in the stable folder
 * (`connect.mjs`, refreshed at each run: an upgrade reaches containers made
 * before it), and the discovery file in this project's own folder,
 * `projects/<the folder the command ran in>` (and, when the shell's PWD names
 * that folder by another path, the same under that path: a compose file's
 * `${PWD}`), one file per place the project is mounted at (PID 1: the
 * container's init, alive there). A file of this project for a place nested
 * with this one is removed: gemini would take either. Returns the folder.
 */
export function writeContainerFiles(plan: RemotePlan, there: ThereOptions, env: NodeJS.ProcessEnv = process.env): string {
  const relay = path.join(plan.socketDir, STABLE_RELAY_NAME);
  const temporary = `${relay}.${process.pid}.tmp`;
  fs.copyFileSync(plan.relay, temporary);
  fs.chmodSync(temporary, 0o600);
  fs.renameSync(temporary, relay);
  sweepContainerFiles(plan.socketDir);
  const here = path.join(plan.hostRoot, plan.relative);
  const folders = [here];
  const logical = env['PWD'];
  if (logical && path.isAbsolute(logical) && path.resolve(logical) !== here && sameFolder(logical, here)) folders.push(path.resolve(logical));
  const id = (parseInt(createHash('sha256').update(there.cliRoot).digest('hex').slice(0, 8), 16) % 65534) + 2;
  const name = discoveryFileName(1, id);
  const content = JSON.stringify(discoveryFileThere(plan, there));
  let first: string | undefined;
  for (const folder of folders) {
    let dir: string;
    try {
      dir = ensureProjectDiscoveryDir(plan.socketDir, folder);
    } catch (err) {
      throw new RemotePlanError(`the project's discovery folder cannot be made: ${(err as Error).message}`);
    }
    for (const other of placeFiles(dir)) {
      if (other.name !== name && (other.workspacePath === undefined || nested(other.workspacePath, there.cliRoot)))
        fs.rmSync(path.join(dir, other.name), { force: true });
    }
    writeFileAtomicPrivate(path.join(dir, name), content);
    first ??= dir;
  }
  return first!;
}

function sameFolder(a: string, b: string): boolean {
  try {
    const sa = fs.statSync(a);
    const sb = fs.statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}
