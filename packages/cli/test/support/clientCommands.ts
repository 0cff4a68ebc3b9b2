/** For the client command tests: a real companion in a private TMPDIR and the real bin run against it. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestCompanion, type TestCompanion } from '@ide-companion/server/testing';
import { repoRoot } from '@ide-companion/testkit';

export const BIN = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

export type Setup = TestCompanion;

/** A companion for `<tmp>/ws`, its discovery file under `<tmp>/gemini/ide`. */
export async function setup(options: { start?: boolean } = {}): Promise<Setup> {
  const t = await startTestCompanion({ start: options.start ?? true });
  // Discovery must find the (maybe still empty) directory, as after any companion ran here.
  fs.mkdirSync(path.join(t.tmp, 'gemini', 'ide'), { recursive: true, mode: 0o700 });
  return t;
}

/** The bin's environment: TMPDIR points discovery at the test's dir; no GEMINI_CLI_* leaks in. */
export function binEnv(tmp: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GEMINI_CLI_')) env[k] = v;
  return { ...env, TMPDIR: tmp, REMOTE_CONTAINERS: '1', GEMINI_CLI_IDE_PID: String(process.pid), ...extra };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `ide-companion ARGS` and resolves when it exits. */
export function runBin(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number }): Promise<RunResult> & { child: ChildProcess } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
  else child.stdin.end();
  const promise = new Promise<RunResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ide-companion ${args.join(' ')} did not exit within ${opts.timeoutMs ?? 60_000} ms; stderr: ${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      // Let the pipes drain.
      setImmediate(() => resolve({ code, stdout, stderr }));
    });
  }) as Promise<RunResult> & { child: ChildProcess };
  promise.child = child;
  return promise;
}

export function focusFile(s: Setup, name: string, text = 'x\n'): string {
  const file = path.join(s.workspace, name);
  fs.writeFileSync(file, text);
  s.companion.context.focus(file);
  return file;
}
