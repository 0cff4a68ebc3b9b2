/** A private tmux server (`-L name -f /dev/null`) to run an interactive program and read its screen. */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { waitFor } from './wait.js';

export class Tmux {
  readonly socket = `idec-${randomBytes(4).toString('hex')}`;

  constructor(readonly width = 200, readonly height = 50) {}

  private tmux(args: string[]): string {
    const r = spawnSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr}`);
    return r.stdout;
  }

  /** Starts `command` (a shell string) in a detached session with `env` and `cwd`. */
  start(command: string, options: { cwd: string; env?: Record<string, string> }): void {
    const envArgs = Object.entries(options.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    this.tmux(['new-session', '-d', '-s', 'main', '-x', String(this.width), '-y', String(this.height), '-c', options.cwd, ...envArgs, command]);
    this.tmux(['set-option', '-t', 'main', 'remain-on-exit', 'on']);
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

  async waitForText(pattern: RegExp | string, timeoutMs = 30_000): Promise<string> {
    return waitFor(
      () => {
        const s = this.screen();
        return (typeof pattern === 'string' ? s.includes(pattern) : pattern.test(s)) ? s : undefined;
      },
      `screen to show ${String(pattern)}`,
      timeoutMs,
      100,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${this.screen()}`);
    });
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}
