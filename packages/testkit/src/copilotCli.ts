/**
 * The pinned GitHub Copilot CLI (issue 31), installed by
 * scripts/install-copilot-cli.sh into .tools/copilot-cli (proprietary, never
 * committed), and what a test needs to run it offline: no GitHub sign-in, a
 * custom OpenAI-compatible provider (COPILOT_PROVIDER_BASE_URL to
 * openAiMock.ts on loopback, COPILOT_MODEL), a private HOME and COPILOT_HOME,
 * and a dead proxy for anything else.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './geminiCli.js';
import { shellCommand, STRAY_IDE_ENV } from './geminiHome.js';

export interface CopilotCliInstall {
  binary: string;
  version: string;
}

/** The system prompt Copilot CLI 1.0.102 opens its main agent's requests with (openAiMock's `agentPrompt`). */
export const COPILOT_AGENT_PROMPT = 'You are the GitHub Copilot CLI';

export function findCopilotCli(): CopilotCliInstall | undefined {
  const modules = join(process.env['COPILOT_CLI_DIR'] ?? join(repoRoot, '.tools', 'copilot-cli'), 'node_modules');
  const binary = join(modules, '@github', 'copilot-linux-x64', 'copilot');
  const pkg = join(modules, '@github', 'copilot', 'package.json');
  if (!existsSync(binary) || !existsSync(pkg)) return undefined;
  return { binary, version: (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version };
}

/** The sh command line that runs Copilot CLI's TUI in `home` (its COPILOT_HOME `home/.copilot`), its model at `baseUrl`. */
export function copilotCommand(install: CopilotCliInstall, options: { home: string; baseUrl: string }): string {
  mkdirSync(join(options.home, '.copilot'), { recursive: true });
  return shellCommand(
    [install.binary],
    {
      HOME: options.home,
      COPILOT_HOME: join(options.home, '.copilot'),
      XDG_CACHE_HOME: join(options.home, '.cache'),
      XDG_CONFIG_HOME: join(options.home, '.config'),
      COPILOT_PROVIDER_BASE_URL: options.baseUrl,
      COPILOT_PROVIDER_API_KEY: 'test-key',
      COPILOT_MODEL: 'fake',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '127.0.0.1,localhost',
      TERM: 'xterm-256color',
    },
    [...STRAY_IDE_ENV, 'GH_TOKEN', 'GITHUB_TOKEN', 'COPILOT_GITHUB_TOKEN'],
  );
}
