/**
 * `ide-companion install kakoune`: copies the script, its bridge and the JSON-lines host into
 * Kakoune's autoload folder, `~/.config/kak/autoload/ide-companion` (`$KAKOUNE_CONFIG_DIR`,
 * `$XDG_CONFIG_HOME/kak`), where Kakoune sources every `.kak` at start. Kakoune loads its own
 * standard library (/usr/share/kak/autoload) only while the user has no autoload folder: one this
 * install makes gets the usual link to it, which uninstall removes with the folder once nothing else
 * is there.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bridgeHostFiles } from '@ide-companion/jsonlines/build/bundleHost';
import { INSTALL_MARKER, installPlugin, onPath, pluginCopyLifecycle } from '@ide-companion/command/pluginInstall';
import { isInside } from '@ide-companion/shared/realPaths';
import { otherAgentsFindIt } from '@ide-companion/shared/agentPaths';
import type { EditorInstaller, InstallOptions, InstallResult } from '@ide-companion/command/editorEnd';
import { PLUGIN_BRIDGE, PLUGIN_ROOT, PLUGIN_SCRIPT } from './pluginFiles.js';

/** The link to Kakoune's standard library an install made, named as users name it. */
const STDLIB_LINK = 'standard-library';
/** The note, in the plugin's folder, that the link is the install's. */
const MADE_LINK = 'made-link';

function kakConfig(env: NodeJS.ProcessEnv): string {
  return env['KAKOUNE_CONFIG_DIR'] || path.join(env['XDG_CONFIG_HOME'] || path.join(env['HOME'] || os.homedir(), '.config'), 'kak');
}

export function kakouneTarget(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(kakConfig(env), 'autoload', 'ide-companion');
}

/** Kakoune's own autoload folder: beside the `kak` on PATH (PREFIX/bin → PREFIX/share/kak), else Debian's. */
function runtimeAutoload(env: NodeJS.ProcessEnv): string {
  const kak = onPath('kak', env);
  const beside = kak && path.join(path.dirname(path.dirname(fs.realpathSync(kak))), 'share', 'kak', 'autoload');
  return beside && fs.existsSync(beside) ? beside : '/usr/share/kak/autoload';
}

const lifecycle = pluginCopyLifecycle('the Kakoune plugin', kakouneTarget);

export const kakouneInstaller: EditorInstaller = {
  installedVersion: lifecycle.installedVersion,

  async detect(options: InstallOptions = {}): Promise<boolean> {
    return onPath('kak', options.env ?? process.env) !== undefined;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    return fs.existsSync(path.join(kakouneTarget(options.env ?? process.env), 'ide-companion.kak'));
  },

  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const target = kakouneTarget(env);
    const autoload = path.dirname(target);
    const hadAutoload = fs.existsSync(autoload);
    // A reinstall keeps the note of the link the first install made.
    const linkOurs = !hadAutoload || fs.existsSync(path.join(target, MADE_LINK));
    const result = installPlugin(
      {
        what: 'the Kakoune plugin',
        editor: 'Kakoune',
        editorCommand: 'kak',
        nodeOption: 'the ide_companion_node option',
        source: PLUGIN_ROOT,
        target,
        files: [
          { from: PLUGIN_SCRIPT, to: 'ide-companion.kak' },
          { from: PLUGIN_BRIDGE, to: 'kak-bridge.mjs' },
          { from: path.join(PLUGIN_ROOT, 'README.md'), to: 'README.md' },
          ...bridgeHostFiles('host', env['IDE_COMPANION_BRIDGE_HOST'] ? path.resolve(env['IDE_COMPANION_BRIDGE_HOST']) : undefined),
        ],
        done: `Kakoune starts the companion at startup; :ide-status shows it, :ide-terminal runs Gemini CLI beside it; ${otherAgentsFindIt()}.`,
      },
      options,
    );
    if (result.success && !options.dryRun && linkOurs) {
      // A new autoload folder hides Kakoune's own: link it in, as Kakoune's docs say, and note it for uninstall.
      if (!hadAutoload) fs.symlinkSync(runtimeAutoload(env), path.join(autoload, STDLIB_LINK));
      fs.writeFileSync(path.join(target, MADE_LINK), `${STDLIB_LINK}\n`);
    }
    return result;
  },

  async uninstall(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const target = kakouneTarget(env);
    const autoload = path.dirname(target);
    const link = path.join(autoload, STDLIB_LINK);
    // Our link goes only with the folder it was made for: when nothing but the plugin and the link are in it.
    const ours = fs.existsSync(path.join(target, MADE_LINK)) && fs.readdirSync(autoload).every((e) => e === STDLIB_LINK || e === 'ide-companion');
    const made = ours ? madeFolder(target) : undefined;
    const result = await lifecycle.uninstall(options);
    if (result.success && !options.dryRun && ours && fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) {
      fs.rmSync(link);
      // uninstallPlugin left the autoload folder for the link: now empty, it goes with the folders install made.
      for (let dir = autoload; made && isInside(made, dir, true) && fs.readdirSync(dir).length === 0; dir = path.dirname(dir)) fs.rmdirSync(dir);
    }
    return result;
  },
};

/** The first folder above the plugin the install made (its marker's `made`), if any. */
function madeFolder(target: string): string | undefined {
  try {
    const made = (JSON.parse(fs.readFileSync(path.join(target, INSTALL_MARKER), 'utf8')) as { made?: unknown }).made;
    return typeof made === 'string' && path.isAbsolute(made) ? made : undefined;
  } catch {
    return undefined;
  }
}
