/**
 * The pinned GitHub Copilot CLI (issue 31), installed by
 * scripts/install-copilot-cli.sh into .tools/copilot-cli (proprietary, never
 * committed), and what a test needs to run it offline: no GitHub sign-in, a
 * custom OpenAI-compatible provider (COPILOT_PROVIDER_BASE_URL to
 * openAiMock.ts on loopback, COPILOT_MODEL), a private HOME and COPILOT_HOME,
 * and a dead proxy for anything else.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * The sh command line that runs Copilot CLI's TUI in `home` (its COPILOT_HOME `home/.copilot`), its model at `baseUrl`;
 * with `logDir`, its debug log there (what copilotIdeState reads).
 */
export function copilotCommand(install: CopilotCliInstall, options: { home: string; baseUrl: string; logDir?: string }): string {
  mkdirSync(join(options.home, '.copilot'), { recursive: true });
  return shellCommand(
    [install.binary, ...(options.logDir !== undefined ? ['--log-level', 'debug', '--log-dir', options.logDir] : [])],
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

/** Copilot CLI's IDE connection as its debug log (`--log-level debug --log-dir DIR`) tells it. */
export interface CopilotIdeState {
  /** How long its IDE connection has been up, no reload of its MCP host pending; undefined while it is not. */
  settledMs: number | undefined;
  /** The last selection it took on that connection, as it logs it (`PATH [line:char-line:char]`, 0-based). */
  selection: string | undefined;
}

const LOG_LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z) \[[A-Z]+\] (.*)$/;

/**
 * Reads Copilot CLI 1.0.102's IDE connection from its debug log. Once the folder's trust is settled (its question
 * answered, or the IDE's lock file saying `isTrusted`) it reloads its MCP host (`MCP host reload requested
 * (trigger=folder_trust_change)`), and the new host connects to the IDE again, once or twice (its lock-file watcher,
 * then its start-up connect, which first disconnects the other). Each connect starts with no selection
 * (`latestIdeSelection = null` in `disconnectFromIdeInternal`) until the IDE's `selection_changed` comes on the new
 * connection, and a prompt sent in between carries no `<ide_selection>` (docs/agents.md). Settled: every reload asked
 * for has started, the new host's start-up connect has looked for the IDE (`Discovered N IDE workspace entries`, then
 * a connect of its own unless none was found), and the last connect or disconnect since is a connection made.
 */
export function copilotIdeState(logDir: string, now = Date.now()): CopilotIdeState {
  const lines: Array<{ at: number; text: string }> = [];
  for (const name of existsSync(logDir) ? readdirSync(logDir).sort() : []) {
    for (const line of readFileSync(join(logDir, name), 'utf8').split('\n')) {
      const m = LOG_LINE.exec(line);
      if (m) lines.push({ at: Date.parse(m[1]!), text: m[2]! });
    }
  }
  lines.sort((a, b) => a.at - b.at);
  let reloadAsked = false;
  let hostStarted = false;
  let scanned = false;
  let connectedAt: number | undefined;
  let selection: string | undefined;
  for (const { at, text } of lines) {
    if (text.startsWith('MCP host reload requested')) reloadAsked = true;
    else if (text.startsWith('MCP host start')) [hostStarted, reloadAsked, scanned, connectedAt, selection] = [true, false, false, undefined, undefined];
    else if (/^Discovered \d+ IDE workspace entries|^IDE auto-connect failed/.test(text)) scanned = true;
    else if (/^(Connecting to|Disconnecting from|Disconnected from) IDE MCP server|^IDE disconnected unexpectedly/.test(text)) {
      [connectedAt, selection] = [undefined, undefined];
    } else if (text.startsWith('Connected to IDE MCP server')) connectedAt = at;
    else if (text.startsWith('IDE selection changed: ')) selection = text.slice('IDE selection changed: '.length);
  }
  const settled = hostStarted && !reloadAsked && scanned && connectedAt !== undefined;
  return { settledMs: settled ? now - connectedAt! : undefined, selection: settled ? selection : undefined };
}
