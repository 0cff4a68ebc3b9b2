/**
 * The real Gemini CLI IDE client (`IdeClient` from the pinned
 * @google/gemini-cli-core) in a child process, driven over JSON lines
 * (ide-client-driver.mjs). IdeClient is a singleton that reads cwd,
 * os.tmpdir() and env on first use, so each client gets its own process.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { GeminiCliInstall } from './geminiCli.js';
import { STRAY_IDE_ENV } from './geminiHome.js';
import { waitFor } from './wait.js';

// Compiled to dist/src/: the driver stays in the source tree.
const DRIVER = fileURLToPath(new URL('../../src/ide-client-driver.mjs', import.meta.url));

export type DriverEvent = { event: string; [key: string]: any };

/**
 * The env `gemini` would have in an IDE's terminal: nothing inherited that
 * steers it elsewhere, TMPDIR (where it looks for gemini/ide/*.json), the IDE's
 * pid, and REMOTE_CONTAINERS (this machine is a container: without it the client
 * dials host.docker.internal).
 */
export function ideTerminalEnv(options: { tmpdir: string; idePid: number }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of STRAY_IDE_ENV) delete env[name];
  for (const name of Object.keys(env)) if (name.startsWith('GEMINI_CLI_IDE_')) delete env[name];
  return { ...env, TMPDIR: options.tmpdir, GEMINI_CLI_IDE_PID: String(options.idePid), REMOTE_CONTAINERS: '1' };
}

/** The GEMINI_CLI_IDE_* variables in `file`, an `env > FILE` dump from an editor's terminal: what a CLI started there is told. */
export function ideEnvInFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (line.startsWith('GEMINI_CLI_IDE_') && eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** One real IdeClient in a child process; `events` is everything it reported, in order. */
export class RealIdeClient {
  readonly events: DriverEvent[] = [];
  private stderr = '';

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly timeoutMs: number,
  ) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      try {
        this.events.push(JSON.parse(line) as DriverEvent);
      } catch {
        this.stderr += `[stdout, not JSON] ${line}\n`;
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
  }

  /** Starts the driver in `cwd` with exactly `env` (see ideTerminalEnv); `timeoutMs` is the default for every wait. */
  static async start(cli: GeminiCliInstall, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<RealIdeClient> {
    const child = spawn(process.execPath, [DRIVER, cli.coreDir], { cwd: options.cwd, env: options.env, stdio: 'pipe' });
    const client = new RealIdeClient(child, options.timeoutMs ?? 60_000);
    await client.waitFor((e) => e.event === 'ready', 'the driver to load IdeClient');
    return client;
  }

  send(command: Record<string, unknown>): void {
    this.child.stdin.write(JSON.stringify(command) + '\n');
  }

  /** The first event matching; fails with every event and the driver's stderr on timeout, or at once if the driver exited. */
  waitFor(match: (e: DriverEvent) => boolean, what: string, timeoutMs = this.timeoutMs): Promise<DriverEvent> {
    return waitFor(
      () => {
        if (this.child.exitCode !== null) throw new Error(`driver exited (${this.child.exitCode})`);
        return this.events.find(match);
      },
      what,
      timeoutMs,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- events ---\n${this.events.map((e) => JSON.stringify(e)).join('\n')}\n--- stderr ---\n${this.stderr}`);
    });
  }

  /** connect(), then the status it ended in. */
  async connect(): Promise<DriverEvent> {
    this.send({ cmd: 'connect' });
    return this.waitFor((e) => e.event === 'status' && e['afterConnect'] === true, 'connect() to return');
  }

  async diffResult(filePath: string): Promise<DriverEvent> {
    return this.waitFor((e) => e.event === 'diffResult' && e['filePath'] === filePath, `the CLI's diff outcome for ${filePath}`);
  }

  /** Kills the driver at once (a CLI that dies), and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill(signal);
    await exited;
  }

  /** Closes the driver's stdin (it exits); SIGKILL if it has not exited 5 s later. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
