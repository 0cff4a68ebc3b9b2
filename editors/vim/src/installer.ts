/**
 * `ide-companion install vim`: copies the Vim plugin (plugin/, autoload/, doc/)
 * and the bundled bridge host into Vim's native package directory,
 * `~/.vim/pack/ide-companion/start/ide-companion`, where Vim 8.2+ loads it at
 * every start. A copy, not a link: it must keep working when this package's
 * directory (an npx cache) goes away.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BRIDGE_HOST_PATH } from '@ide-companion/jsonlines';
import type { EditorInstaller, InstallOptions, InstallResult } from '@ide-companion/server';
import { INSTALLED_HOST, PLUGIN_ROOT, PLUGIN_RUNTIME_ENTRIES } from './pluginFiles.js';

/** Marks a directory this installer wrote, so it is replaced on reinstall and nothing else is. */
const INSTALL_MARKER = '.ide-companion-install.json';
const MIN_NODE_MAJOR = 20;

function pluginSource(env: NodeJS.ProcessEnv): string {
  const override = env['IDE_COMPANION_VIM_PLUGIN_DIR'];
  return override ? path.resolve(override) : PLUGIN_ROOT;
}

function hostSource(env: NodeJS.ProcessEnv): string {
  const override = env['IDE_COMPANION_BRIDGE_HOST'];
  return override ? path.resolve(override) : BRIDGE_HOST_PATH;
}

/** Where Vim looks for native packages that load at startup (`:help packages`). */
export function vimPackageTarget(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env['HOME'] || os.homedir(), '.vim', 'pack', 'ide-companion', 'start', 'ide-companion');
}

function onPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { encoding: 'utf8', env });
  const out = r.stdout?.trim();
  return r.status === 0 && out ? out : undefined;
}

/** Major version of the `node` Vim will start the host with, or undefined. */
function nodeMajorOnPath(env: NodeJS.ProcessEnv): number | undefined {
  const node = onPath('node', env);
  if (!node) return undefined;
  const r = spawnSync(node, ['--version'], { encoding: 'utf8', env });
  const major = Number(/^v(\d+)\./.exec(r.stdout ?? '')?.[1]);
  return Number.isFinite(major) ? major : undefined;
}

/** `:helptags` for the copied doc/, so `:help ide-companion` works; Vim does not index packages by itself. */
function buildHelpTags(docDir: string, env: NodeJS.ProcessEnv): boolean {
  const vim = onPath('vim', env);
  if (!vim) return false;
  const r = spawnSync(vim, ['-N', '-u', 'NONE', '-i', 'NONE', '-es', '-c', `helptags ${docDir.replace(/[ \\|"]/g, '\\$&')}`, '-c', 'qa!'], {
    env,
    stdio: 'ignore',
    timeout: 10_000,
  });
  return r.status === 0 && fs.existsSync(path.join(docDir, 'tags'));
}

export const vimInstaller: EditorInstaller = {
  async detect(options: InstallOptions = {}): Promise<boolean> {
    return onPath('vim', options.env ?? process.env) !== undefined;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    const target = vimPackageTarget(options.env ?? process.env);
    return fs.existsSync(path.join(target, 'plugin', 'ide_companion.vim')) && fs.existsSync(path.join(target, INSTALLED_HOST));
  },

  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const log = options.log ?? (() => undefined);
    const source = pluginSource(env);
    const host = hostSource(env);
    const target = vimPackageTarget(env);
    const missing = PLUGIN_RUNTIME_ENTRIES.filter((entry) => !fs.existsSync(path.join(source, entry)));
    if (!fs.existsSync(host)) missing.push(host);
    if (missing.length > 0) {
      return { success: false, message: `The Vim plugin is incomplete (missing ${missing.join(', ')} under ${source}); reinstall ide-companion.` };
    }
    if (fs.existsSync(target) && !fs.existsSync(path.join(target, INSTALL_MARKER))) {
      return {
        success: false,
        message: `${target} exists and was not written by this installer (a manual install or a link?); remove it and run the install again.`,
      };
    }
    const notes: string[] = [];
    const nodeMajor = nodeMajorOnPath(env);
    if (nodeMajor === undefined)
      notes.push(`Vim starts the plugin's host with \`node\`, which is not on PATH: install Node.js >= ${MIN_NODE_MAJOR} (or set g:ide_companion_node).`);
    else if (nodeMajor < MIN_NODE_MAJOR)
      notes.push(`\`node\` on PATH is version ${nodeMajor}; the plugin needs Node.js >= ${MIN_NODE_MAJOR} (or set g:ide_companion_node).`);
    if (onPath('vim', env) === undefined) notes.push('`vim` is not on PATH; the plugin is installed for when it is.');

    if (options.dryRun) {
      log(`would copy ${PLUGIN_RUNTIME_ENTRIES.join(', ')} from ${source} and ${host} to ${target}`);
      return { success: true, message: [`Would install the Vim plugin into ${target}.`, ...notes].join(' '), changed: [] };
    }
    // Copy beside the target, then swap: a failed copy leaves any previous install intact.
    const staging = `${target}.new-${process.pid}`;
    try {
      fs.rmSync(staging, { recursive: true, force: true });
      fs.mkdirSync(staging, { recursive: true });
      for (const entry of PLUGIN_RUNTIME_ENTRIES) {
        log(`copying ${entry}`);
        fs.cpSync(path.join(source, entry), path.join(staging, entry), { recursive: true, dereference: true });
      }
      log('copying the bridge host');
      fs.mkdirSync(path.join(staging, path.dirname(INSTALLED_HOST)), { recursive: true });
      fs.copyFileSync(host, path.join(staging, INSTALLED_HOST));
      // A help index from the source tree could be stale; build one for the copy.
      fs.rmSync(path.join(staging, 'doc', 'tags'), { force: true });
      if (!buildHelpTags(path.join(staging, 'doc'), env)) notes.push('Run `:helptags ALL` in Vim for `:help ide-companion`.');
      fs.writeFileSync(path.join(staging, INSTALL_MARKER), `${JSON.stringify({ source, installedAt: new Date().toISOString() }, null, 2)}\n`);
      fs.rmSync(target, { recursive: true, force: true });
      fs.renameSync(staging, target);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      return { success: false, message: `Could not install the Vim plugin into ${target}: ${(err as Error).message}` };
    }
    log(`installed into ${target}`);
    return {
      success: true,
      message: [
        `Installed the Vim plugin into ${target}. Vim starts the companion at startup; :GeminiStatus shows it, :Gemini opens Gemini CLI in a split.`,
        ...notes,
      ].join(' '),
      changed: [target],
    };
  },
};
