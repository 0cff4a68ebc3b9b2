/**
 * The pinned Gemini CLI, installed by scripts/install-gemini-cli.sh into
 * .tools/gemini-cli (or GEMINI_CLI_DIR). Tests use its client from
 * @google/gemini-cli-core and its `gemini` binary.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

export function geminiCliDir(): string {
  return process.env['GEMINI_CLI_DIR'] ?? join(repoRoot, '.tools', 'gemini-cli');
}

export interface GeminiCliInstall {
  /** `node_modules/@google/gemini-cli-core` */
  coreDir: string;
  /** Entry of the `gemini` command (run it with node). */
  geminiBin: string;
  version: string;
}

/** The installed pinned CLI, or undefined when it is not installed. */
export function findGeminiCli(): GeminiCliInstall | undefined {
  const modules = join(geminiCliDir(), 'node_modules', '@google');
  const coreDir = join(modules, 'gemini-cli-core');
  const cliDir = join(modules, 'gemini-cli');
  if (!existsSync(join(coreDir, 'package.json')) || !existsSync(join(cliDir, 'package.json'))) return undefined;
  const cliPkg = JSON.parse(readFileSync(join(cliDir, 'package.json'), 'utf8')) as { version: string; bin?: Record<string, string> | string };
  const binRel = typeof cliPkg.bin === 'string' ? cliPkg.bin : (cliPkg.bin?.['gemini'] ?? 'dist/index.js');
  return { coreDir, geminiBin: join(cliDir, binRel), version: cliPkg.version };
}
