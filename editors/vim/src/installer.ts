/**
 * `ide-companion install vim`: copies the Vim plugin (plugin/, autoload/, doc/)
 * and the bundled bridge host into Vim's native package directory,
 * `~/.vim/pack/ide-companion/start/ide-companion`, where Vim 8.2+ loads it at
 * every start. A copy, not a link: it must keep working when this package's
 * directory (an npx cache) goes away.
 */
import { childProcess } from '@ide-companion/command/childProcess';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BRIDGE_HOST_PATH, bridgeHostFiles } from '@ide-companion/jsonlines/build/bundleHost';
import { installPlugin, onPath, pluginCopyLifecycle } from '@ide-companion/command/pluginInstall';
import { otherAgentsFindIt } from '@ide-companion/shared/agentPaths';
import { type EditorInstaller, type InstallOptions, type InstallResult } from '@ide-companion/command/editorEnd';
import { INSTALLED_HOST, PLUGIN_ROOT, PLUGIN_RUNTIME_ENTRIES } from './pluginFiles.js';

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

/** `:helptags` for the copied doc/, so `:help ide-companion` works; Vim does not index packages by itself. */
function buildHelpTags(docDir: string, env: NodeJS.ProcessEnv): boolean {
  const vim = onPath('vim', env);
  if (!vim) return false;
  const r = childProcess().spawnSync(vim, ['-N', '-u', 'NONE', '-i', 'NONE', '-es', '-c', `helptags ${docDir.replace(/[ \\|"]/g, '\\$&')}`, '-c', 'qa!'], {
    env,
    stdio: 'ignore',
    timeout: 10_000,
  });
  return r.status === 0 && fs.existsSync(path.join(docDir, 'tags'));
}

export const vimInstaller: EditorInstaller = {
  ...pluginCopyLifecycle('the Vim plugin', vimPackageTarget),

  async detect(options: InstallOptions = {}): Promise<boolean> {
    return onPath('vim', options.env ?? process.env) !== undefined;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    const target = vimPackageTarget(options.env ?? process.env);
    return fs.existsSync(path.join(target, 'plugin', 'ide_companion.vim')) && fs.existsSync(path.join(target, INSTALLED_HOST));
  },

  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const source = pluginSource(env);
    return installPlugin(
      {
        what: 'the Vim plugin',
        editor: 'Vim',
        editorCommand: 'vim',
        nodeOption: 'g:ide_companion_node',
        source,
        target: vimPackageTarget(env),
        files: [
          ...PLUGIN_RUNTIME_ENTRIES.map((entry) => ({ from: path.join(source, entry), to: entry })),
          ...bridgeHostFiles(path.dirname(INSTALLED_HOST), hostSource(env)),
        ],
        // A help index from the source tree could be stale; build one for the copy.
        finish: (staging) => {
          fs.rmSync(path.join(staging, 'doc', 'tags'), { force: true });
          return buildHelpTags(path.join(staging, 'doc'), env) ? [] : ['Run `:helptags ALL` in Vim for `:help ide-companion`.'];
        },
        done: `Vim starts the companion at startup; :GeminiStatus shows it, :Gemini opens Gemini CLI in a split; ${otherAgentsFindIt()}.`,
      },
      options,
    );
  },
};
