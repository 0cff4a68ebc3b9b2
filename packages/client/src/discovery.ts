/**
 * Choosing a companion exactly as the real CLI 0.61.0 does
 * (ide-connection-utils.js getConnectionConfigFromFile + IdeClient.connect),
 * with every candidate and the reason for each decision kept for `doctor`,
 * `status`, `list` and `check`.
 *
 * Order of the CLI:
 *  1. the legacy file `gemini-ide-server-<idePid>.json`, if it is ours and a JSON object;
 *  2. every `gemini-ide-server-<pid>-<port>.json`, sorted: PID == IDE PID first,
 *     then live PIDs, then highest PID; files owned by another uid are skipped;
 *     of those whose workspace contains the cwd, the one whose port equals
 *     GEMINI_CLI_IDE_SERVER_PORT, else the first; if none matches, the best
 *     mismatched file is returned anyway (so the user hears "Directory mismatch");
 *  3. the workspace (file's, else GEMINI_CLI_IDE_WORKSPACE_PATH) must contain the cwd,
 *     or nothing is dialled;
 *  4. dial: the file's port, the file's stdio, the env port (with the file's token
 *     if any), the env stdio command.
 * Our addition (architecture doc): the well-known ports 58767, 3000, 8080, only
 * without a discovery file, with a token from GEMINI_CLI_IDE_AUTH_TOKEN, and
 * only if the server identifies itself as a companion.
 *
 * Below, one function per step (candidates, rank, choose, settle, targetsFor,
 * explain) over `Facts` gathered once: the cwd's real path, the IDE process,
 * the host, and each file read once by readDiscoveryFile.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ENV, LOOPBACK_HOST, WELL_KNOWN_PORTS, type IdeInfo } from '@ide-companion/protocol';
import { isProcessAlive } from '@ide-companion/shared/processAlive';
import { discoveryDirectory, legacyDiscoveryFileName, listDiscoveryDir, readDiscoveryFile, type DiscoveryFileRead } from './discoveryFiles.js';
import { companionHost, type HostMapping } from '@ide-companion/protocol';
import { isSubpath, resolveToRealPath } from './paths.js';
import { findIdeProcess, type IdeProcess } from './processTree.js';
import { detectIdeAsGeminiCli, type DetectedIde } from './ideDetection.js';

export interface DiscoveryOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Base of `gemini/ide`; default os.tmpdir(). */
  tmpdir?: string;
  /** Skip the process walk and use this IDE process (tests, embedding hosts). */
  ideProcess?: IdeProcess;
  /** Container detection hook (tests). */
  exists?: (p: string) => boolean;
  /** Offer the architecture doc's well-known ports (default true), or these ports instead. */
  wellKnownPorts?: boolean | readonly number[];
  /**
   * Not the CLI's behaviour (default false): where it would dial `host.docker.internal`
   * but the chosen file's PID runs in this container, dial loopback. Our commands set it.
   */
  dialLocalCompanion?: boolean;
}

export interface WorkspaceCheck {
  ok: boolean;
  /** The real roots compared against the cwd. */
  roots: string[];
  /** The CLI's own message when not ok. */
  error?: string;
}

export interface DiscoveryFileCandidate {
  path: string;
  fileName: string;
  /** PID named in the file name (0 when unparsable). */
  pid: number;
  legacy: boolean;
  /** Owner uid (undefined when stat failed). */
  ownerUid?: number;
  ownedByUser: boolean;
  /** Position in the CLI's sort order (0 = first). */
  rank: number;
  pidIsIde: boolean;
  alive: boolean;
  /** The file as the CLI reads it: any JSON object. */
  config?: Record<string, unknown>;
  /** Why the CLI could not use it (unreadable, foreign owner, not JSON...). */
  unusable?: string;
  /** What our stricter schema says is wrong (the CLI may still use it). */
  contractError?: string;
  /** The port the CLI dials (the content's, parsed as the CLI does). */
  port?: number;
  /** A port present in the content that is no valid port, as written. */
  invalidPort?: unknown;
  workspacePath?: string;
  workspace?: WorkspaceCheck;
  hasToken: boolean;
  ideInfo?: IdeInfo;
  matchesEnvPort: boolean;
}

export type ConnectionTarget =
  | {
      kind: 'http';
      source: 'file' | 'env' | 'well-known-port';
      host: string;
      port: number;
      authToken?: string;
      /** The discovery file it came from. */
      file?: string;
      /** Only accept the server if its tools show it is a companion. */
      requireIdentification: boolean;
    }
  | { kind: 'stdio'; source: 'file' | 'env'; command: string; args: string[]; file?: string; requireIdentification: false };

export interface DiscoveryResult {
  cwd: string;
  realCwd: string;
  dir: string;
  /** Why the directory could not be listed, if it could not. */
  dirError?: string;
  ideProcess: IdeProcess;
  host: HostMapping;
  /** Every discovery file, in the CLI's order. */
  files: DiscoveryFileCandidate[];
  /** The file the real CLI uses (possibly with a mismatched workspace). */
  chosen?: DiscoveryFileCandidate;
  /** Why that file (or none). */
  chosenBecause: string;
  authToken?: string;
  tokenSource?: 'file' | 'env';
  workspacePath?: string;
  workspaceSource?: 'file' | 'env';
  workspace: WorkspaceCheck;
  /** The IDE as the real CLI names it; undefined where it refuses to connect. */
  ide?: DetectedIde;
  ideInfo?: IdeInfo;
  /** What stops a connection before any dial, in the CLI's words (commands print it through withOurInstallHint). */
  problem?: string;
  /** Where to dial, in order. Empty when `problem` is set. */
  targets: ConnectionTarget[];
  /** The decisions, in order, in words. */
  reasons: string[];
}

/** The CLI's liveness for ranking: on Windows it assumes every PID alive rather than pay for a check. */
function aliveForTheCli(pid: number): boolean {
  if (pid <= 0) return false;
  return process.platform === 'win32' || isProcessAlive(pid);
}

/** The CLI's "Failed to connect" hint names `/ide install`, which only installs Google's VS Code extension. */
const CLI_INSTALL_HINT = 'To install the extension, run /ide install.';

/**
 * The CLI's message with its `/ide install` hint replaced by what works for
 * every editor; our commands print this, never the CLI's hint.
 */
export function withOurInstallHint(message: string): string {
  return message.replace(CLI_INSTALL_HINT, "Start your editor's companion (`ide-companion install` lists them), or run `ide-companion serve` in this folder.");
}

/** The real cwd, or why it cannot be resolved (reported by every workspace check). */
type RealCwd = { ok: true; path: string } | { ok: false; error: Error };

function realCwdOf(cwd: string): RealCwd {
  try {
    return { ok: true, path: resolveToRealPath(cwd, cwd) };
  } catch (err) {
    return { ok: false, error: err as Error };
  }
}

/** The CLI's validateWorkspacePath, with roots kept for messages. */
export function checkWorkspace(workspacePath: unknown, cwd: string): WorkspaceCheck {
  return checkWorkspaceFrom(workspacePath, cwd, realCwdOf(cwd));
}

function checkWorkspaceFrom(workspacePath: unknown, cwd: string, realCwd: RealCwd): WorkspaceCheck {
  if (workspacePath === undefined) {
    return { ok: false, roots: [], error: `Failed to connect to IDE companion extension. Please ensure the extension is running. ${CLI_INSTALL_HINT}` };
  }
  if (workspacePath === '') {
    return { ok: false, roots: [], error: 'To use this feature, please open a workspace folder in your IDE and try again.' };
  }
  if (typeof workspacePath !== 'string') {
    return { ok: false, roots: [], error: `workspacePath is not a string (${typeof workspacePath})` };
  }
  let roots: string[];
  try {
    // An empty entry resolves to the cwd, as in the CLI (so "a:" matches everywhere).
    roots = workspacePath
      .split(path.delimiter)
      .map((p) => resolveToRealPath(p, cwd))
      .filter((p) => !!p);
  } catch (err) {
    return { ok: false, roots: [], error: `cannot resolve workspace paths: ${(err as Error).message}` };
  }
  if (!realCwd.ok) return { ok: false, roots: [], error: `cannot resolve workspace paths: ${realCwd.error.message}` };
  if (!roots.some((root) => isSubpath(root, realCwd.path))) {
    return {
      ok: false,
      roots,
      error: `Directory mismatch. Gemini CLI is running in a different location than the open workspace in the IDE. Please run the CLI from one of the following directories: ${roots.join(', ')}`,
    };
  }
  return { ok: true, roots };
}

/** What every step reads: computed once per discovery. */
interface Facts {
  env: NodeJS.ProcessEnv;
  cwd: string;
  realCwd: RealCwd;
  dir: string;
  ideProcess: IdeProcess;
  host: HostMapping;
  envPort?: string;
}

async function gatherFacts(options: DiscoveryOptions): Promise<Facts> {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  return {
    env,
    cwd,
    realCwd: realCwdOf(cwd),
    dir: discoveryDirectory(options.tmpdir),
    ideProcess: options.ideProcess ?? (await findIdeProcess({ env })),
    host: companionHost(env, options.exists ?? fs.existsSync),
    envPort: env[ENV.SERVER_PORT] || undefined,
  };
}

/** A file as a candidate: the reader's facts plus what the CLI makes of them here. */
function toCandidate(read: DiscoveryFileRead, pid: number, legacy: boolean, facts: Facts): DiscoveryFileCandidate {
  const candidate: DiscoveryFileCandidate = {
    path: read.path,
    fileName: read.fileName,
    pid,
    legacy,
    ownerUid: read.ownerUid,
    ownedByUser: read.ownerUid !== undefined && read.ownedByUser,
    rank: -1,
    pidIsIde: pid === facts.ideProcess.pid,
    alive: aliveForTheCli(pid),
    hasToken: false,
    matchesEnvPort: false,
  };
  if (read.cliSkips !== undefined || !read.json) {
    candidate.unusable = read.cliSkips;
    return candidate;
  }
  const config = read.json;
  candidate.config = config;
  if (read.contract && !read.contract.ok) candidate.contractError = read.contract.error;
  candidate.port = read.port;
  candidate.invalidPort = read.invalidPort;
  candidate.workspacePath = read.workspacePath;
  candidate.hasToken = read.authToken !== undefined;
  candidate.ideInfo = read.ideInfo;
  candidate.matchesEnvPort = !!facts.envPort && config['port'] !== undefined && String(config['port']) === facts.envPort;
  candidate.workspace = checkWorkspaceFrom(config['workspacePath'], facts.cwd, facts.realCwd);
  return candidate;
}

/** Step 1: the legacy file and every `gemini-ide-server-PID-PORT.json`, each read once. */
function candidates(facts: Facts): { legacy?: DiscoveryFileCandidate; modern: DiscoveryFileCandidate[]; dirError?: string } {
  const legacyPath = path.join(facts.dir, legacyDiscoveryFileName(facts.ideProcess.pid));
  const legacy = fs.existsSync(legacyPath) ? toCandidate(readDiscoveryFile(legacyPath), facts.ideProcess.pid, true, facts) : undefined;
  const listing = listDiscoveryDir(facts.dir);
  const modern = listing.files.filter((f) => !f.name.legacy).map((f) => toCandidate(readDiscoveryFile(f.path), f.name.pid, false, facts));
  return { legacy, modern, dirError: listing.error };
}

/** Step 2: the CLI's order (IDE PID first, then live, then highest PID); sets `rank`. */
function rank(files: DiscoveryFileCandidate[]): DiscoveryFileCandidate[] {
  const sorted = [...files].sort((a, b) => {
    if (a.pidIsIde !== b.pidIsIde) return a.pidIsIde ? -1 : 1;
    if (a.alive !== b.alive) return a.alive ? -1 : 1;
    return b.pid - a.pid;
  });
  sorted.forEach((c, i) => (c.rank = i));
  return sorted;
}

/** Step 3: the file the CLI uses, and why. */
function choose(
  legacy: DiscoveryFileCandidate | undefined,
  ranked: DiscoveryFileCandidate[],
  facts: Facts,
  dirError: string | undefined,
): { chosen?: DiscoveryFileCandidate; because: string } {
  if (legacy?.config) return { chosen: legacy, because: `legacy file ${legacy.fileName} names the IDE PID: the CLI uses it before any other` };
  if (ranked.length === 0) return { because: dirError ?? `no discovery files in ${facts.dir}` };
  const parsed = ranked.filter((c) => c.config);
  const matching = parsed.filter((c) => c.workspace?.ok);
  const realCwd = facts.realCwd.ok ? facts.realCwd.path : facts.cwd;
  if (matching.length === 0) {
    const byPort = facts.envPort ? parsed.find((c) => c.matchesEnvPort) : undefined;
    const chosen = byPort ?? parsed[0];
    return chosen
      ? {
          chosen,
          because: `no file's workspace contains ${realCwd}; the CLI still takes ${byPort ? `the one whose port matches ${ENV.SERVER_PORT}` : 'the first in its order'} and reports a directory mismatch`,
        }
      : { because: 'no discovery file is usable (see each file)' };
  }
  if (matching.length === 1) return { chosen: matching[0], because: `the only file whose workspace contains ${realCwd}` };
  const byPort = facts.envPort ? matching.find((c) => c.matchesEnvPort) : undefined;
  return {
    chosen: byPort ?? matching[0],
    because: byPort
      ? `${matching.length} files match the workspace; ${ENV.SERVER_PORT}=${facts.envPort} picks this one`
      : `${matching.length} files match the workspace; first in the CLI's order (IDE PID, then live, then highest PID)`,
  };
}

/** Step 4a: token and workspace, from the chosen file or else the env, as the CLI merges them. */
function settle(chosen: DiscoveryFileCandidate | undefined, facts: Facts) {
  const config = chosen?.config;
  const { env } = facts;
  const fileToken = typeof config?.['authToken'] === 'string' ? (config['authToken'] as string) : undefined;
  const fileWorkspace = config?.['workspacePath'];
  const workspacePath = (fileWorkspace ?? env[ENV.WORKSPACE_PATH]) as string | undefined;
  return {
    authToken: fileToken ?? env[ENV.AUTH_TOKEN],
    tokenSource: fileToken !== undefined ? ('file' as const) : env[ENV.AUTH_TOKEN] !== undefined ? ('env' as const) : undefined,
    workspacePath,
    workspaceSource: fileWorkspace !== undefined ? ('file' as const) : env[ENV.WORKSPACE_PATH] !== undefined ? ('env' as const) : undefined,
    // The chosen file's verdict is the same check: reuse it (null falls through to the env, as in the CLI).
    workspace:
      fileWorkspace !== undefined && fileWorkspace !== null && chosen?.workspace
        ? chosen.workspace
        : checkWorkspaceFrom(workspacePath, facts.cwd, facts.realCwd),
    ideInfo: chosen?.ideInfo,
    ide: detectIdeAsGeminiCli(env, facts.ideProcess.command, config?.['ideInfo'] as Partial<IdeInfo> | undefined),
  };
}

type Settled = ReturnType<typeof settle>;

/** Step 4b: where to dial, in order, with the notes explaining what was skipped. */
function targetsFor(
  chosen: DiscoveryFileCandidate | undefined,
  settled: Settled,
  facts: Facts,
  options: Pick<DiscoveryOptions, 'wellKnownPorts' | 'dialLocalCompanion'>,
): { targets: ConnectionTarget[]; problem?: string; notes: string[] } {
  const { env, envPort, host } = facts;
  const wellKnownPorts = options.wellKnownPorts;
  const { authToken, tokenSource, workspace, workspacePath, workspaceSource } = settled;
  const targets: ConnectionTarget[] = [];
  const notes: string[] = [];
  const realCwd = facts.realCwd.ok ? facts.realCwd.path : facts.cwd;
  const knownPorts = wellKnownPorts === false ? [] : Array.isArray(wellKnownPorts) ? wellKnownPorts : WELL_KNOWN_PORTS;
  // Only with a token from the env and no discovery file: a file's port is authoritative, and its
  // token must not travel to whatever else listens on 3000 or 8080.
  const wellKnown = knownPorts.length > 0 && !!authToken && tokenSource === 'env' && !chosen;
  const wellKnownTarget = (port: number): ConnectionTarget => ({
    kind: 'http',
    source: 'well-known-port',
    host: host.host,
    port,
    authToken,
    requireIdentification: true,
  });
  if (!workspace.ok && workspacePath === undefined && wellKnown) {
    // The CLI stops here; we still probe the well-known ports, which must prove they are companions.
    notes.push(
      `no workspace known (no file, no ${ENV.WORKSPACE_PATH}): the real CLI would stop; trying the well-known ports with the token from ${tokenSource}`,
    );
    return { targets: knownPorts.map(wellKnownTarget), notes };
  }
  if (!workspace.ok) {
    notes.push(`workspace check failed: ${withOurInstallHint(workspace.error ?? '')}`);
    return { targets, problem: workspace.error, notes };
  }
  notes.push(`workspace ${workspaceSource === 'file' ? 'from the file' : `from ${ENV.WORKSPACE_PATH}`} contains ${realCwd}`);
  if (chosen?.config) {
    // A live PID means the companion's process is in this PID namespace, most likely this
    // container: try loopback first, then the CLI's host (a container may share the host's PIDs).
    const local = options.dialLocalCompanion && host.host !== LOOPBACK_HOST && isProcessAlive(chosen.pid);
    if (local)
      notes.push(`PID ${chosen.pid} runs in this container: dialling ${LOOPBACK_HOST} first (the real CLI dials ${host.host} unless REMOTE_CONTAINERS is set)`);
    if (chosen.port !== undefined) {
      for (const fileHost of local ? [LOOPBACK_HOST, host.host] : [host.host]) {
        targets.push({ kind: 'http', source: 'file', host: fileHost, port: chosen.port, authToken, file: chosen.path, requireIdentification: false });
      }
    } else if (chosen.invalidPort !== undefined) {
      notes.push(`the file's port ${JSON.stringify(chosen.invalidPort)} is not a valid port: skipped`);
    }
    const stdio = chosen.config['stdio'] as { command?: unknown; args?: unknown } | undefined;
    if (stdio && typeof stdio === 'object' && typeof stdio.command === 'string') {
      const args = Array.isArray(stdio.args) ? stdio.args.map(String) : [];
      targets.push({ kind: 'stdio', source: 'file', command: stdio.command, args, file: chosen.path, requireIdentification: false });
    }
  }
  if (envPort) {
    const port = Number.parseInt(envPort, 10);
    if (port > 0 && port <= 65535) targets.push({ kind: 'http', source: 'env', host: host.host, port, authToken, requireIdentification: false });
    else notes.push(`${ENV.SERVER_PORT}=${JSON.stringify(envPort)} is not a valid port: skipped`);
  }
  const stdioCommand = env[ENV.STDIO_COMMAND];
  if (stdioCommand) {
    let args: string[] = [];
    const rawArgs = env[ENV.STDIO_ARGS];
    if (rawArgs) {
      try {
        const parsed: unknown = JSON.parse(rawArgs);
        if (Array.isArray(parsed)) args = parsed.map(String);
        else notes.push(`${ENV.STDIO_ARGS} must be a JSON array: ignored`);
      } catch {
        notes.push(`${ENV.STDIO_ARGS} is not JSON: ignored`);
      }
    }
    targets.push({ kind: 'stdio', source: 'env', command: stdioCommand, args, requireIdentification: false });
  }
  if (wellKnown) {
    for (const port of knownPorts) {
      if (!targets.some((t) => t.kind === 'http' && t.port === port)) targets.push(wellKnownTarget(port));
    }
  }
  const problem = targets.length === 0 ? `no port or stdio command to dial: no usable discovery file and no ${ENV.SERVER_PORT}` : undefined;
  notes.push(
    targets.length > 0
      ? `will dial, in order: ${targets.map((t) => (t.kind === 'http' ? `${t.host}:${t.port} (${t.source})` : `stdio '${t.command}' (${t.source})`)).join(', ')}`
      : `nothing to dial: ${problem}`,
  );
  return { targets, problem, notes };
}

function describeFile(c: DiscoveryFileCandidate): string {
  const bits = [`PID ${c.pid}${c.pidIsIde ? ' (the IDE)' : ''} ${c.alive ? 'alive' : 'not running'}`];
  if (c.port !== undefined) bits.push(`port ${c.port}`);
  return `${c.fileName} (${bits.join(', ')})`;
}

/** Step 5: the decisions, in order, in words. */
function explain(facts: Facts, files: DiscoveryFileCandidate[], chosen: DiscoveryFileCandidate | undefined, because: string, targetNotes: string[]): string[] {
  const { ideProcess } = facts;
  const reasons = [`IDE process: PID ${ideProcess.pid} (${ideProcess.source === 'env' ? `from ${ENV.IDE_PID}` : 'from the process tree'})`];
  for (const c of files) {
    const verdict = c === chosen ? 'CHOSEN' : c.unusable ? `skipped: ${c.unusable}` : c.workspace?.ok ? 'matches, not chosen' : 'workspace mismatch';
    reasons.push(`file ${describeFile(c)}: ${verdict}`);
  }
  reasons.push(chosen ? `chosen ${chosen.fileName}: ${because}` : because);
  return [...reasons, ...targetNotes];
}

/** Discovers the companion the CLI would use from `cwd`, and says why. */
export async function discoverCompanion(options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const facts = await gatherFacts(options);
  const found = candidates(facts);
  const ranked = rank(found.modern);
  if (found.legacy) found.legacy.rank = 0;
  const files = found.legacy ? [found.legacy, ...ranked] : ranked;
  const { chosen, because } = choose(found.legacy, ranked, facts, found.dirError);
  const settled = settle(chosen, facts);
  const { targets, problem, notes } = targetsFor(chosen, settled, facts, options);
  return {
    cwd: facts.cwd,
    realCwd: facts.realCwd.ok ? facts.realCwd.path : facts.cwd,
    dir: facts.dir,
    dirError: found.dirError,
    ideProcess: facts.ideProcess,
    host: facts.host,
    files,
    chosen,
    chosenBecause: because,
    ...settled,
    problem,
    targets,
    reasons: explain(facts, files, chosen, because, notes),
  };
}

/** The result with every token replaced by `hasToken`, safe to print or log. */
export function redactDiscovery(result: DiscoveryResult): Record<string, unknown> {
  const { authToken, targets, files, chosen, ...rest } = result;
  const redactFile = (f: DiscoveryFileCandidate) => ({
    ...f,
    config: f.config ? Object.fromEntries(Object.entries(f.config).map(([k, v]) => [k, k === 'authToken' ? '<redacted>' : v])) : undefined,
  });
  return {
    ...rest,
    hasToken: authToken !== undefined && authToken !== '',
    chosen: chosen ? redactFile(chosen) : undefined,
    targets: targets.map((t) => (t.kind === 'http' ? { ...t, authToken: undefined, hasToken: !!t.authToken } : t)),
    files: files.map(redactFile),
  };
}
