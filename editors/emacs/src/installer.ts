/**
 * `ide-companion install emacs`: copies the Emacs package (the .el files, the
 * README and the bundled bridge host under host/) into
 * `~/.emacs.d/site-lisp/ide-companion` (or `$XDG_CONFIG_HOME/emacs/...` when
 * that is the Emacs directory in use) and prints the use-package form that
 * loads it. A copy, not a link: it must keep working when this package's
 * directory (an npx cache) goes away.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INSTALL_MARKER, installPlugin, onPath, pluginCopyLifecycle } from '@ide-companion/command/pluginInstall';
import { type EditorInstaller, type InstallOptions, type InstallResult } from '@ide-companion/command/editorEnd';
import { bridgeHostFiles } from '@ide-companion/jsonlines/build/bundleHost';
import { HOST_BUNDLE_PATH, INSTALLED_HOST_PATH, LISP_FILES, PACKAGE_ROOT } from './packageFiles.js';

/**
 * The user's Emacs directory as Emacs 27+ picks it: `~/.emacs.d` when it
 * exists, else `$XDG_CONFIG_HOME/emacs` (default `~/.config/emacs`) when that
 * exists, else `~/.emacs.d`.
 */
export function emacsUserDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const home = env['HOME'] || os.homedir();
  const dotEmacs = path.join(home, '.emacs.d');
  const xdg = path.join(env['XDG_CONFIG_HOME'] || path.join(home, '.config'), 'emacs');
  if (fs.existsSync(dotEmacs)) return dotEmacs;
  if (fs.existsSync(xdg)) return xdg;
  return dotEmacs;
}

export function emacsInstallTarget(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(emacsUserDirectory(env), 'site-lisp', 'ide-companion');
}

/** The form to put in init.el, with the path as the user would write it. */
export function usePackageForm(target: string, env: NodeJS.ProcessEnv = process.env): string {
  const home = env['HOME'] || os.homedir();
  const shown = target.startsWith(home + path.sep) ? `~${target.slice(home.length)}` : target;
  return `(use-package ide-companion\n  :load-path ${JSON.stringify(shown)}\n  :config (ide-companion-mode 1))`;
}

/** Source files and where each goes inside the target. */
function runtimeFiles(): Array<{ from: string; to: string }> {
  return [
    ...LISP_FILES.map((name) => ({ from: path.join(PACKAGE_ROOT, name), to: name })),
    { from: path.join(PACKAGE_ROOT, 'README.md'), to: 'README.md' },
    ...bridgeHostFiles(path.dirname(INSTALLED_HOST_PATH), HOST_BUNDLE_PATH),
  ];
}

export const emacsInstaller: EditorInstaller = {
  ...pluginCopyLifecycle('the Emacs package', emacsInstallTarget),

  async detect(options: InstallOptions = {}): Promise<boolean> {
    return onPath('emacs', options.env ?? process.env) !== undefined;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    const target = emacsInstallTarget(options.env ?? process.env);
    return fs.existsSync(path.join(target, 'ide-companion.el')) && fs.existsSync(path.join(target, INSTALL_MARKER));
  },

  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const target = emacsInstallTarget(env);
    return installPlugin(
      {
        what: 'the Emacs package',
        editor: 'Emacs',
        editorCommand: 'emacs',
        nodeOption: 'ide-companion-node-program',
        source: PACKAGE_ROOT,
        target,
        files: runtimeFiles(),
        done: `Add this to your init file:\n\n${usePackageForm(target, env)}\n\nthen M-x ide-companion-gemini opens Gemini CLI in a terminal tied to this Emacs.`,
      },
      options,
    );
  },
};
