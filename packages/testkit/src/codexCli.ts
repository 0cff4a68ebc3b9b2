/**
 * The pinned Codex CLI (issue 31), installed by scripts/install-codex-cli.sh
 * into .tools/codex-cli (never committed), and what a test needs to run it
 * offline: a private CODEX_HOME whose config.toml names a custom provider
 * (`wire_api = "responses"`, the only one 0.171.0 takes) at testkit's
 * Responses API mock on loopback, the folder trusted, no sign-in, and a
 * dead proxy for anything else. Its IDE socket is then
 * CODEX_HOME/ipc/ipc.sock: the companion under test must be given the same
 * CODEX_HOME.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './geminiCli.js';
import { shellCommand, STRAY_IDE_ENV } from './geminiHome.js';
import type { ResponsesMock } from './responsesMock.js';
import type { Tmux } from './tmux.js';
import { waitFor } from './wait.js';

export interface CodexCliInstall {
  binary: string;
  version: string;
}

export function findCodexCli(): CodexCliInstall | undefined {
  const modules = join(process.env['CODEX_CLI_DIR'] ?? join(repoRoot, '.tools', 'codex-cli'), 'node_modules');
  const binary = join(modules, '@openai', 'codex-linux-x64', 'vendor', 'x86_64-unknown-linux-musl', 'bin', 'codex');
  const pkg = join(modules, '@openai', 'codex', 'package.json');
  if (process.arch !== 'x64' || !existsSync(binary) || !existsSync(pkg)) return undefined;
  return { binary, version: (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version };
}

/**
 * The processes Codex CLI left running for `codexHome`: its TUI starts an
 * `app-server --managed-daemon` that detaches (its parent becomes PID 1) and
 * outlives the TUI and the test. Found by their environment (CODEX_HOME),
 * which they inherit, or by their program, which Codex copies into
 * CODEX_HOME/packages (a CODEX_HOME by default, as in VS Code's terminal,
 * is in no environment); Linux only (/proc), empty elsewhere.
 */
export function codexDaemonPids(codexHome: string): number[] {
  const wanted = `CODEX_HOME=${codexHome}\0`;
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const name of entries) {
    try {
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (!args.includes('app-server')) continue;
      if (args.startsWith(`${codexHome}/`) || `${readFileSync(`/proc/${name}/environ`, 'utf8')}\0`.includes(wanted)) pids.push(Number(name));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

/** Ends the daemons Codex CLI left for `codexHome` (SIGKILL: the test's home goes with them); their pids. */
export function stopCodexDaemons(codexHome: string): number[] {
  const pids = codexDaemonPids(codexHome);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  return pids;
}

/** The model makeCodexHome names: Codex's status line shows it once its background server has started. */
const CODEX_MOCK_MODEL = 'mock-model';

/** Every CODEX_HOME made in this process: their daemons end when it exits, whatever its tests did (issue 39). */
const codexHomes = new Set<string>();

/** A CODEX_HOME in `home` (`home/.codex`) whose model is the mock at `baseUrl`, `project` trusted. Returns the CODEX_HOME. */
export function makeCodexHome(home: string, options: { baseUrl: string; project: string }): string {
  const codexHome = join(home, '.codex');
  if (codexHomes.size === 0) process.once('exit', () => codexHomes.forEach((h) => stopCodexDaemons(h)));
  codexHomes.add(codexHome);
  mkdirSync(codexHome, { recursive: true, mode: 0o700 });
  const toml = (s: string) => JSON.stringify(s);
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      `model = ${toml(CODEX_MOCK_MODEL)}`,
      'model_provider = "mock"',
      'check_for_update_on_startup = false',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = ${toml(options.baseUrl)}`,
      'wire_api = "responses"',
      'env_key = "CODEX_MOCK_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      `[projects.${toml(options.project)}]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
  return codexHome;
}

/**
 * What Codex (the CLI, or codex-acp with codex-rs inside) reads offline: `home` as HOME with `home/.codex` as
 * CODEX_HOME (its provider pointed at our mock), the mock's key, and every proxy a dead end but loopback.
 */
export function codexOfflineEnv(home: string): NodeJS.ProcessEnv {
  return {
    HOME: home,
    CODEX_HOME: join(home, '.codex'),
    CODEX_MOCK_KEY: 'test-key',
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_CONFIG_HOME: join(home, '.config'),
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
}

/** The sh command line that runs Codex CLI's TUI with `home` as HOME and `home/.codex` as CODEX_HOME. */
export function codexCommand(install: CodexCliInstall, options: { home: string }): string {
  return shellCommand([install.binary], { ...codexOfflineEnv(options.home), TERM: 'xterm-256color' }, [...STRAY_IDE_ENV, 'OPENAI_API_KEY']);
}

/**
 * Types `/ide` into Codex CLI's TUI and waits until it says the IDE context is
 * on; its command popup may take the first Enter (completing the command), so
 * Enter again meanwhile. Throws with the screen.
 */
export async function codexIdeOn(tui: Tmux, timeoutMs = 15_000): Promise<void> {
  await tui.submit('/ide', 10_000);
  const deadline = Date.now() + timeoutMs;
  while (!tui.screen().includes('IDE context is on')) {
    if (Date.now() > deadline) throw new Error(`Codex CLI never took the IDE context\n--- codex ---\n${tui.screen()}`);
    await tui.waitForText('IDE context is on', 4_000).catch(() => tui.keys('Enter'));
  }
}

/** The "Context from my IDE setup" part (Codex's own words, prompt.rs) of the first request to `model` that asks `prompt` with it. */
export function codexIdeContextOf(model: ResponsesMock, prompt: string): string | undefined {
  const asked = model.requests().find((r) => r.includes(prompt) && r.includes(CODEX_IDE_HEADING));
  if (!asked) return undefined;
  return (JSON.parse(asked) as { input: Array<{ content?: Array<{ text?: string }> }> }).input
    .flatMap((m) => m.content ?? [])
    .map((c) => c.text ?? '')
    .find((c) => c.includes(CODEX_IDE_HEADING));
}

const CODEX_IDE_HEADING = 'Context from my IDE setup';

/**
 * Codex CLI's TUI in `tui`, started: once it is ready, `/ide` on, then
 * `prompt` asked; resolves with the IDE context its request to `model`
 * carried. Throws with the screen.
 */
export async function askCodexWithIde(tui: Tmux, model: ResponsesMock, prompt: string): Promise<string> {
  await tui.waitForText('Ask Codex to do anything', 60_000);
  // The prompt shows before Codex's background server is up (its first start in a CODEX_HOME copies ~420 MB into
  // it): until then /ide only says "Waiting for startup". The status line naming the model says it is up.
  await tui.waitForText(`${CODEX_MOCK_MODEL} default`, 120_000).catch((err: Error) => {
    throw new Error(`${err.message}\n--- codex ---\n${tui.screen()}`);
  });
  await codexIdeOn(tui);
  await tui.submit(prompt, 10_000);
  return waitFor(() => codexIdeContextOf(model, prompt), 'the prompt with the IDE context', 60_000).catch((err: Error) => {
    throw new Error(`${err.message}\n--- codex ---\n${tui.screen()}`);
  });
}
