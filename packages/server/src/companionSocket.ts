/**
 * The companion's Unix socket: the way in for a CLI that does not share our
 * loopback (a container, `gemini --sandbox`, an SSH session), through the
 * relay (`ide-companion connect`) that a mount or an `ssh -R` carries there.
 *
 *   <tmpdir>/ide-companion-<UID>/           0700, ours, not a link
 *       <PID>-<PORT>/                       0700: one companion (PID and PORT as in its discovery file)
 *           mcp.sock                        the socket, 0600: same handler, same token as the port
 *           token                           the bearer token, 0600, for the relay beside the socket
 *
 * The folder is what gets mounted: the socket and the token travel together,
 * and nothing else of ours does. A directory of a dead PID is swept at start,
 * like a discovery file.
 */
import * as fs from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';
import { ensurePrivateDirectory, isProcessAlive, sweepDeadPidEntries, writeFileAtomicPrivate } from './discoveryFile.js';

export const SOCKET_FILE_NAME = 'mcp.sock';
export const TOKEN_FILE_NAME = 'token';
/** The Host a client sends over the socket (curl --unix-socket and our relay send this). */
export const SOCKET_HOST = 'localhost';
/** sun_path is 108 bytes on Linux, 104 on macOS; a longer path cannot be bound. */
export const MAX_SOCKET_PATH_BYTES = 103;
const COMPANION_DIR_PATTERN = /^(\d+)-(\d+)$/;

const currentUid = (): number => (typeof process.getuid === 'function' ? process.getuid() : 0);

/** `<tmpdir>/ide-companion-<UID>`: the user's folder of our sockets in TMP. */
export function socketBaseDir(tmpdir: string): string {
  return path.join(tmpdir, `ide-companion-${currentUid()}`);
}

/** `<tmpdir>/ide-companion-<UID>`, created privately. */
export function ensureSocketBaseDir(tmpdir: string): string {
  const base = socketBaseDir(tmpdir);
  ensurePrivateDirectory(base);
  return base;
}

/** `server` listening on `socketPath`, the socket made 0600; its folder (0700, ours) keeps everyone else out meanwhile. */
export async function listenPrivately(server: http.Server, socketPath: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
}

/** Removes the folders of companions whose PID is gone. Returns their names. */
export function sweepStaleSocketDirs(base: string, isAlive: (pid: number) => boolean = isProcessAlive): string[] {
  return sweepDeadPidEntries(
    base,
    (name) => {
      const match = COMPANION_DIR_PATTERN.exec(name);
      return match ? Number(match[1]) : undefined;
    },
    isAlive,
  );
}

/** One companion's socket folder: created, listened on, removed. */
export class CompanionSocket {
  readonly dir: string;
  readonly socketPath: string;

  constructor(base: string, pid: number, port: number) {
    this.dir = path.join(base, `${pid}-${port}`);
    this.socketPath = path.join(this.dir, SOCKET_FILE_NAME);
  }

  /** Whether this path fits in a socket address; callers skip the socket (and say why) when not. */
  get pathFits(): boolean {
    return Buffer.byteLength(this.socketPath) <= MAX_SOCKET_PATH_BYTES;
  }

  /** Creates the folder and the token file, then listens; the socket is made 0600 before anyone is told of it. */
  async listen(server: http.Server, token: string): Promise<void> {
    // A folder left by an earlier companion with our PID and port (a PID reused): start clean.
    fs.rmSync(this.dir, { recursive: true, force: true });
    // The base again: the last other companion may have removed it, empty, since ensureSocketBaseDir.
    ensurePrivateDirectory(path.dirname(this.dir));
    ensurePrivateDirectory(this.dir);
    writeFileAtomicPrivate(path.join(this.dir, TOKEN_FILE_NAME), token);
    await listenPrivately(server, this.socketPath);
  }

  /** Synchronous, so exit handlers can call it. */
  removeSync(): void {
    try {
      fs.rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // Gone already.
    }
  }
}
