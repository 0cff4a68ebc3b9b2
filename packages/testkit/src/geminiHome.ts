/**
 * Running the real `gemini` binary in a test: a throwaway HOME whose settings
 * keep it offline, quiet and IDE-enabled, and the command line that starts it
 * with scripted model turns. See docs/interop-testing.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeTurn } from './fakeResponses.js';
import { writeFakeResponses } from './fakeResponses.js';
import type { GeminiCliInstall } from './geminiCli.js';
import { makeTempDir } from './tempDir.js';

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

export interface GeminiRunDirs {
  /** The temp dir holding the rest; removed by cleanup. */
  path: string;
  /** `dir/ws`, holding `files`. */
  workspace: string;
  /** `dir/tmp`: TMPDIR of the CLI and of the companion under test only. */
  tmpdir: string;
  /** `dir/home`, from makeGeminiHome. */
  home: string;
  /** `dir/turns.jsonl`, the scripted turns. */
  fakeResponses: string;
  cleanup: () => void;
}

/** A fresh temp dir for one `gemini` run: workspace (with `files`, name to text), TMPDIR, HOME and the scripted turns. */
export function makeGeminiRunDirs(prefix: string, options: { files?: Record<string, string>; turns: readonly FakeTurn[] }): GeminiRunDirs {
  const { path: dir, cleanup } = makeTempDir(prefix);
  const workspace = join(dir, 'ws');
  const tmpdir = join(dir, 'tmp');
  mkdirSync(workspace);
  mkdirSync(tmpdir);
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(workspace, name), text);
  const fakeResponses = join(dir, 'turns.jsonl');
  writeFakeResponses(fakeResponses, options.turns);
  return { path: dir, workspace, tmpdir, home: makeGeminiHome(join(dir, 'home')), fakeResponses, cleanup };
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

/** `node gemini ...`: the pinned CLI, interactive, with scripted turns (a --fake-responses file), diffs reviewed in the IDE. */
export function geminiArgv(cli: GeminiCliInstall, fakeResponses: string): string[] {
  return [
    process.execPath,
    cli.geminiBin,
    '--fake-responses',
    fakeResponses,
    // The default router would consume a scripted turn.
    '--model',
    'gemini-2.5-flash',
    // In yolo/auto-edit no diff is ever opened.
    '--approval-mode',
    'default',
  ];
}

/** The env `gemini` needs besides its argv: the test HOME, TMPDIR, a dummy API key, and loopback dialing. */
export function geminiEnv(options: { home: string; tmpdir: string }): Record<string, string> {
  return {
    HOME: options.home,
    TMPDIR: options.tmpdir,
    GEMINI_API_KEY: 'dummy',
    // This machine is a container: without it the CLI dials host.docker.internal.
    REMOTE_CONTAINERS: '1',
  };
}

/**
 * Writes `file`, an executable sh script that runs the pinned CLI with scripted turns and `env` (what an
 * editor's "run gemini" setting is pointed at in a test), and returns it. The IDE's variables come from the
 * terminal the editor opens, so only the headless-making ones are unset.
 */
export function writeGeminiScript(file: string, cli: GeminiCliInstall, fakeResponses: string, env: Record<string, string> = {}): string {
  writeFileSync(file, `#!/bin/sh\nexec ${shellCommand(geminiArgv(cli, fakeResponses), env, HEADLESS_TRIGGER_ENV)} "$@"\n`, { mode: 0o755 });
  return file;
}

/** The sh command line that runs geminiArgv with geminiEnv and nothing stray or headless-making inherited. */
export function geminiCommand(cli: GeminiCliInstall, options: GeminiRunOptions): string {
  return shellCommand(geminiArgv(cli, options.fakeResponses), { ...geminiEnv(options), ...options.env }, [...STRAY_IDE_ENV, ...HEADLESS_TRIGGER_ENV]);
}
