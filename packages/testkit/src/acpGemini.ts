/**
 * The pinned Gemini CLI as an ACP agent for the ends' `ide-companion agent`
 * tests (their agent command), as packages/cli/test/agentGemini.test.ts runs
 * it: `--acp` with scripted turns, and its own IDE mode off (docs/acp.md).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GeminiCliInstall } from './geminiCli.js';
import { GEMINI_TEST_SETTINGS, shellCommand, type GeminiRunDirs } from './geminiHome.js';

/** Writes `dirs.path/acp-gemini.sh` (run with `env`) and Gemini's settings with its IDE mode off; returns the script: the agent command. */
export function writeAcpGeminiScript(
  dirs: Pick<GeminiRunDirs, 'path' | 'home' | 'fakeResponses'>,
  cli: GeminiCliInstall,
  env: Record<string, string> = {},
): string {
  writeFileSync(join(dirs.home, '.gemini', 'settings.json'), JSON.stringify({ ...GEMINI_TEST_SETTINGS, ide: { enabled: false } }));
  const argv = [process.execPath, cli.geminiBin, '--acp', '--fake-responses', dirs.fakeResponses, '--model', 'gemini-2.5-flash'];
  const file = join(dirs.path, 'acp-gemini.sh');
  writeFileSync(file, `#!/bin/sh\nexec ${shellCommand(argv, env, [])} "$@"\n`, { mode: 0o755 });
  return file;
}
