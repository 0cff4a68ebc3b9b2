/**
 * `ide-companion install emacs`: copies the Emacs package (the .el files, the
 * README and the bundled bridge host under host/) into
 * `~/.emacs.d/site-lisp/ide-companion` (or `$XDG_CONFIG_HOME/emacs/...` when
 * that is the Emacs directory in use) and prints the init file's lines that
 * load it (initForm); `uninstall` names them again. A copy, not a link: it must keep working when this package's
 * directory (an npx cache) goes away. The release's package file installed
 * with `M-x package-install-file` lands in `elpa/ide-companion-VERSION`
 * instead: `install` lists it as installed and `uninstall` removes it too.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INSTALL_MARKER, installPlugin, onPath, pluginCopyLifecycle } from '@ide-companion/command/pluginInstall';
import { type EditorInstaller, type InstallOptions, type InstallResult } from '@ide-companion/command/editorEnd';
import { bridgeHostFiles } from '@ide-companion/jsonlines/build/bundleHost';
import { otherAgentsFindIt } from '@ide-companion/shared/agentPaths';
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

/**
 * The folders `M-x package-install-file` made from the release's package
 * (`elpa/ide-companion-VERSION` in the Emacs directory, package-user-dir's
 * default), with the version of each.
 */
export function elpaInstalls(env: NodeJS.ProcessEnv = process.env): Array<{ dir: string; version: string }> {
  const elpa = path.join(emacsUserDirectory(env), 'elpa');
  let names: string[];
  try {
    names = fs.readdirSync(elpa);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const version = /^ide-companion-(\d+(?:\.\d+)*)$/.exec(name)?.[1];
    const dir = path.join(elpa, name);
    return version && fs.existsSync(path.join(dir, 'ide-companion.el')) ? [{ dir, version }] : [];
  });
}

/**
 * The lines to put in the init file, with the path as the user would write it.
 * Plain Emacs 27+ (use-package is built in only from 29), and harmless once
 * the package is gone: `require` with NOERROR, so a start after `uninstall`
 * does not stop at these lines.
 */
export function initForm(target: string, env: NodeJS.ProcessEnv = process.env): string {
  return `(add-to-list 'load-path ${JSON.stringify(shownPath(target, env))})\n(when (require 'ide-companion nil t)\n  (ide-companion-mode 1))`;
}

/** PATH with the home folder as `~`, as the user writes it. */
function shownPath(file: string, env: NodeJS.ProcessEnv): string {
  const home = env['HOME'] || os.homedir();
  return file.startsWith(home + path.sep) ? `~${file.slice(home.length)}` : file;
}

/** The init file Emacs reads (`~/.emacs` when it exists, else init.el in the Emacs directory), as the user writes it. */
function initFile(env: NodeJS.ProcessEnv): string {
  const dotEmacs = path.join(env['HOME'] || os.homedir(), '.emacs');
  return shownPath(fs.existsSync(dotEmacs) ? dotEmacs : path.join(emacsUserDirectory(env), 'init.el'), env);
}

/** Source files and where each goes inside the target. */
function runtimeFiles(): Array<{ from: string; to: string }> {
  return [
    ...LISP_FILES.map((name) => ({ from: path.join(PACKAGE_ROOT, name), to: name })),
    { from: path.join(PACKAGE_ROOT, 'README.md'), to: 'README.md' },
    ...bridgeHostFiles(path.dirname(INSTALLED_HOST_PATH), HOST_BUNDLE_PATH),
  ];
}

const siteLisp = pluginCopyLifecycle('the Emacs package', emacsInstallTarget);

export const emacsInstaller: EditorInstaller = {
  async installedVersion(options: InstallOptions = {}): Promise<string | undefined> {
    return (await siteLisp.installedVersion(options)) ?? elpaInstalls(options.env ?? process.env).at(-1)?.version;
  },

  /** The site-lisp copy `install` made (then it names the init file's lines), and every package `package-install-file` made. */
  async uninstall(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const packages = elpaInstalls(env).map((p) => p.dir);
    const removed = await siteLisp.uninstall(options);
    const copy =
      (removed.changed?.length ?? 0) > 0
        ? {
            ...removed,
            message: `${removed.message} Take the lines \`install\` printed out of your init file (${initFile(env)}; left in, they do nothing):\n\n${initForm(emacsInstallTarget(env), env)}\n\n(or the use-package form an older install printed).`,
          }
        : removed;
    if (packages.length === 0) return copy;
    const fromCopy = (copy.changed?.length ?? 0) > 0 || !copy.success ? `${copy.message} ` : '';
    if (options.dryRun) return { success: copy.success, message: `${fromCopy}Would remove ${packages.join(', ')}.`, changed: [] };
    try {
      for (const dir of packages) fs.rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      return { success: false, message: `${fromCopy}Could not remove ${packages.join(', ')}: ${(err as Error).message}`, changed: copy.changed };
    }
    for (const dir of packages) options.log?.(`removed ${dir}`);
    return {
      success: copy.success,
      message: `${fromCopy}Removed the Emacs package from ${packages.join(', ')} (package-install-file's). Take (ide-companion-mode 1) out of your init file.`,
      changed: [...(copy.changed ?? []), ...packages],
    };
  },

  async detect(options: InstallOptions = {}): Promise<boolean> {
    return onPath('emacs', options.env ?? process.env) !== undefined;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    const env = options.env ?? process.env;
    const target = emacsInstallTarget(env);
    return (fs.existsSync(path.join(target, 'ide-companion.el')) && fs.existsSync(path.join(target, INSTALL_MARKER))) || elpaInstalls(env).length > 0;
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
        done: `Add these lines to your init file (${initFile(env)}):\n\n${initForm(target, env)}\n\nthen M-x ide-companion-gemini opens Gemini CLI in a terminal tied to this Emacs; ${otherAgentsFindIt()}.`,
      },
      options,
    );
  },
};
