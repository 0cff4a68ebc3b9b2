/**
 * Which companion to check: --port/--token, --file, or the one the CLI would
 * choose for the current directory (discoverCompanion from @ide-companion/client).
 */
import * as path from 'node:path';
import { discoverCompanion, withOurInstallHint } from '@ide-companion/client/discovery';
import { discoveryDirectory, findDiscoveryFileForPort, readDiscoveryFile } from '@ide-companion/client/discoveryFiles';
import { splitWorkspacePath, type IdeInfo } from '@ide-companion/protocol';
import { UsageError } from '@ide-companion/command/commandSpec';

export interface TargetOptions {
  port?: number;
  token?: string;
  /** A discovery file to check and take port and token from. */
  file?: string;
  /** Base of gemini/ide; default os.tmpdir(). */
  tmpdir?: string;
  /** For discovery without options. */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface Target {
  port: number;
  token: string;
  tokenFrom: 'option' | 'file' | 'discovery';
  /** The discovery file to check, when one is known. */
  discoveryFile?: string;
  /** The directory the real CLI reads discovery files from. */
  discoveryDir: string;
  /** The editor, as its discovery file names it. */
  ide?: IdeInfo;
}

export async function resolveTarget(options: TargetOptions): Promise<Target> {
  const target = await resolvePortAndToken(options);
  return target.discoveryFile ? { ...target, ide: readDiscoveryFile(target.discoveryFile).ideInfo } : target;
}

/** The companion's first workspace folder as its discovery file names it; undefined without a file or a folder in it. */
export function namedFirstRoot(target: Target): string | undefined {
  const workspacePath = target.discoveryFile ? readDiscoveryFile(target.discoveryFile).workspacePath : undefined;
  return workspacePath ? splitWorkspacePath(workspacePath, path.delimiter)[0] : undefined;
}

async function resolvePortAndToken(options: TargetOptions): Promise<Target> {
  const discoveryDir = discoveryDirectory(options.tmpdir);
  if (options.file !== undefined) {
    const file = path.resolve(options.file);
    const content = readPortAndToken(file);
    const port = options.port ?? content.port;
    const token = options.token ?? content.authToken;
    if (port === undefined) throw new UsageError(`${file} names no numeric port; pass --port`);
    if (token === undefined) throw new UsageError(`${file} holds no authToken; pass --token`);
    return { port, token, tokenFrom: options.token !== undefined ? 'option' : 'file', discoveryFile: file, discoveryDir };
  }
  if (options.port !== undefined) {
    const file = findFileForPort(discoveryDir, options.port);
    const token = options.token ?? (file ? readPortAndToken(file).authToken : undefined);
    if (token === undefined) throw new UsageError(`no token for port ${options.port}: pass --token (no discovery file in ${discoveryDir} names that port)`);
    return { port: options.port, token, tokenFrom: options.token !== undefined ? 'option' : 'file', discoveryFile: file, discoveryDir };
  }
  if (options.token !== undefined) throw new UsageError('--token needs --port');
  return discover(options, discoveryDir);
}

/** Our own discovery file naming `port` in `dir`, if any. */
function findFileForPort(dir: string, port: number): string | undefined {
  return findDiscoveryFileForPort(dir, port)?.path;
}

/** The numeric port and non-empty token a file names, whatever else is wrong with it (discovery.* judges that). */
function readPortAndToken(file: string): { port?: number; authToken?: string } {
  const read = readDiscoveryFile(file);
  if (read.json === undefined && read.readError?.startsWith('cannot read')) throw new UsageError(`${file}: ${read.readError}`);
  const port = read.json?.['port'];
  return { port: typeof port === 'number' ? port : undefined, authToken: read.authToken };
}

async function discover(options: TargetOptions, discoveryDir: string): Promise<Target> {
  // The well-known ports are a guess; check only what the CLI would really dial.
  const found = await discoverCompanion({ cwd: options.cwd, env: options.env, tmpdir: options.tmpdir, wellKnownPorts: false });
  const http = found.targets.find((t) => t.kind === 'http');
  if (!http || http.kind !== 'http') {
    const stdio = found.targets.some((t) => t.kind === 'stdio');
    // The CLI's own words name its VS Code installer (`/ide install`): the advice that works here instead, one period each.
    const why = stdio
      ? 'the companion found speaks stdio, which check does not test.'
      : withOurInstallHint(found.problem ?? found.chosenBecause ?? 'no companion found.').trim();
    throw new UsageError(`no companion to check for this directory: ${why.endsWith('.') ? why : `${why}.`} Or pass --port and --token, or --file.`);
  }
  if (!http.authToken) throw new UsageError(`the companion on port ${http.port} came without a token: pass --token`);
  return {
    port: http.port,
    token: http.authToken,
    tokenFrom: 'discovery',
    discoveryFile: http.file ?? findFileForPort(discoveryDir, http.port),
    discoveryDir,
  };
}
