/**
 * `ide-companion install emacs`: copies the Emacs package (the .el files, the
 * README and the bundled bridge host under host/) into
 * `~/.emacs.d/site-lisp/ide-companion` (or `$XDG_CONFIG_HOME/emacs/...` when
 * that is the Emacs directory in use) and prints the use-package form that
 * loads it. A copy, not a link: it must keep working when this package's
 * directory (an npx cache) goes away.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EditorInstaller, InstallOptions, InstallResult } from '@ide-companion/server';
import { HOST_BUNDLE_PATH, INSTALLED_HOST_PATH, LISP_FILES, PACKAGE_ROOT } from './packageFiles.js';

/** Marks a directory this installer wrote, so it is replaced on reinstall and nothing else is. */
export const EMACS_INSTALL_MARKER = '.ide-companion-install.json';
const MIN_NODE_MAJOR = 20;

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

function onPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', command], { encoding: 'utf8', env });
  const out = r.stdout?.trim();
  return r.status === 0 && out ? out : undefined;
}

function nodeMajorOnPath(env: NodeJS.ProcessEnv): number | undefined {
  const node = onPath('node', env);
  if (!node) return undefined;
  const r = spawnSync(node, ['--version'], { encoding: 'utf8', env });
  const major = Number(/^v(\d+)\./.exec(r.stdout ?? '')?.[1]);
  return Number.isFinite(major) ? major : undefined;
}

/** Source files and where each goes inside the target. */
function runtimeFiles(): Array<{ from: string; to: string }> {
  return [
    ...LISP_FILES.map((name) => ({ from: path.join(PACKAGE_ROOT, name), to: name })),
    { from: path.join(PACKAGE_ROOT, 'README.md'), to: 'README.md' },
    { from: HOST_BUNDLE_PATH, to: INSTALLED_HOST_PATH },
  ];
}

export const emacsInstaller: EditorInstaller = {
  async detect(options: InstallOptions = {}): Promise<boolean> {
    return onPath('emacs', options.env ?? process.env) !== undefined;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    const target = emacsInstallTarget(options.env ?? process.env);
    return fs.existsSync(path.join(target, 'ide-companion.el')) && fs.existsSync(path.join(target, EMACS_INSTALL_MARKER));
  },

  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const log = options.log ?? (() => undefined);
    const target = emacsInstallTarget(env);
    const files = runtimeFiles();
    const missing = files.filter((f) => !fs.existsSync(f.from)).map((f) => f.from);
    if (missing.length > 0) {
      return { success: false, message: `The Emacs package is incomplete (missing ${missing.join(', ')}); reinstall ide-companion.` };
    }
    if (fs.existsSync(target) && !fs.existsSync(path.join(target, EMACS_INSTALL_MARKER))) {
      return {
        success: false,
        message: `${target} exists and was not written by this installer (a manual install or a link?); remove it and run the install again.`,
      };
    }
    const notes: string[] = [];
    const nodeMajor = nodeMajorOnPath(env);
    if (nodeMajor === undefined)
      notes.push(
        `Emacs starts the package's host with \`node\`, which is not on PATH: install Node.js >= ${MIN_NODE_MAJOR} (or set ide-companion-node-program).`,
      );
    else if (nodeMajor < MIN_NODE_MAJOR)
      notes.push(`\`node\` on PATH is version ${nodeMajor}; the package needs Node.js >= ${MIN_NODE_MAJOR} (or set ide-companion-node-program).`);
    if (onPath('emacs', env) === undefined) notes.push('`emacs` is not on PATH; the package is installed for when it is.');
    const form = usePackageForm(target, env);

    if (options.dryRun) {
      log(`would copy ${files.map((f) => f.to).join(', ')} to ${target}`);
      return { success: true, message: [`Would install the Emacs package into ${target}.`, ...notes].join(' '), changed: [] };
    }
    // Copy beside the target, then swap: a failed copy leaves any previous install intact.
    const staging = `${target}.new-${process.pid}`;
    try {
      fs.rmSync(staging, { recursive: true, force: true });
      for (const file of files) {
        log(`copying ${file.to}`);
        fs.mkdirSync(path.dirname(path.join(staging, file.to)), { recursive: true });
        fs.copyFileSync(file.from, path.join(staging, file.to));
      }
      fs.writeFileSync(
        path.join(staging, EMACS_INSTALL_MARKER),
        `${JSON.stringify({ source: PACKAGE_ROOT, installedAt: new Date().toISOString() }, null, 2)}\n`,
      );
      fs.rmSync(target, { recursive: true, force: true });
      fs.renameSync(staging, target);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      return { success: false, message: `Could not install the Emacs package into ${target}: ${(err as Error).message}` };
    }
    log(`installed into ${target}`);
    return {
      success: true,
      message: [
        `Installed the Emacs package into ${target}. Add this to your init file:\n\n${form}\n\nthen M-x ide-companion-gemini opens Gemini CLI in a terminal tied to this Emacs.`,
        ...notes,
      ].join(' '),
      changed: [target],
    };
  },
};
