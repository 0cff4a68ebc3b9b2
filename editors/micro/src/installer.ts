/**
 * `ide-companion install micro`: copies the plugin and the bundled bridge host
 * into micro's plugin folder, `~/.config/micro/plug/ide-companion`
 * (`$MICRO_CONFIG_HOME/plug/...`, or `$XDG_CONFIG_HOME/micro/plug/...`), where
 * micro loads it at every start, as its users install plugins by hand. A copy,
 * not a link: it must keep working when this package's folder goes away.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BRIDGE_HOST_PATH, bridgeHostFiles } from '@ide-companion/jsonlines/build/bundleHost';
import { installPlugin, onPath, pluginCopyLifecycle } from '@ide-companion/command/pluginInstall';
import { otherAgentsFindIt } from '@ide-companion/shared/agentPaths';
import { type EditorInstaller, type InstallOptions, type InstallResult } from '@ide-companion/command/editorEnd';
import { INSTALLED_HOST, PLUGIN_ROOT, PLUGIN_RUNTIME_ENTRIES } from './pluginFiles.js';

/** micro's config folder, as micro finds it (config.InitConfigDir). */
export function microConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['MICRO_CONFIG_HOME']) return path.resolve(env['MICRO_CONFIG_HOME']);
  const xdg = env['XDG_CONFIG_HOME'] || path.join(env['HOME'] || os.homedir(), '.config');
  return path.join(path.resolve(xdg), 'micro');
}

export function microPluginTarget(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(microConfigDir(env), 'plug', 'ide-companion');
}

export const microInstaller: EditorInstaller = {
  ...pluginCopyLifecycle('the micro plugin', microPluginTarget),

  async detect(options: InstallOptions = {}): Promise<boolean> {
    return onPath('micro', options.env ?? process.env) !== undefined;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    const target = microPluginTarget(options.env ?? process.env);
    return fs.existsSync(path.join(target, 'ide-companion.lua')) && fs.existsSync(path.join(target, INSTALLED_HOST));
  },

  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const host = env['IDE_COMPANION_BRIDGE_HOST'] ? path.resolve(env['IDE_COMPANION_BRIDGE_HOST']) : BRIDGE_HOST_PATH;
    return installPlugin(
      {
        what: 'the micro plugin',
        editor: 'micro',
        editorCommand: 'micro',
        nodeOption: '`set ide_companion.node PATH` in micro',
        source: PLUGIN_ROOT,
        target: microPluginTarget(env),
        files: [
          ...PLUGIN_RUNTIME_ENTRIES.map((entry) => ({ from: path.join(PLUGIN_ROOT, entry), to: entry })),
          ...bridgeHostFiles(path.dirname(INSTALLED_HOST), host),
        ],
        done: `micro starts the companion at startup; \`> ide-status\` shows it, \`> ide-agent\` opens Gemini CLI in a split, \`> help ide-companion\` says the rest; ${otherAgentsFindIt()}.`,
      },
      options,
    );
  },
};
