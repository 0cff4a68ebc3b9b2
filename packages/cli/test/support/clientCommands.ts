/** For the client command tests: a real companion in a private TMPDIR and the real bin run against it. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureDiscoveryDir } from '@ide-companion/server';
import { startTestCompanion, type TestCompanion } from '@ide-companion/server/testing';
import { repoRoot, runNode } from '@ide-companion/testkit';

export const BIN = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

export type Setup = TestCompanion;

/** A companion for `<tmp>/ws`, its discovery file under `<tmp>/gemini/ide`. */
export async function setup(options: { start?: boolean } = {}): Promise<Setup> {
  const t = await startTestCompanion({ start: options.start ?? true });
  // Discovery must find the (maybe still empty) directory, as after any companion ran here.
  ensureDiscoveryDir(t.tmp);
  return t;
}

/**
 * The bin's environment: TMPDIR points discovery at the test's dir (and
 * QWEN_HOME, CLAUDE_CONFIG_DIR at the test companion's lock files); no
 * GEMINI_CLI_* leaks in.
 */
export function binEnv(tmp: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GEMINI_CLI_')) env[k] = v;
  return {
    ...env,
    TMPDIR: tmp,
    QWEN_HOME: path.join(tmp, 'qwen'),
    CLAUDE_CONFIG_DIR: path.join(tmp, 'claude'),
    REMOTE_CONTAINERS: '1',
    GEMINI_CLI_IDE_PID: String(process.pid),
    ...extra,
  };
}

/** Runs `ide-companion ARGS` and resolves when it exits (SIGKILL and reject after `timeoutMs`, default 60 s); `.child` is the process. */
export function runBin(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; timeoutMs?: number }): ReturnType<typeof runNode> {
  return runNode([BIN, ...args], opts);
}

export function focusFile(s: Setup, name: string, text = 'x\n'): string {
  const file = path.join(s.workspace, name);
  fs.writeFileSync(file, text);
  s.companion.context.focus(file);
  return file;
}
