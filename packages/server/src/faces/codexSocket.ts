/**
 * Codex's per-user IPC socket on disk: where it is, the same-user checks the
 * CLI makes (its folder a directory of ours, not group/world writable; the
 * socket a socket of ours) and ours besides (shared/privateSocket.ts: Codex's
 * home private, no folder on the way another user could swap), and taking it
 * over when nobody listens. Node has no SO_PEERCRED, so where the CLI checks
 * its peer's uid we rely on the folder (0700 when we make it) and the socket
 * (0600): no other user reaches it (docs/agents.md).
 */
import * as fs from 'node:fs';
import type * as net from 'node:net';
import * as path from 'node:path';
import { socketFolderProblem } from '@ide-companion/shared/privateSocket';

/** Why the socket's folder or file is not used: said in the log, Codex CLI alone is not served. */
export class CodexSocketRefused extends Error {}

const currentUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

export { codexSocketPath } from '@ide-companion/shared/agentPaths';

/**
 * The folder as the CLI checks it (a directory, not a link, of ours, not writable by group or others), and more
 * (shared/privateSocket.ts): Codex's home above it not writable by others either (its config and credentials are
 * there), nor any folder on the way one another user could swap (a CODEX_HOME that is a link into another user's
 * 0777 folder). `legacy`: TMPDIR/codex-ipc, whose parent is TMPDIR. Throws CodexSocketRefused: said in the log and in the health report, and nothing is bound there.
 */
export function checkCodexSocketDir(dir: string, home: 'home' | 'legacy' = 'home'): void {
  // The legacy folder (TMPDIR/codex-ipc) is in the shared TMPDIR: its parent is checked as the way (sticky /tmp is fine).
  const problem = socketFolderProblem(dir, { privateParent: home === 'home' });
  if (problem) throw new CodexSocketRefused(`${problem.reason}; Codex CLI's socket is not served there`);
}

/** The socket's folder, made 0700 when missing (its parent, Codex's home, too: it is made only for a user who has or named Codex). */
export function ensureCodexSocketDir(socketPath: string): void {
  const dir = path.dirname(socketPath);
  // The way checked before anything is made on it: nothing of ours goes into a folder another user can swap.
  const before = socketFolderProblem(dir, { privateParent: true });
  if (before && !before.absent) throw new CodexSocketRefused(`${before.reason}; Codex CLI's socket is not served there`);
  try {
    fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  checkCodexSocketDir(dir);
}

/**
 * What is at the socket's path: nothing, a socket of ours, or something we
 * refuse (a file, a link, another user's socket). Throws CodexSocketRefused.
 */
export function socketAt(socketPath: string): 'none' | 'ours' {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(socketPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw err;
  }
  const uid = currentUid();
  if (!st.isSocket()) throw new CodexSocketRefused(`${socketPath} is not a socket; Codex CLI's socket is not served`);
  if (uid !== undefined && st.uid !== uid)
    throw new CodexSocketRefused(`${socketPath} belongs to another user (uid ${st.uid}); Codex CLI's socket is not served`);
  return 'ours';
}

/**
 * Binds `server` at `socketPath` (0600). `stale`: the caller's connect was
 * refused (a socket of ours nobody listens on, as a killed router leaves),
 * which is removed first; otherwise nothing is removed, so of companions
 * starting at once the first to bind wins and the others get 'in-use'
 * (connect to it). Resolves the socket's inode (so only that one is removed
 * on stop), or 'in-use'.
 */
export async function bindCodexSocket(server: net.Server, socketPath: string, stale: boolean): Promise<number | 'in-use'> {
  // Two replacing one stale socket at once can still both bind (one removes the other's): the loser sees its inode gone and steps down (codexFace).
  if (stale && socketAt(socketPath) === 'ours') fs.rmSync(socketPath, { force: true });
  const bound = await new Promise<boolean>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => (err.code === 'EADDRINUSE' ? resolve(false) : reject(err));
    server.once('error', onError);
    server.listen(socketPath, () => {
      server.off('error', onError);
      resolve(true);
    });
  });
  if (!bound) return 'in-use';
  fs.chmodSync(socketPath, 0o600);
  return fs.lstatSync(socketPath).ino;
}

/** Removes the socket we bound, only if it is still that one (a later router's is left). */
export function removeCodexSocket(socketPath: string, ino: number): void {
  try {
    if (fs.lstatSync(socketPath).ino === ino) fs.rmSync(socketPath, { force: true });
  } catch {
    // Gone already.
  }
}
