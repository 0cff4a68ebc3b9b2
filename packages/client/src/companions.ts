/**
 * Every companion on this machine, from the discovery directory: the IDE, PID,
 * port, workspace, and whether it is alive (PID running, port accepting).
 * Unlike discovery this ignores the cwd and shows other users' files too.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { IdeInfoSchema, LOOPBACK_HOST, splitWorkspacePath, type IdeInfo } from '@ide-companion/protocol';
import { discoveryDirectory, isPidAlive } from './discovery.js';

const FILE_PATTERN = /^gemini-ide-server-(\d+)(?:-(\d+))?\.json$/;

export interface CompanionListing {
  file: string;
  pid: number;
  port?: number;
  ide?: IdeInfo;
  workspacePath?: string;
  roots: string[];
  ownerUid?: number;
  ownedByUser: boolean;
  pidAlive: boolean;
  /** Something accepts TCP connections on the port (undefined: not checked or no port). */
  portOpen?: boolean;
  /** A problem with the file itself. */
  problem?: string;
}

/** True when a TCP connection to host:port succeeds within timeoutMs. */
export function portAccepts(port: number, host = LOOPBACK_HOST, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function listCompanions(options: { tmpdir?: string; probePorts?: boolean; host?: string } = {}): Promise<CompanionListing[]> {
  const dir = discoveryDirectory(options.tmpdir);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => FILE_PATTERN.test(n));
  } catch {
    return [];
  }
  const listings = names.map((name): CompanionListing => {
    const match = FILE_PATTERN.exec(name)!;
    const file = path.join(dir, name);
    const pid = Number(match[1]);
    const listing: CompanionListing = { file, pid, roots: [], ownedByUser: false, pidAlive: isPidAlive(pid) };
    try {
      const stat = fs.statSync(file);
      listing.ownerUid = stat.uid;
      listing.ownedByUser = !process.getuid || stat.uid === process.getuid();
      const json: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (typeof json !== 'object' || json === null) throw new Error('not a JSON object');
      const o = json as Record<string, unknown>;
      if (typeof o['port'] === 'number') listing.port = o['port'];
      else if (match[2]) listing.port = Number(match[2]);
      if (typeof o['workspacePath'] === 'string') {
        listing.workspacePath = o['workspacePath'];
        listing.roots = splitWorkspacePath(o['workspacePath'], path.delimiter);
      }
      const ide = IdeInfoSchema.safeParse(o['ideInfo']);
      if (ide.success) listing.ide = ide.data;
    } catch (err) {
      listing.problem = (err as NodeJS.ErrnoException).code ? `cannot read (${(err as NodeJS.ErrnoException).code})` : (err as Error).message;
      if (match[2]) listing.port = Number(match[2]);
    }
    return listing;
  });
  if (options.probePorts ?? true) {
    await Promise.all(listings.map(async (l) => {
      if (l.port !== undefined) l.portOpen = await portAccepts(l.port, options.host);
    }));
  }
  return listings.sort((a, b) => b.pid - a.pid);
}
