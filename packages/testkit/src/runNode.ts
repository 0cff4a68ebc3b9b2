import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunNodeOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed (closed at once without it). */
  stdin?: string;
  /** SIGKILL and reject after this long (default 60 s; 0: never). */
  timeoutMs?: number;
}

/**
 * Runs `node ...args` (async, so a companion in this process keeps answering),
 * and resolves with its exit code and output once it has exited and its pipes
 * have drained. `.child` is the process, to signal it or read it meanwhile.
 */
export function runNode(args: readonly string[], options: RunNodeOptions = {}): Promise<RunResult> & { child: ChildProcessWithoutNullStreams } {
  return runProgram([process.execPath, ...args], options);
}

/** As runNode, any program: `argv[0]` with the rest as its arguments. */
export function runProgram(argv: readonly string[], options: RunNodeOptions = {}): Promise<RunResult> & { child: ChildProcessWithoutNullStreams } {
  const [program, ...args] = argv;
  const child = spawn(program!, args, { cwd: options.cwd, env: options.env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(options.stdin);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const promise = new Promise<RunResult>((resolve, reject) => {
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error(`${argv.join(' ')} did not exit within ${timeoutMs} ms; stderr: ${stderr}`));
          }, timeoutMs)
        : undefined;
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return Object.assign(promise, { child });
}
