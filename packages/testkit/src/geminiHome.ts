/**
 * Running the real `gemini` binary in a test: a throwaway HOME whose settings
 * keep it offline, quiet and IDE-enabled, and the command line that starts it
 * with scripted model turns. See docs/interop-testing.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GeminiCliInstall } from './geminiCli.js';

/** Settings for a test HOME: API-key auth (no login), no folder-trust dialog, IDE on, no updates, no telemetry. */
export const GEMINI_TEST_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
  ide: { enabled: true },
  general: { enableAutoUpdate: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
} as const;

/**
 * Creates `dir/.gemini/settings.json` and returns `dir`, to be used as HOME.
 * Use a fresh one per CLI run: with a previous session in HOME the CLI asks
 * the model for a session summary at start-up, which eats a scripted turn.
 */
export function makeGeminiHome(dir: string): string {
  mkdirSync(join(dir, '.gemini'), { recursive: true });
  writeFileSync(join(dir, '.gemini', 'settings.json'), JSON.stringify(GEMINI_TEST_SETTINGS, null, 2));
  return dir;
}

/** Env that would steer the CLI to another companion or IDE if inherited from the test runner's terminal. */
export const STRAY_IDE_ENV = [
  'GEMINI_CLI_IDE_PID',
  'GEMINI_CLI_IDE_SERVER_PORT',
  'GEMINI_CLI_IDE_WORKSPACE_PATH',
  'GEMINI_CLI_IDE_AUTH_TOKEN',
  'GEMINI_CLI_IDE_SERVER_STDIO_COMMAND',
  'GEMINI_CLI_IDE_SERVER_STDIO_ARGS',
  'GEMINI_CLI_HOME',
  'TERM_PROGRAM',
  'VISUAL',
] as const;

/**
 * With CI=true or GITHUB_ACTIONS=true `gemini` runs headless ("No input provided
 * via stdin") even on a terminal, so the interactive tests unset them.
 */
export const HEADLESS_TRIGGER_ENV = ['CI', 'GITHUB_ACTIONS'] as const;

/** Quotes one word for sh. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `env -u STRAY... K=V... argv...` as one sh command line, so a tmux pane gets exactly this env. */
export function shellCommand(argv: readonly string[], env: Record<string, string> = {}, unset: readonly string[] = STRAY_IDE_ENV): string {
  const parts = ['env', ...unset.flatMap((name) => ['-u', name]), ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv];
  return parts.map(shellQuote).join(' ');
}

export interface GeminiRunOptions {
  /** From makeGeminiHome. */
  home: string;
  /** TMPDIR: where the CLI looks for gemini/ide/*.json; share it only with the companion under test. */
  tmpdir: string;
  /** A --fake-responses file (see fakeResponses.ts). */
  fakeResponses: string;
  /** Extra env (e.g. GEMINI_DEBUG_LOG_FILE). */
  env?: Record<string, string>;
}

/** The sh command line that runs the pinned `gemini` interactively with scripted turns and diffs reviewed in the IDE. */
export function geminiCommand(cli: GeminiCliInstall, options: GeminiRunOptions): string {
  return shellCommand(
    [
      process.execPath,
      cli.geminiBin,
      '--fake-responses',
      options.fakeResponses,
      // The default router would consume a scripted turn.
      '--model',
      'gemini-2.5-flash',
      // In yolo/auto-edit no diff is ever opened.
      '--approval-mode',
      'default',
    ],
    {
      HOME: options.home,
      TMPDIR: options.tmpdir,
      GEMINI_API_KEY: 'dummy',
      // This machine is a container: without it the CLI dials host.docker.internal.
      REMOTE_CONTAINERS: '1',
      ...options.env,
    },
    [...STRAY_IDE_ENV, ...HEADLESS_TRIGGER_ENV],
  );
}
