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
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  DISCOVERY_FILE_PREFIX,
  DiscoveryFileSchema,
  discoveryDir,
  ENV,
  IdeInfoSchema,
  parseDiscoveryFileName,
  WELL_KNOWN_PORTS,
  type IdeInfo,
} from '@ide-companion/protocol';
import { companionHost, type HostMapping } from './host.js';
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
  port?: number;
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
  /** What stops a connection before any dial, in the CLI's words. */
  problem?: string;
  /** Where to dial, in order. Empty when `problem` is set. */
  targets: ConnectionTarget[];
  /** The decisions, in order, in words. */
  reasons: string[];
}

export function discoveryDirectory(tmpdir: string = os.tmpdir()): string {
  return discoveryDir(tmpdir, path);
}

/** `process.kill(pid, 0)`; EPERM means alive. Windows: assumed alive, as in the CLI. */
export function isPidAlive(pid: number): boolean {
  if (pid <= 0) return false;
  if (process.platform === 'win32') return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The CLI's validateWorkspacePath, with roots kept for messages. */
export function checkWorkspace(workspacePath: unknown, cwd: string): WorkspaceCheck {
  if (workspacePath === undefined) {
    return {
      ok: false,
      roots: [],
      error: 'Failed to connect to IDE companion extension. Please ensure the extension is running. To install the extension, run /ide install.',
    };
  }
  if (workspacePath === '') {
    return { ok: false, roots: [], error: 'To use this feature, please open a workspace folder in your IDE and try again.' };
  }
  if (typeof workspacePath !== 'string') {
    return { ok: false, roots: [], error: `workspacePath is not a string (${typeof workspacePath})` };
  }
  let roots: string[];
  let realCwd: string;
  try {
    // An empty entry resolves to the cwd, as in the CLI (so "a:" matches everywhere).
    roots = workspacePath.split(path.delimiter).map((p) => resolveToRealPath(p, cwd)).filter((p) => !!p);
    realCwd = resolveToRealPath(cwd, cwd);
  } catch (err) {
    return { ok: false, roots: [], error: `cannot resolve workspace paths: ${(err as Error).message}` };
  }
  if (!roots.some((root) => isSubpath(root, realCwd))) {
    return {
      ok: false,
      roots,
      error: `Directory mismatch. Gemini CLI is running in a different location than the open workspace in the IDE. Please run the CLI from one of the following directories: ${roots.join(', ')}`,
    };
  }
  return { ok: true, roots };
}

function readOwnFile(file: string): { text?: string; uid?: number; problem?: string } {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const stat = fs.fstatSync(fd);
    if (process.getuid && stat.uid !== process.getuid()) {
      return { uid: stat.uid, problem: `owned by uid ${stat.uid}, not by you (uid ${process.getuid()}): ignored, as the CLI does` };
    }
    return { uid: stat.uid, text: fs.readFileSync(fd, 'utf8') };
  } catch (err) {
    return { problem: `cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function inspectFile(file: string, pid: number, legacy: boolean, idePid: number, envPort: string | undefined, cwd: string): DiscoveryFileCandidate {
  const read = readOwnFile(file);
  const candidate: DiscoveryFileCandidate = {
    path: file,
    fileName: path.basename(file),
    pid,
    legacy,
    ownerUid: read.uid,
    ownedByUser: read.uid !== undefined && (!process.getuid || read.uid === process.getuid()),
    rank: -1,
    pidIsIde: pid === idePid,
    alive: isPidAlive(pid),
    hasToken: false,
    matchesEnvPort: false,
  };
  if (read.text === undefined) {
    candidate.unusable = read.problem;
    return candidate;
  }
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch (err) {
    candidate.unusable = `not JSON: ${(err as Error).message}`;
    return candidate;
  }
  if (typeof json !== 'object' || json === null) {
    candidate.unusable = 'not a JSON object';
    return candidate;
  }
  const config = json as Record<string, unknown>;
  candidate.config = config;
  const strict = DiscoveryFileSchema.safeParse(config);
  if (!strict.success) candidate.contractError = strict.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  const port = typeof config['port'] === 'number' ? config['port'] : typeof config['port'] === 'string' ? Number.parseInt(config['port'], 10) : NaN;
  if (Number.isSafeInteger(port)) candidate.port = port;
  if (typeof config['workspacePath'] === 'string') candidate.workspacePath = config['workspacePath'];
  candidate.hasToken = typeof config['authToken'] === 'string' && config['authToken'].length > 0;
  const ideInfo = IdeInfoSchema.safeParse(config['ideInfo']);
  if (ideInfo.success) candidate.ideInfo = ideInfo.data;
  candidate.matchesEnvPort = !!envPort && config['port'] !== undefined && String(config['port']) === envPort;
  candidate.workspace = checkWorkspace(config['workspacePath'], cwd);
  return candidate;
}

/** Sorts like the CLI: IDE PID first, then live, then highest PID. */
function cliOrder(a: { pid: number; alive: boolean }, b: { pid: number; alive: boolean }, idePid: number): number {
  if (a.pid === idePid && b.pid !== idePid) return -1;
  if (b.pid === idePid && a.pid !== idePid) return 1;
  if (a.alive && !b.alive) return -1;
  if (b.alive && !a.alive) return 1;
  return b.pid - a.pid;
}

function describeFile(c: DiscoveryFileCandidate): string {
  const bits = [`PID ${c.pid}${c.pidIsIde ? ' (the IDE)' : ''} ${c.alive ? 'alive' : 'not running'}`];
  if (c.port !== undefined) bits.push(`port ${c.port}`);
  return `${c.fileName} (${bits.join(', ')})`;
}

/** Discovers the companion the CLI would use from `cwd`, and says why. */
export async function discoverCompanion(options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const dir = discoveryDirectory(options.tmpdir);
  const ideProcess = options.ideProcess ?? (await findIdeProcess({ env }));
  const host = companionHost(env, options.exists);
  const envPort = env[ENV.SERVER_PORT] || undefined;
  const reasons: string[] = [];
  let realCwd = cwd;
  try {
    realCwd = resolveToRealPath(cwd, cwd);
  } catch {
    // Keep the resolved cwd; checkWorkspace reports the failure.
  }
  reasons.push(`IDE process: PID ${ideProcess.pid} (${ideProcess.source === 'env' ? `from ${ENV.IDE_PID}` : 'from the process tree'})`);

  const files: DiscoveryFileCandidate[] = [];
  let chosen: DiscoveryFileCandidate | undefined;
  let chosenBecause = '';
  let dirError: string | undefined;

  const legacyPath = path.join(dir, `${DISCOVERY_FILE_PREFIX}${ideProcess.pid}.json`);
  if (fs.existsSync(legacyPath)) {
    const legacy = inspectFile(legacyPath, ideProcess.pid, true, ideProcess.pid, envPort, cwd);
    legacy.rank = 0;
    files.push(legacy);
    if (legacy.config) {
      chosen = legacy;
      chosenBecause = `legacy file ${legacy.fileName} names the IDE PID: the CLI uses it before any other`;
    }
  }

  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    dirError = `cannot list ${dir}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  }
  const modern = names
    .flatMap((name) => {
      const parsed = parseDiscoveryFileName(name);
      return parsed ? [inspectFile(path.join(dir, name), parsed.pid, false, ideProcess.pid, envPort, cwd)] : [];
    })
    .sort((a, b) => cliOrder(a, b, ideProcess.pid));
  modern.forEach((c, i) => (c.rank = i));
  files.push(...modern);

  if (!chosen) {
    const parsed = modern.filter((c) => c.config);
    const matching = parsed.filter((c) => c.workspace?.ok);
    if (modern.length === 0) {
      chosenBecause = dirError ? dirError : `no discovery files in ${dir}`;
    } else if (matching.length === 0) {
      const byPort = envPort ? parsed.find((c) => c.matchesEnvPort) : undefined;
      chosen = byPort ?? parsed[0];
      chosenBecause = chosen
        ? `no file's workspace contains ${realCwd}; the CLI still takes ${byPort ? `the one whose port matches ${ENV.SERVER_PORT}` : 'the first in its order'} and reports a directory mismatch`
        : 'no discovery file is usable (see each file)';
    } else if (matching.length === 1) {
      chosen = matching[0];
      chosenBecause = `the only file whose workspace contains ${realCwd}`;
    } else {
      const byPort = envPort ? matching.find((c) => c.matchesEnvPort) : undefined;
      chosen = byPort ?? matching[0];
      chosenBecause = byPort
        ? `${matching.length} files match the workspace; ${ENV.SERVER_PORT}=${envPort} picks this one`
        : `${matching.length} files match the workspace; first in the CLI's order (IDE PID, then live, then highest PID)`;
    }
  }
  for (const c of files) {
    const verdict = c === chosen ? 'CHOSEN' : c.unusable ? `skipped: ${c.unusable}` : c.workspace?.ok ? 'matches, not chosen' : 'workspace mismatch';
    reasons.push(`file ${describeFile(c)}: ${verdict}`);
  }
  if (chosen) reasons.push(`chosen ${chosen.fileName}: ${chosenBecause}`);
  else reasons.push(chosenBecause);

  const config = chosen?.config;
  const fileToken = typeof config?.['authToken'] === 'string' ? (config['authToken'] as string) : undefined;
  const authToken = fileToken ?? env[ENV.AUTH_TOKEN];
  const tokenSource = fileToken !== undefined ? 'file' : env[ENV.AUTH_TOKEN] !== undefined ? 'env' : undefined;
  const fileWorkspace = config?.['workspacePath'];
  const workspacePath = (fileWorkspace ?? env[ENV.WORKSPACE_PATH]) as string | undefined;
  const workspaceSource = fileWorkspace !== undefined ? 'file' : env[ENV.WORKSPACE_PATH] !== undefined ? 'env' : undefined;
  const workspace = checkWorkspace(workspacePath, cwd);
  const ideInfo = chosen?.ideInfo;
  const ide = detectIdeAsGeminiCli(env, ideProcess.command, config?.['ideInfo'] as Partial<IdeInfo> | undefined);

  const targets: ConnectionTarget[] = [];
  let problem: string | undefined;
  const knownPorts = options.wellKnownPorts === false ? [] : Array.isArray(options.wellKnownPorts) ? options.wellKnownPorts : WELL_KNOWN_PORTS;
  // Only with a token from the env and no discovery file: a file's port is authoritative, and its
  // token must not travel to whatever else listens on 3000 or 8080.
  const wellKnown = knownPorts.length > 0 && !!authToken && tokenSource === 'env' && !chosen;
  if (!workspace.ok && workspacePath === undefined && wellKnown) {
    // The CLI stops here; we still probe the well-known ports, which must prove they are companions.
    reasons.push(`no workspace known (no file, no ${ENV.WORKSPACE_PATH}): the real CLI would stop; trying the well-known ports with the token from ${tokenSource}`);
    for (const port of knownPorts) {
      targets.push({ kind: 'http', source: 'well-known-port', host: host.host, port, authToken, requireIdentification: true });
    }
  } else if (!workspace.ok) {
    problem = workspace.error;
    reasons.push(`workspace check failed: ${workspace.error}`);
  } else {
    reasons.push(`workspace ${workspaceSource === 'file' ? 'from the file' : `from ${ENV.WORKSPACE_PATH}`} contains ${realCwd}`);
    if (chosen && config) {
      if (config['port']) {
        const port = Number.parseInt(String(config['port']), 10);
        if (port > 0 && port <= 65535) {
          targets.push({ kind: 'http', source: 'file', host: host.host, port, authToken, file: chosen.path, requireIdentification: false });
        } else reasons.push(`the file's port ${JSON.stringify(config['port'])} is not a valid port: skipped`);
      }
      const stdio = config['stdio'] as { command?: unknown; args?: unknown } | undefined;
      if (stdio && typeof stdio === 'object' && typeof stdio.command === 'string') {
        const args = Array.isArray(stdio.args) ? stdio.args.map(String) : [];
        targets.push({ kind: 'stdio', source: 'file', command: stdio.command, args, file: chosen.path, requireIdentification: false });
      }
    }
    if (envPort) {
      const port = Number.parseInt(envPort, 10);
      if (port > 0 && port <= 65535) targets.push({ kind: 'http', source: 'env', host: host.host, port, authToken, requireIdentification: false });
      else reasons.push(`${ENV.SERVER_PORT}=${JSON.stringify(envPort)} is not a valid port: skipped`);
    }
    const stdioCommand = env[ENV.STDIO_COMMAND];
    if (stdioCommand) {
      let args: string[] = [];
      const rawArgs = env[ENV.STDIO_ARGS];
      if (rawArgs) {
        try {
          const parsed: unknown = JSON.parse(rawArgs);
          if (Array.isArray(parsed)) args = parsed.map(String);
          else reasons.push(`${ENV.STDIO_ARGS} must be a JSON array: ignored`);
        } catch {
          reasons.push(`${ENV.STDIO_ARGS} is not JSON: ignored`);
        }
      }
      targets.push({ kind: 'stdio', source: 'env', command: stdioCommand, args, requireIdentification: false });
    }
    if (wellKnown) {
      for (const port of knownPorts) {
        if (!targets.some((t) => t.kind === 'http' && t.port === port)) {
          targets.push({ kind: 'http', source: 'well-known-port', host: host.host, port, authToken, requireIdentification: true });
        }
      }
    }
    if (targets.length === 0) {
      problem = `no port or stdio command to dial: no usable discovery file and no ${ENV.SERVER_PORT}`;
    }
    reasons.push(
      targets.length > 0
        ? `will dial, in order: ${targets.map((t) => (t.kind === 'http' ? `${t.host}:${t.port} (${t.source})` : `stdio '${t.command}' (${t.source})`)).join(', ')}`
        : `nothing to dial: ${problem}`,
    );
  }
  return {
    cwd,
    realCwd,
    dir,
    dirError,
    ideProcess,
    host,
    files,
    chosen,
    chosenBecause,
    authToken,
    tokenSource,
    workspacePath,
    workspaceSource,
    workspace,
    ide,
    ideInfo,
    problem,
    targets,
    reasons,
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
