/**
 * The pinned opencode (issue 31), installed by scripts/install-opencode.sh
 * into .tools/opencode, and what a test needs to run it offline: a private
 * HOME (its `~/.claude/ide` is where it looks for an editor, as Claude Code
 * does), a config naming an OpenAI-compatible model on loopback (testkit's
 * openAiMock.ts), and nothing that reaches the network (no update, no model
 * list, no LSP download, a dead proxy for the rest).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './geminiCli.js';
import { shellCommand, STRAY_IDE_ENV } from './geminiHome.js';

export interface OpencodeInstall {
  binary: string;
  version: string;
}

/** The system prompt opencode 1.18.33 opens its main agent's requests with (openAiMock's `agentPrompt`). */
export const OPENCODE_AGENT_PROMPT = 'You are opencode';

export function findOpencode(): OpencodeInstall | undefined {
  const modules = join(process.env['OPENCODE_DIR'] ?? join(repoRoot, '.tools', 'opencode'), 'node_modules');
  const binary = join(modules, 'opencode-linux-x64', 'bin', 'opencode');
  const pkg = join(modules, 'opencode-ai', 'package.json');
  if (!existsSync(binary) || !existsSync(pkg)) return undefined;
  return { binary, version: (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version };
}

/**
 * The sh command line that runs opencode's TUI as a user would, in `home`
 * (made here, with its config), its model the OpenAI-compatible server at
 * `baseUrl`. CLAUDE_CODE_SSE_PORT is left out on purpose: opencode takes
 * it and then dials without the token (docs/agents.md).
 */
export function opencodeCommand(
  install: OpencodeInstall,
  options: {
    home: string;
    baseUrl: string;
    tmpdir?: string;
    /** In an editor's terminal: what the terminal gives is left as it is. */ keepTerminalEnv?: boolean;
  },
): string {
  const config = join(options.home, 'opencode.json');
  mkdirSync(options.home, { recursive: true });
  writeFileSync(
    config,
    JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      provider: {
        mock: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Mock',
          options: { baseURL: options.baseUrl, apiKey: 'test-key' },
          models: { fake: { name: 'fake', tool_call: true } },
        },
      },
      model: 'mock/fake',
      small_model: 'mock/fake',
      autoupdate: false,
      share: 'disabled',
    }),
  );
  return shellCommand(
    [install.binary],
    { HOME: options.home, ...(options.tmpdir && { TMPDIR: options.tmpdir }), ...opencodeEnv(options.home, config), TERM: 'xterm-256color' },
    // opencode reads ~/.claude/ide under HOME; a CLAUDE_CONFIG_DIR inherited would only mislead the reader.
    options.keepTerminalEnv
      ? ['CI', 'GITHUB_ACTIONS', 'CLAUDE_CONFIG_DIR']
      : [...STRAY_IDE_ENV, 'CLAUDE_CODE_SSE_PORT', 'OPENCODE_EDITOR_SSE_PORT', 'CLAUDE_CONFIG_DIR'],
  );
}

/** opencode's folders under `home`, its `config`, and nothing past loopback (no update, models list, LSP download, plugins or share). */
export function opencodeEnv(home: string, config: string): Record<string, string> {
  const xdg = (sub: string) => join(home, sub);
  return {
    XDG_CONFIG_HOME: xdg('.config'),
    XDG_DATA_HOME: xdg('.local/share'),
    XDG_CACHE_HOME: xdg('.cache'),
    XDG_STATE_HOME: xdg('.local/state'),
    OPENCODE_CONFIG: config,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_SHARE: '1',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}
