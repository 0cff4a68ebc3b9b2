/**
 * A real VS Code for tests: code-server 4.100.3 (installed by
 * scripts/install-code-server.sh into .tools/code-server) driven by Chromium
 * through playwright-core. The extension is packaged (.vsix) and installed
 * with our own installer, through a `code-server` on PATH that points at this
 * instance's private dirs. A test-only driver extension (test/driver), loaded
 * with extensionDevelopmentPath, runs code in each window's extension host.
 * One code-server serves every window of a test file; each browser window is
 * its own extension host, hence its own companion.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { findGeminiCli, makeTempDir, skipUnless, waitFor, which } from '@ide-companion/testkit';
import { ensureVsix, vscodeInstaller, EXTENSION_ID } from '../src/installer.js';
import type { CompanionApi } from '../src/extension.js';

const EXTENSION_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const REPO_ROOT = path.resolve(EXTENSION_ROOT, '../..');
export const CODE_SERVER_ENTRY = path.join(REPO_ROOT, '.tools/code-server/node_modules/code-server/out/node/entry.js');
export const DRIVER_PATH = path.join(EXTENSION_ROOT, 'test', 'driver');
export const CHROMIUM = process.env['IDE_COMPANION_CHROMIUM'] ?? which('chromium') ?? which('chromium-browser');
export const hasCodeServer = fs.existsSync(CODE_SERVER_ENTRY);

/** Why a test of code-server in chromium with the real Gemini CLI cannot run here (as external.ts says), or false. */
export function skipCodeServerWithGemini(): string | false {
  return (
    skipUnless(hasCodeServer, 'code-server 4.100.3', 'run scripts/install-code-server.sh') ||
    skipUnless(CHROMIUM !== undefined, 'chromium', 'apt-get install -y chromium') ||
    skipUnless(findGeminiCli() !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh')
  );
}

const EVAL_TIMEOUT_MS = 60_000;
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Settings that keep the workbench quiet, and terminals readable from the page. */
const USER_SETTINGS = {
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'diffEditor.useInlineViewWhenSpaceIsLimited': false,
  'security.workspace.trust.enabled': false,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'terminal.integrated.gpuAcceleration': 'off',
  'terminal.integrated.defaultProfile.linux': 'bash',
  'terminal.integrated.shellIntegration.enabled': false,
  'terminal.integrated.enablePersistentSessions': false,
  'git.enabled': false,
  'files.hotExit': 'off',
  // Desktop VS Code's default (code-server's is afterDelay); the auto-save test turns it on.
  'files.autoSave': 'off',
  'window.confirmBeforeClose': 'never',
};

export interface StartOptions {
  /** Extra user settings. */
  settings?: Record<string, unknown>;
  /** More .vsix files to install before code-server starts. */
  moreExtensions?: string[];
}

/** Code run in a window's extension host; `args` is JSON. `api` is our extension's exports. */
export interface Window {
  page: Page;
  /** The extension host's PID. */
  pid: number;
  /** Its parent: code-server's server process. */
  ppid: number;
  eval<T = unknown>(code: string, args?: unknown): Promise<T>;
  /** Our extension's API (activate's result), read through the driver. */
  api(): Promise<{
    activationMs: number;
    running: boolean;
    port: number;
    discoveryFile: string;
    socketPath: string | undefined;
    workspacePath: string;
    idePid: number;
    ideInfo: { name: string; displayName: string };
    sessions: number;
    pendingDiffs: Array<{ id: string; filePath: string }>;
  }>;
  /** Closes the window as the user does (leaves the page, then closes the tab), answering "Leave" when VS Code asks (unsaved changes not yet backed up). */
  close(): Promise<void>;
  /** Reloads the window (the browser's reload), answering "Leave" the same way. */
  reload(): Promise<void>;
}

/** Prefix for eval code: `api` is our extension's exports, activated. */
export const WITH_API = `const ext = vscode.extensions.getExtension('${EXTENSION_ID}'); const api = ext.isActive ? ext.exports : await ext.activate();`;

export class CodeServer {
  private proc: ChildProcess | undefined;
  private browser: Browser | undefined;
  private readonly pages = new Set<Page>();
  private readonly seenDrivers = new Set<string>();
  private log = '';
  url = '';
  readonly dir: string;
  readonly cleanupDir: () => void;
  readonly tmpdir: string;
  readonly home: string;
  readonly driverDir: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  readonly shimDir: string;
  private readonly config: string;
  private readonly env: NodeJS.ProcessEnv;

  private readonly wrap: (argv: string[]) => string[];

  /**
   * `env`: variables set (a string) or removed (undefined) in code-server's environment, hence its windows' and terminals'.
   * `wrap`: the command line that runs code-server's (e.g. in a namespace of its own); it must exec it, keeping its PID.
   */
  constructor(options: { env?: Record<string, string | undefined>; wrap?: (argv: string[]) => string[] } = {}) {
    this.wrap = options.wrap ?? ((argv) => argv);
    const { path: dir, cleanup } = makeTempDir('ide-companion-vscode-');
    this.dir = dir;
    this.cleanupDir = cleanup;
    this.tmpdir = path.join(dir, 'tmp');
    this.home = path.join(dir, 'home');
    this.driverDir = path.join(dir, 'drivers');
    this.userDataDir = path.join(dir, 'user-data');
    this.extensionsDir = path.join(dir, 'extensions');
    this.shimDir = path.join(dir, 'bin');
    this.config = path.join(dir, 'config.yaml');
    for (const d of [this.tmpdir, this.home, this.driverDir, this.extensionsDir, this.shimDir, path.join(this.userDataDir, 'User')])
      fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(this.config, 'auth: none\n');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: this.home,
      TMPDIR: this.tmpdir,
      SHELL: '/bin/bash',
      XDG_CONFIG_HOME: path.join(dir, 'xdg', 'config'),
      XDG_DATA_HOME: path.join(dir, 'xdg', 'data'),
      XDG_CACHE_HOME: path.join(dir, 'xdg', 'cache'),
      XDG_STATE_HOME: path.join(dir, 'xdg', 'state'),
      IDE_COMPANION_VSCODE_DRIVER_DIR: this.driverDir,
    };
    for (const name of [
      'GEMINI_CLI_IDE_PID',
      'GEMINI_CLI_IDE_SERVER_PORT',
      'GEMINI_CLI_IDE_WORKSPACE_PATH',
      'GEMINI_CLI_IDE_AUTH_TOKEN',
      'TERM_PROGRAM',
      'VSCODE_IPC_HOOK_CLI',
    ])
      delete env[name];
    for (const [name, value] of Object.entries(options.env ?? {})) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    this.env = env;
    // What the installer finds on PATH: this instance's code-server.
    const args = ['--config', this.config, '--user-data-dir', this.userDataDir, '--extensions-dir', this.extensionsDir];
    fs.writeFileSync(
      path.join(this.shimDir, 'code-server'),
      `#!/bin/sh\nexport XDG_CONFIG_HOME='${env['XDG_CONFIG_HOME']}' XDG_DATA_HOME='${env['XDG_DATA_HOME']}' HOME='${this.home}'\nexec '${process.execPath}' '${CODE_SERVER_ENTRY}' ${args.map((a) => `'${a}'`).join(' ')} "$@"\n`,
      { mode: 0o755 },
    );
  }

  /** Installs the extension with the real installer, then starts code-server and Chromium. */
  async start(options: StartOptions = {}): Promise<{ installMessage: string }> {
    fs.writeFileSync(path.join(this.userDataDir, 'User', 'settings.json'), JSON.stringify({ ...USER_SETTINGS, ...options.settings }, null, 2));
    ensureVsix();
    const result = await vscodeInstaller.install({ env: { ...this.env, PATH: `${this.shimDir}:/usr/bin:/bin` } });
    if (!result.success) throw new Error(`installer failed: ${result.message}`);
    for (const vsix of options.moreExtensions ?? []) {
      const r = spawnSync(path.join(this.shimDir, 'code-server'), ['--install-extension', vsix], { encoding: 'utf8', env: this.env });
      if (r.status !== 0) throw new Error(`could not install ${vsix}: ${r.stderr || r.stdout}`);
    }

    const [program, ...argv] = this.wrap([
      process.execPath,
      CODE_SERVER_ENTRY,
      '--bind-addr',
      '127.0.0.1:0',
      '--auth',
      'none',
      '--config',
      this.config,
      '--user-data-dir',
      this.userDataDir,
      '--extensions-dir',
      this.extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-getting-started-override',
      '--ignore-last-opened',
    ]);
    this.proc = spawn(program!, argv, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const onData = (chunk: Buffer) => {
      this.log += chunk.toString();
      if (this.log.length > 200_000) this.log = this.log.slice(-100_000);
    };
    this.proc.stdout!.on('data', onData);
    this.proc.stderr!.on('data', onData);
    const port = await waitFor(() => /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(this.log)?.[1], 'code-server to listen', 60_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}\n${this.log}`);
      },
    );
    this.url = `http://127.0.0.1:${port}`;
    this.browser = await chromium.launch({ executablePath: CHROMIUM!, headless: true, args: CHROMIUM_FLAGS });
    return { installMessage: result.message };
  }

  get serverPid(): number | undefined {
    return this.proc?.pid;
  }

  get output(): string {
    return this.log;
  }

  /** Opens a browser window on `folder` (or a `.code-workspace` file) and waits for its extension host (and our companion) to be up. */
  async openWindow(folder: string): Promise<Window> {
    const authority = new URL(this.url).host;
    const payload = JSON.stringify([['extensionDevelopmentPath', `vscode-remote://${authority}${DRIVER_PATH}`]]);
    const page = await this.browser!.newPage({ viewport: { width: 1400, height: 900 } });
    this.pages.add(page);
    const target = folder.endsWith('.code-workspace') ? 'workspace' : 'folder';
    await page.goto(`${this.url}/?${target}=${encodeURIComponent(folder)}&payload=${encodeURIComponent(payload)}`);
    const info = await waitFor(
      () => {
        for (const name of fs.readdirSync(this.driverDir)) {
          if (this.seenDrivers.has(name)) continue;
          try {
            const parsed = JSON.parse(fs.readFileSync(path.join(this.driverDir, name), 'utf8')) as { port: number; pid: number; ppid: number };
            this.seenDrivers.add(name);
            return parsed;
          } catch {
            // written as we read it
          }
        }
        return undefined;
      },
      'the extension host of the new window',
      90_000,
      100,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- code-server ---\n${this.log.slice(-4000)}`);
    });
    const evaluate = async <T>(code: string, args?: unknown): Promise<T> => {
      // Bounded: code waiting on a dialog nobody answers must fail the test, not hang it.
      const res = await fetch(`http://127.0.0.1:${info.port}/eval`, {
        method: 'POST',
        body: JSON.stringify({ code, args }),
        signal: AbortSignal.timeout(EVAL_TIMEOUT_MS),
      }).catch(async (err: Error) => {
        const shot = path.join(this.dir, '..', `ide-companion-vscode-eval-failure-${Date.now()}.png`);
        await page.screenshot({ path: shot }).catch(() => undefined);
        throw new Error(`the extension host did not answer (${err.name}: ${err.message}); screenshot ${shot}; code: ${code.slice(0, 300)}`);
      });
      const body = (await res.json()) as { result?: T; error?: string };
      if (body.error) throw new Error(`in the extension host: ${body.error}`);
      return body.result as T;
    };
    const window: Window = {
      page,
      pid: info.pid,
      ppid: info.ppid,
      eval: evaluate,
      api: () =>
        evaluate(
          `${WITH_API} return { activationMs: api.activationMs, running: api.running, port: api.port, discoveryFile: api.discoveryFile, socketPath: api.socketPath, workspacePath: api.workspacePath, idePid: api.idePid, ideInfo: api.ideInfo, sessions: api.sessions().length, pendingDiffs: api.pendingDiffs() };`,
        ),
      close: async () => {
        this.pages.delete(page);
        page.once('dialog', (d) => void d.accept());
        // The workbench tells code-server it is going (its extension host is told to stop) in its beforeunload and
        // pagehide handlers. Closing the tab outright gives them Chromium's close deadline (~500 ms): a renderer starved
        // that long (a loaded CI machine) is torn down first, and code-server keeps that extension host for a
        // reconnection (3 h). Leaving the page first runs them in its own renderer, with no deadline; then the tab closes.
        await Promise.all([
          page.waitForURL('about:blank', { timeout: 60_000 }),
          // Rejected when the navigation destroys the context it ran in.
          page.evaluate("location.href = 'about:blank'").catch(() => undefined),
        ]);
        await page.close({ runBeforeUnload: true });
      },
      reload: async () => {
        // Playwright dismisses a dialog nobody handles: the reload would be cancelled, the old extension host left running.
        page.once('dialog', (d) => void d.accept());
        await page.reload();
      },
    };
    await waitFor(async () => (await window.api()).running, 'the companion to run', 60_000, 100);
    // The workbench is ready for keyboard input once its editor area exists.
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    return window;
  }

  async stop(): Promise<void> {
    for (const page of this.pages) await page.close().catch(() => undefined);
    await this.browser?.close().catch(() => undefined);
    if (this.proc?.pid) {
      try {
        process.kill(-this.proc.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await waitFor(() => this.proc!.exitCode !== null || this.proc!.signalCode !== null, 'code-server to exit', 10_000).catch(() => {
        try {
          process.kill(-this.proc!.pid!, 'SIGKILL');
        } catch {
          // gone
        }
      });
    }
    this.cleanupDir();
  }
}

export type { CompanionApi };
