/**
 * The one reader of discovery files, used by discovery, `list`, `doctor` and
 * `check`: what the name says, who owns the file and how it is protected, and
 * its content read the way the real CLI reads it (open through links, the
 * owner taken from the opened file, any JSON object accepted), plus our
 * stricter contract verdict. Never throws: every problem becomes a reason.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DISCOVERY_FILE_PREFIX, discoveryDir, parseDiscoveryFileName, type DiscoveryFile, type IdeInfo } from '@ide-companion/protocol';
import { readRegularFileSync } from '@ide-companion/shared/regularFile';
import { checkAgainstContract } from './discoveryContract.js';

/** The legacy name `gemini-ide-server-<PID>.json`, still read first by the CLI. */
const LEGACY_NAME = /^gemini-ide-server-(\d+)\.json$/;
/** A discovery file is a few hundred bytes; more is not one (and /dev/zero must not fill memory). */
export const MAX_DISCOVERY_FILE_BYTES = 1024 * 1024;

export function discoveryDirectory(tmpdir: string = os.tmpdir()): string {
  return discoveryDir(tmpdir, path);
}

export interface DiscoveryFileName {
  pid: number;
  /** Undefined for the legacy name, which names no port. */
  port?: number;
  legacy: boolean;
}

/** The PID and port a discovery file name carries, or undefined for any other name. */
export function parseAnyDiscoveryFileName(name: string): DiscoveryFileName | undefined {
  const modern = parseDiscoveryFileName(name);
  if (modern) return { ...modern, legacy: false };
  const legacy = LEGACY_NAME.exec(name);
  return legacy ? { pid: Number(legacy[1]), legacy: true } : undefined;
}

export function legacyDiscoveryFileName(pid: number): string {
  return `${DISCOVERY_FILE_PREFIX}${pid}.json`;
}

export interface DiscoveryFileRead {
  path: string;
  fileName: string;
  name?: DiscoveryFileName;
  /** `lstat` of the path itself (a link is not followed); undefined when it does not exist. */
  entry?: { isSymbolicLink: boolean; isFile: boolean; uid: number; mode: number };
  /** Owner of the file opened (through a link, as the CLI opens it). */
  ownerUid?: number;
  ownedByUser: boolean;
  /** The content when it is a JSON object, whoever owns the file. */
  json?: Record<string, unknown>;
  /** Why there is no `json`: unreadable, not a regular file, too large, not JSON, not an object. */
  readError?: string;
  /** Why the real CLI skips this file (`readError`, or another user's file); undefined when it reads it. */
  cliSkips?: string;
  /** The content as the contract types it, or what is wrong with it (the CLI may still use it). */
  contract?: { ok: true; file: DiscoveryFile } | { ok: false; error: string };
  /** The port the CLI dials: the content's `port` when truthy, parsed as the CLI parses it. */
  port?: number;
  /** A `port` that is present but not a usable port, as written. */
  invalidPort?: unknown;
  workspacePath?: string;
  /** A non-empty token. */
  authToken?: string;
  ideInfo?: IdeInfo;
}

function currentUid(): number | undefined {
  return process.getuid?.();
}

function code(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

/** Reads one discovery file. */
export function readDiscoveryFile(file: string): DiscoveryFileRead {
  const fileName = path.basename(file);
  const read: DiscoveryFileRead = { path: file, fileName, name: parseAnyDiscoveryFileName(fileName), ownedByUser: false };
  try {
    const st = fs.lstatSync(file);
    read.entry = { isSymbolicLink: st.isSymbolicLink(), isFile: st.isFile(), uid: st.uid, mode: st.mode & 0o777 };
  } catch {
    // Reported below when the open fails too.
  }
  const text = readText(file, read);
  if (text !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      read.readError = `not JSON: ${(err as Error).message}`;
    }
    if (read.readError === undefined) {
      if (typeof json === 'object' && json !== null) read.json = json as Record<string, unknown>;
      else read.readError = 'not a JSON object';
    }
  }
  const uid = currentUid();
  // The CLI checks the owner before it reads anything.
  read.cliSkips =
    read.ownerUid !== undefined && !read.ownedByUser ? `owned by uid ${read.ownerUid}, not by you (uid ${uid}): ignored, as the CLI does` : read.readError;
  if (read.json) describeContent(read, read.json);
  return read;
}

/** Read as a regular file of at most MAX_DISCOVERY_FILE_BYTES (a FIFO must not hang us), its owner noted. */
function readText(file: string, read: DiscoveryFileRead): string | undefined {
  const r = readRegularFileSync(file, MAX_DISCOVERY_FILE_BYTES);
  if (r.stat) {
    const uid = currentUid();
    read.ownerUid = r.stat.uid;
    read.ownedByUser = uid === undefined || r.stat.uid === uid;
  }
  if ('text' in r) return r.text;
  read.readError = !r.stat
    ? `cannot read: ${r.refused}`
    : !r.stat.isFile()
      ? 'cannot read: not a regular file'
      : `cannot read: ${r.stat.size} bytes, more than a discovery file holds`;
  return undefined;
}

function describeContent(read: DiscoveryFileRead, json: Record<string, unknown>): void {
  const checked = checkAgainstContract(json);
  if (checked.contract) read.contract = checked.contract;
  const rawPort = json['port'];
  if (rawPort) {
    // The CLI's own test: any truthy port, parsed as an integer.
    const port = Number.parseInt(String(rawPort), 10);
    if (port > 0 && port <= 65535) read.port = port;
    else read.invalidPort = rawPort;
  }
  if (typeof json['workspacePath'] === 'string') read.workspacePath = json['workspacePath'];
  if (typeof json['authToken'] === 'string' && json['authToken'].length > 0) read.authToken = json['authToken'];
  if (checked.ideInfo) read.ideInfo = checked.ideInfo;
}

export interface DiscoveryDirListing {
  dir: string;
  /** Discovery file names (modern and legacy) with what they say, in the directory's order (the CLI's input order). */
  files: Array<{ path: string; fileName: string; name: DiscoveryFileName }>;
  /** Why the directory could not be listed. */
  error?: string;
}

/** The discovery files in `dir`, by name only (nothing is read). */
export function listDiscoveryDir(dir: string): DiscoveryDirListing {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    return { dir, files: [], error: `cannot list ${dir}: ${code(err)}` };
  }
  const files = names.flatMap((fileName) => {
    const name = parseAnyDiscoveryFileName(fileName);
    return name ? [{ path: path.join(dir, fileName), fileName, name }] : [];
  });
  return { dir, files };
}

/** The first discovery file of yours in `dir` whose name carries `port`. */
export function findDiscoveryFileForPort(dir: string, port: number): DiscoveryFileRead | undefined {
  const files = listDiscoveryDir(dir).files.sort((a, b) => (a.fileName < b.fileName ? -1 : 1));
  for (const f of files) {
    if (f.name.port !== port) continue;
    const read = readDiscoveryFile(f.path);
    if (read.entry && (currentUid() === undefined || read.entry.uid === currentUid())) return read;
  }
  return undefined;
}
