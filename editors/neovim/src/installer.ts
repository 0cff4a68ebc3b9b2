/**
 * `ide-companion install neovim`: copies the Neovim plugin (editors/neovim:
 * Lua, help, and the bundled Node host) into Neovim's native package
 * directory, `$XDG_DATA_HOME/nvim/site/pack/ide-companion/start/ide-companion`,
 * where Neovim loads it at every start. A copy, not a link: it must keep
 * working when this package's directory (an npx cache) goes away.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { installPlugin, onPath, pluginCopyLifecycle } from '@ide-companion/command/pluginInstall';
import { otherAgentsFindIt } from '@ide-companion/shared/agentPaths';
import { type EditorInstaller, type InstallOptions, type InstallResult } from '@ide-companion/command/editorEnd';
import { sdkChunkPath } from '@ide-companion/server/shippedFiles';
import { PLUGIN_ROOT } from './pluginFiles.js';

/** What Neovim needs at run time (the rest of editors/neovim is sources, tests and build output). */
const NEOVIM_PLUGIN_RUNTIME_ENTRIES: readonly string[] = ['plugin', 'lua', 'doc', 'host', 'README.md'];

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

export const neovimInstaller: EditorInstaller = {
  // The plugin's default log_file (stdpath('cache')).
  ...pluginCopyLifecycle('the Neovim plugin', neovimPackageTarget, (env) => [
    path.join(env['XDG_CACHE_HOME'] || path.join(env['HOME'] || os.homedir(), '.cache'), 'nvim', 'ide-companion.log'),
  ]),

  async detect(options: InstallOptions = {}): Promise<boolean> {
    return onPath('nvim', options.env ?? process.env) !== undefined;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    const target = neovimPackageTarget(options.env ?? process.env);
    return fs.existsSync(path.join(target, 'lua', 'ide_companion', 'init.lua'));
  },

  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const source = neovimPluginSource(env);
    return installPlugin(
      {
        what: 'the Neovim plugin',
        editor: 'Neovim',
        editorCommand: 'nvim',
        nodeOption: "setup()'s `node` option",
        source,
        target: neovimPackageTarget(env),
        files: [
          ...NEOVIM_PLUGIN_RUNTIME_ENTRIES.map((entry) => ({ from: path.join(source, entry), to: entry })),
          // The SDK chunk the hosts share, beside this host: the copy must not reach back into the package.
          { from: sdkChunkPath(), to: path.join('host', 'chunks', 'sdk.mjs') },
        ],
        // A stale help index from the source tree would point at nothing; setup() rebuilds it.
        finish: (staging) => (fs.rmSync(path.join(staging, 'doc', 'tags'), { force: true }), []),
        done: `Neovim starts the companion at startup; :GeminiStatus shows it, :Gemini opens Gemini CLI in a split; ${otherAgentsFindIt()}.`,
      },
      options,
    );
  },
};
