/**
 * The pinned codex-acp (Zed's ACP adapter for Codex, issue 38), installed by scripts/install-codex-acp.sh
 * into .tools/codex-acp (or CODEX_ACP_DIR; never committed): its native binary, which carries codex-rs,
 * run directly (the package's bin is a Node launcher that only spawns it). Offline as Codex CLI is
 * (codexCli.ts): a private CODEX_HOME (makeCodexHome) whose custom provider is testkit's Responses mock on
 * loopback, so no sign-in is asked (codex-acp's check_auth asks one only for the `openai` provider), and
 * a dead proxy for anything else.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './geminiCli.js';
import { codexOfflineEnv } from './codexCli.js';

export interface CodexAcpInstall {
  binary: string;
  version: string;
}

const PLATFORMS: Record<string, string> = {
  'linux-x64': 'linux-x64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-x64',
  'darwin-arm64': 'darwin-arm64',
};

export function findCodexAcp(): CodexAcpInstall | undefined {
  const platform = PLATFORMS[`${process.platform}-${process.arch}`];
  if (!platform) return undefined;
  const modules = join(process.env['CODEX_ACP_DIR'] ?? join(repoRoot, '.tools', 'codex-acp'), 'node_modules', '@zed-industries');
  const binary = join(modules, `codex-acp-${platform}`, 'bin', 'codex-acp');
  if (!existsSync(binary)) return undefined;
  try {
    const { version } = JSON.parse(readFileSync(join(modules, 'codex-acp', 'package.json'), 'utf8')) as { version: string };
    return { binary, version };
  } catch {
    return undefined;
  }
}

/** The adapter's environment: `base` (the test's) with HOME and CODEX_HOME (`home/.codex`, made by makeCodexHome), the mock's key, egress past loopback failing at once. */
export function codexAcpEnv(base: NodeJS.ProcessEnv, options: { home: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  // None of the machine's credentials (the test's IDE variables stay: `agent` finds its companion by them).
  for (const key of ['OPENAI_API_KEY', 'CODEX_API_KEY', 'OPENAI_BASE_URL', 'CODEX_HOME']) delete env[key];
  return { ...env, ...codexOfflineEnv(options.home) };
}

/**
 * The adapter's argv, with the `-c` overrides (TOML values, as codex-rs reads them) its tests need:
 * - a model of the catalog Codex bundles (its metadata offers the freeform apply_patch tool; an unknown name,
 *   such as makeCodexHome's, gets fallback metadata without it, and a warning streamed as an agent message);
 *   the mock answers whatever the name;
 * - `approval_policy = "untrusted"`: Codex then asks before every patch and every command that is not known to
 *   be safe. In codex-acp's default mode (`auto`: on-request, workspace-write) a patch inside the workspace is
 *   applied without asking, so there is nothing to review;
 * - `sandbox_mode = "danger-full-access"`: Codex's Linux sandbox needs bubblewrap (`bwrap` on PATH; the npm
 *   package bundles none), and without it even reading the file to patch fails ("bubblewrap is unavailable").
 */
export function codexAcpArgv(install: CodexAcpInstall): string[] {
  const overrides = ['model="gpt-5.4"', 'approval_policy="untrusted"', 'sandbox_mode="danger-full-access"'];
  return [install.binary, ...overrides.flatMap((o) => ['-c', o])];
}
