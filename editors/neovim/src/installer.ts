/**
 * `ide-companion install neovim`: copies the Neovim plugin (editors/neovim:
 * Lua, help, and the bundled Node host) into Neovim's native package
 * directory, `$XDG_DATA_HOME/nvim/site/pack/ide-companion/start/ide-companion`,
 * where Neovim loads it at every start. A copy, not a link: it must keep
 * working when this package's directory (an npx cache) goes away.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EditorInstaller, InstallOptions, InstallResult } from '@ide-companion/server';
import { PLUGIN_ROOT } from './pluginFiles.js';

/** What Neovim needs at run time (the rest of editors/neovim is sources, tests and build output). */
const NEOVIM_PLUGIN_RUNTIME_ENTRIES: readonly string[] = ['plugin', 'lua', 'doc', 'host', 'README.md'];
/** Marks a directory this installer wrote, so it is replaced on reinstall and nothing else is. */
const NEOVIM_INSTALL_MARKER = '.ide-companion-install.json';
const MIN_NODE_MAJOR = 20;

/** This plugin's own folder, unless a test points elsewhere. */
function neovimPluginSource(env: NodeJS.ProcessEnv = process.env): string {
  const override = env['IDE_COMPANION_NEOVIM_PLUGIN_DIR'];
  return override ? path.resolve(override) : PLUGIN_ROOT;
}

/** Where Neovim looks for native packages that load at startup (`:help packages`). */
function neovimPackageTarget(env: NodeJS.ProcessEnv = process.env): string {
  const dataHome = env['XDG_DATA_HOME'] || path.join(env['HOME'] || os.homedir(), '.local', 'share');
  return path.join(dataHome, 'nvim', 'site', 'pack', 'ide-companion', 'start', 'ide-companion');
}

function onPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { encoding: 'utf8', env });
  const out = r.stdout?.trim();
  return r.status === 0 && out ? out : undefined;
}

/** Major version of the `node` Neovim will start the host with, or undefined. */
function nodeMajorOnPath(env: NodeJS.ProcessEnv): number | undefined {
  const node = onPath('node', env);
  if (!node) return undefined;
  const r = spawnSync(node, ['--version'], { encoding: 'utf8', env });
  const major = Number(/^v(\d+)\./.exec(r.stdout ?? '')?.[1]);
  return Number.isFinite(major) ? major : undefined;
}

function isOurs(target: string): boolean {
  return fs.existsSync(path.join(target, NEOVIM_INSTALL_MARKER));
}

export const neovimInstaller: EditorInstaller = {
  async detect(options: InstallOptions = {}): Promise<boolean> {
    return onPath('nvim', options.env ?? process.env) !== undefined;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    const target = neovimPackageTarget(options.env ?? process.env);
    return fs.existsSync(path.join(target, 'lua', 'ide_companion', 'init.lua'));
  },

  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const log = options.log ?? (() => undefined);
    const source = neovimPluginSource(env);
    const target = neovimPackageTarget(env);
    const missing = NEOVIM_PLUGIN_RUNTIME_ENTRIES.filter((entry) => !fs.existsSync(path.join(source, entry)));
    if (missing.length > 0) {
      return { success: false, message: `The Neovim plugin is incomplete at ${source} (missing ${missing.join(', ')}); reinstall ide-companion.` };
    }
    if (fs.existsSync(target) && !isOurs(target)) {
      return {
        success: false,
        message: `${target} exists and was not written by this installer (a manual install or a link?); remove it and run the install again.`,
      };
    }
    const notes: string[] = [];
    const nodeMajor = nodeMajorOnPath(env);
    if (nodeMajor === undefined) notes.push(`Neovim starts the plugin's host with \`node\`, which is not on PATH: install Node.js >= ${MIN_NODE_MAJOR}.`);
    else if (nodeMajor < MIN_NODE_MAJOR) notes.push(`\`node\` on PATH is version ${nodeMajor}; the plugin needs Node.js >= ${MIN_NODE_MAJOR} (or set its \`node\` option).`);
    if (onPath('nvim', env) === undefined) notes.push('`nvim` is not on PATH; the plugin is installed for when it is.');

    if (options.dryRun) {
      log(`would copy ${NEOVIM_PLUGIN_RUNTIME_ENTRIES.join(', ')} from ${source} to ${target}`);
      return { success: true, message: [`Would install the Neovim plugin into ${target}.`, ...notes].join(' '), changed: [] };
    }
    // Copy beside the target, then swap: a failed copy leaves any previous install intact.
    const staging = `${target}.new-${process.pid}`;
    try {
      fs.rmSync(staging, { recursive: true, force: true });
      fs.mkdirSync(staging, { recursive: true });
      for (const entry of NEOVIM_PLUGIN_RUNTIME_ENTRIES) {
        log(`copying ${entry}`);
        fs.cpSync(path.join(source, entry), path.join(staging, entry), { recursive: true, dereference: true });
      }
      // A stale help index from the source tree would point at nothing; setup() rebuilds it.
      fs.rmSync(path.join(staging, 'doc', 'tags'), { force: true });
      fs.writeFileSync(path.join(staging, NEOVIM_INSTALL_MARKER), `${JSON.stringify({ source, installedAt: new Date().toISOString() }, null, 2)}\n`);
      fs.rmSync(target, { recursive: true, force: true });
      fs.renameSync(staging, target);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      return { success: false, message: `Could not install the Neovim plugin into ${target}: ${(err as Error).message}` };
    }
    log(`installed into ${target}`);
    return {
      success: true,
      message: [
        `Installed the Neovim plugin into ${target}. Neovim starts the companion at startup; :GeminiStatus shows it, :Gemini opens Gemini CLI in a split.`,
        ...notes,
      ].join(' '),
      changed: [target],
    };
  },
};
