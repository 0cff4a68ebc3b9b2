/**
 * What removes a companion's files when its process is killed with -9 (an
 * out-of-memory kill, a crash): no handler of its own can run then. A tiny
 * `sh` (about a megabyte, not a second Node) waits on a pipe from the
 * companion; the pipe ends only when the companion's process does, however it
 * ends, and the shell then removes the files it was given. Used where no
 * editor cleans up after the companion's process: `serve`, `bridge` (Vim's,
 * Emacs's and scripts' host), VS Code's extension host and Neovim's host.
 * The same waits beside the program "Gemini CLI: Run" starts in VS Code, to
 * end it with the extension host. Not on Windows.
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';

export interface Reaper {
  /** The companion stopped cleanly and removed its files: the reaper goes without removing anything. */
  dispose(): void;
}

export interface SessionReaper extends Reaper {
  /** Ends the session now, as when this process ends. */
  end(): void;
}

/** Starts a reaper for `paths` (files, or private folders removed whole). Undefined where it cannot run. */
export async function startReaper(paths: readonly string[]): Promise<Reaper | undefined> {
  if (paths.length === 0) return undefined;
  // The paths are arguments, never part of the script.
  return watch('read -r line || rm -rf -- "$@"', paths);
}

/**
 * Starts a reaper that ends the session `sid` leads (a terminal's program and
 * everything started in that terminal: SIGTERM) when this process ends,
 * however it ends: an agent the editor started must not outlive it (Ctrl-C
 * on code-server ends its extension hosts before they can). Dispose it when
 * the program ended by itself, before its PID can be another's.
 */
export async function startSessionReaper(sid: number): Promise<SessionReaper | undefined> {
  if (!Number.isSafeInteger(sid) || sid <= 1) return undefined;
  // pkill -s takes every process of the session (the program may have put its own in groups of their own); without procps, the group.
  return watch('read -r line || { pkill -TERM -s "$1" || kill -TERM "-$1" "$1"; } 2>/dev/null', [String(sid)]);
}

/** `script` run by a detached `sh`: its `read` sees end of input when this process ends (or `end()`), a line on `dispose()`. */
async function watch(script: string, args: readonly string[]): Promise<SessionReaper | undefined> {
  if (process.platform === 'win32') return undefined;
  let child: ChildProcess;
  try {
    // Loaded here, and by import(): it works in every bundle (ESM, and the VS Code extension's CommonJS).
    const { spawn } = await import('node:child_process');
    // `read` returns at end of input: when every writer of the pipe, the companion, is gone.
    child = spawn('/bin/sh', ['-c', script, 'ide-companion-reaper', ...args], {
      stdio: ['pipe', 'ignore', 'ignore'],
      // Its own session: a Ctrl-C that ends the editor does not end the reaper.
      detached: true,
    });
  } catch {
    return undefined;
  }
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  // Neither the child nor its pipe keeps the companion's process alive.
  child.unref();
  (child.stdin as unknown as { _handle?: { unref?: () => void } } | null)?._handle?.unref?.();
  const handle = (child.stdin as unknown as { _handle?: { fd?: number } } | null)?._handle;
  return {
    dispose() {
      // A line (not end of input): the shell exits without removing anything. Written at once: the
      // process may exit right after a stop, and a reaper seeing end of input then would remove files
      // that, named by port, may by then be another companion's.
      try {
        if (typeof handle?.fd === 'number' && handle.fd >= 0) fs.writeSync(handle.fd, 'done\n');
        else child.stdin?.write('done\n');
      } catch {
        // The reaper is gone already.
      }
      child.stdin?.destroy();
    },
    end() {
      // End of input, as when this process ends.
      child.stdin?.destroy();
    },
  };
}
