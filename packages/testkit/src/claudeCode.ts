/**
 * The pinned Claude Code (issue 19), installed by scripts/install-claude-code.sh
 * into .tools/claude-code (proprietary: installed, never committed), and what
 * a test needs to run it as a user in a terminal would: a private HOME whose
 * ~/.claude.json has onboarding and the project's trust settled and the test
 * key approved, the model on loopback (anthropicMock.ts), every edit asked
 * about, and nothing that reaches past loopback.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot } from './geminiCli.js';
import { HEADLESS_TRIGGER_ENV, shellCommand } from './geminiHome.js';
import type { Tmux } from './tmux.js';
import { sleep, waitFor } from './wait.js';

export const CLAUDE_TEST_API_KEY = 'sk-ant-api03-ide-companion-tests-0000000000000000000000';

export interface ClaudeCodeInstall {
  bin: string;
  version: string;
}

export function findClaudeCode(): ClaudeCodeInstall | undefined {
  const bin = join(process.env['CLAUDE_CODE_DIR'] ?? join(repoRoot, '.tools', 'claude-code'), 'claude');
  if (!existsSync(bin)) return undefined;
  try {
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, DISABLE_AUTOUPDATER: '1' } }).split(' ')[0]!;
    return { bin, version };
  } catch {
    return undefined;
  }
}

/**
 * A HOME for Claude Code: ~/.claude.json with onboarding done, each of
 * `projects` trusted, the test key approved. Its lock files are read from
 * HOME/.claude/ide: a companion for it gets CLAUDE_CONFIG_DIR=`claudeDir`.
 */
export function makeClaudeHome(home: string, projects: readonly string[]): { home: string; claudeDir: string } {
  const claudeDir = join(home, '.claude');
  mkdirSync(claudeDir, { recursive: true });
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      lastOnboardingVersion: '2.1.332',
      theme: 'dark',
      numStartups: 10,
      autoUpdates: false,
      customApiKeyResponses: { approved: [CLAUDE_TEST_API_KEY.slice(-20)], rejected: [] },
      projects: Object.fromEntries(projects.map((p) => [p, { hasTrustDialogAccepted: true, allowedTools: [] }])),
    }),
  );
  return { home, claudeDir };
}

/**
 * The sh command line that runs `claude --ide` in `home` against the model
 * at `baseUrl`, asking before every edit (so each opens the IDE's diff).
 * Egress past loopback fails at once: an HTTPS proxy on a dead loopback port.
 */
export function claudeCommand(install: ClaudeCodeInstall, options: { home: string; baseUrl: string; env?: Record<string, string> }): string {
  return shellCommand([install.bin, '--ide', '--permission-mode', 'default'], { ...claudeOfflineEnv(options), ...options.env }, [
    ...HEADLESS_TRIGGER_ENV,
    'CLAUDE_CONFIG_DIR',
    'CLAUDE_CODE_SSE_PORT',
    'ENABLE_IDE_INTEGRATION',
    'TERM_PROGRAM',
    'ANTHROPIC_AUTH_TOKEN',
  ]);
}

/** Opens `/ide` in Claude Code's UI until it lists `ideName` as connected (✔), closes the menu, and returns that line. */
export async function waitClaudeIdeConnected(tui: Tmux, ideName: string, timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  await tui.waitForText('❯', timeoutMs);
  for (;;) {
    tui.type('/ide');
    await sleep(800);
    tui.keys('Enter');
    const line = await waitFor(
      () => tui.screen().match(/^.*(?:✔|✓) .*$/m)?.[0] ?? (/Connect to an IDE/.test(tui.screen()) ? '' : undefined),
      'the /ide menu',
      30_000,
    );
    tui.keys('Escape');
    await sleep(500);
    if (line.includes(ideName)) return line.trim();
    if (Date.now() > deadline) throw new Error(`Claude Code never connected to ${ideName}\n--- screen ---\n${tui.screen()}`);
    await sleep(1_000);
  }
}

/** Claude Code (the CLI, or under the ACP adapter) in `home` against the model at `baseUrl`: nothing past loopback. */
export function claudeOfflineEnv(options: { home: string; baseUrl: string }): Record<string, string> {
  return {
    HOME: options.home,
    ANTHROPIC_API_KEY: CLAUDE_TEST_API_KEY,
    ANTHROPIC_BASE_URL: options.baseUrl,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}
