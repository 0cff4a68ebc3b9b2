/**
 * A private tmux server (`-L name -f /dev/null`) to run an interactive program
 * in a real terminal, type into it and read its screen.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { sleep } from './wait.js';

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}

/**
 * Whether any process of group `pgid` still runs. On Linux zombies do not count:
 * the container's init may take seconds to reap orphans, and kill(-pgid, 0)
 * succeeds on zombies.
 */
function groupRunning(pgid: number): boolean {
  if (!existsSync('/proc/self/stat')) return signalGroup(pgid, 0);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

/** The exit of `pid` when it is a zombie (exited, not yet reaped), from /proc; undefined while it runs or off Linux. */
function zombieExit(pid: number): { status?: number; signal?: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields from the 3rd (state) on, after "pid (comm) "; exit_code is the 52nd.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const code = Number(fields[52 - 3]);
  if (fields[0] !== 'Z' || !Number.isInteger(code)) return undefined;
  return code & 0x7f ? { signal: code & 0x7f } : { status: (code >> 8) & 0xff };
}

export class Tmux {
  readonly socket = `idec-${randomBytes(4).toString('hex')}`;

  constructor(
    readonly width = 200,
    readonly height = 50,
  ) {}

  private tmux(args: string[]): string {
    const r = spawnSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr}`);
    return r.stdout;
  }

  /**
   * Starts `command` (a shell string) in a detached session with `env` and `cwd`.
   * remain-on-exit is set before the command runs, so a program that exits at
   * once leaves its last screen (and "Pane is dead") to read.
   */
  start(command: string, options: { cwd: string; env?: Record<string, string> }): void {
    const envArgs = Object.entries(options.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    this.tmux([
      'start-server',
      ';',
      'set-option',
      '-g',
      'remain-on-exit',
      'on',
      ';',
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      String(this.width),
      '-y',
      String(this.height),
      '-c',
      options.cwd,
      ...envArgs,
      command,
    ]);
  }

  /** Types literal text. */
  type(text: string): void {
    this.tmux(['send-keys', '-t', 'main', '-l', text]);
  }

  /** Sends key names (Enter, Escape, C-c ...). */
  keys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', 'main', ...keys]);
  }

  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', 'main', '-S', '-200']);
  }

  /** PID of the process started in the pane (the leader of its process group), or undefined. */
  panePid(): number | undefined {
    const r = spawnSync('tmux', ['-L', this.socket, 'display-message', '-p', '-t', 'main', '#{pane_pid}'], { encoding: 'utf8' });
    const pid = Number.parseInt(r.stdout.trim(), 10);
    return r.status === 0 && pid > 1 ? pid : undefined;
  }

  /**
   * Waits for the screen to show `pattern`; fails with the screen on timeout,
   * and at once when the pane's program has exited (a program that quit at
   * start-up should not cost the whole timeout).
   */
  async waitForText(pattern: RegExp | string, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen)) return screen;
      if (/^Pane is dead/m.test(screen)) throw new Error(`the program exited before the screen showed ${String(pattern)}\n--- screen ---\n${screen}`);
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for the screen to show ${String(pattern)}\n--- screen ---\n${screen}`);
      await sleep(100);
    }
  }

  /**
   * Waits for the pane's program to exit and returns its exit status; fails on
   * timeout (with the screen) or when a signal ended it. tmux alone cannot be
   * trusted for it: built with libutempter (Debian's), it removes the pane's
   * utmp record when the terminal closes by forking a helper with SIGCHLD set
   * to SIG_DFL, and the program's SIGCHLD landing in that window is dropped:
   * tmux never reaps it, the pane never shows "Pane is dead (status N)". So
   * the program's own state in /proc is read as well: a zombie has exited,
   * and field 52 of its stat holds its wait status (Linux >= 3.5).
   */
  async waitForExit(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    const pid = this.panePid();
    for (;;) {
      const [dead, status, signal] = this.tmux(['display-message', '-p', '-t', 'main', '#{pane_dead} #{pane_dead_status} #{pane_dead_signal}'])
        .trim()
        .split(' ');
      // tmux calls a pane dead once its terminal closed, with a status only after it reaped the program.
      let exit: { status?: number; signal?: number } | undefined;
      if (dead === '1' && status) exit = { status: Number(status) };
      else if (dead === '1' && signal) exit = { signal: Number(signal) };
      else if (pid !== undefined) exit = zombieExit(pid);
      if (exit?.status !== undefined) return exit.status;
      if (exit?.signal !== undefined) throw new Error(`the program was ended by signal ${exit.signal}\n--- screen ---\n${this.screen()}`);
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for the program to exit\n--- screen ---\n${this.screen()}`);
      await sleep(100);
    }
  }

  /**
   * Types `text` into the agent's input box and submits it: Enter once the
   * screen shows the text, and a little later, past the TUI's paste detection
   * (an Enter read right after typed characters is taken as a newline).
   */
  async submit(text: string, timeoutMs = 30_000): Promise<void> {
    this.type(text);
    await this.waitForText(text, timeoutMs);
    await sleep(300);
    this.keys('Enter');
  }

  /**
   * Ends the pane's whole process group (SIGTERM, SIGKILL after `graceMs`), then
   * the tmux server. Killing the server alone is not enough for `gemini`: it
   * survives the SIGHUP of a dying tmux server and would live on, orphaned.
   */
  async stop(graceMs = 5_000): Promise<void> {
    // Every pane's: a program may have opened more (Kakoune's `terminal` runs the agent in a pane of its own).
    const pids = this.panePids().filter((pid) => signalGroup(pid, 'SIGTERM'));
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && pids.some((pid) => groupRunning(pid))) await sleep(50);
    for (const pid of pids) signalGroup(pid, 'SIGKILL');
    this.kill();
  }

  /** The process of every pane of the server (its group's leader). */
  panePids(): number[] {
    const r = spawnSync('tmux', ['-L', this.socket, 'list-panes', '-a', '-F', '#{pane_pid}'], { encoding: 'utf8' });
    if (r.status !== 0) return [];
    return r.stdout
      .split('\n')
      .map((line) => Number.parseInt(line.trim(), 10))
      .filter((pid) => pid > 1);
  }

  /** Kills the tmux server (and with it, the pane's terminal). */
  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}
