/** `ide-companion agent` driven on piped stdio (it prints plain lines): type lines, wait for output. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot, waitFor } from '@ide-companion/testkit';
import { BIN } from './clientCommands.js';

export const FAKE_AGENT = path.join(repoRoot, 'packages', 'cli', 'test', 'fixtures', 'fakeAcpAgent.mjs');
export const ACP_TAP = path.join(repoRoot, 'packages', 'cli', 'test', 'fixtures', 'acpTap.mjs');

export interface AgentTerminal {
  child: ChildProcessWithoutNullStreams;
  out(): string;
  err(): string;
  type(line: string): void;
  /** Waits until stdout (from `from` on) matches `re`; returns the match. */
  waitOut(re: RegExp, what: string, timeoutMs?: number, from?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code (SIGKILL after `timeoutMs`). */
  exit(timeoutMs?: number): Promise<number | null>;
  /** For a test's cleanup: SIGTERM (the command then stops its agent), SIGKILL after `timeoutMs`; a SIGKILL alone would orphan the agent. */
  stop(timeoutMs?: number): Promise<void>;
}

export function startAgentTerminal(args: readonly string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): AgentTerminal {
  const child = spawn(process.execPath, [BIN, 'agent', ...args], { cwd: opts.cwd, env: opts.env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.on('error', () => undefined);
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    out: () => stdout,
    err: () => stderr,
    type: (line) => child.stdin.write(`${line}\n`),
    waitOut: (re, what, timeoutMs = 30_000, from = 0) =>
      waitFor(() => stdout.slice(from).match(re) ?? undefined, `${what}; output so far:\n${stdout}\nstderr:\n${stderr}`, timeoutMs),
    exit: async (timeoutMs = 20_000) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await closed;
      } finally {
        clearTimeout(timer);
      }
    },
    stop: async (timeoutMs = 10_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await closed;
      clearTimeout(timer);
    },
  };
}

/**
 * Answers the permission question asked in the terminal with the option of `kind`, by its number; `from`: where in
 * the output to look. Up to the option wanted: the question's lines may arrive in more than one chunk.
 */
export async function answerPermission(term: AgentTerminal, kind: 'allow_once' | 'reject_once', from = 0, timeoutMs = 120_000): Promise<void> {
  const m = await term.waitOut(
    new RegExp(`The agent asks permission: .*\\n(?: {2}\\d\\) .*\\n)*? {2}(\\d)\\) [^\\n]*\\(${kind}\\)\\n`),
    `the permission question with ${kind}`,
    timeoutMs,
    from,
  );
  term.type(m[1]!);
}

/** The JSON lines of a log file, parsed (an absent file: none). */
export function logLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as unknown);
}
