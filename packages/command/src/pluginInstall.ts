/**
 * What every editor plugin installer does (Neovim, Vim, Emacs): check the
 * plugin's files, refuse a folder it did not write, note a missing or old
 * `node` or editor, then copy beside the target and swap, so a failed copy
 * leaves any previous install intact. A copy, not a link: it must keep working
 * when this package's directory (an npx cache) goes away.
 */
import { childProcess } from './childProcess.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EditorInstaller, InstallOptions, InstallResult } from './editorEnd.js';
import { isInside } from '@ide-companion/shared/realPaths';
import { COMPANION_VERSION } from '@ide-companion/shared/version';

/** Marks a directory an installer wrote, so it is replaced on reinstall and nothing else is. */
export const INSTALL_MARKER = '.ide-companion-install.json';
/** The Node.js every host needs (Gemini CLI needs it too). */
export const MIN_NODE_MAJOR = 20;

export { onPath } from '@ide-companion/shared/onPath';
import { onPath } from '@ide-companion/shared/onPath';

/** Major version of the `node` on PATH (what the editor starts the host with), or undefined. */
export function nodeMajorOnPath(env: NodeJS.ProcessEnv): number | undefined {
  const node = onPath('node', env);
  if (!node) return undefined;
  const r = childProcess().spawnSync(node, ['--version'], { encoding: 'utf8', env });
  const major = Number(/^v(\d+)\./.exec(r.stdout ?? '')?.[1]);
  return Number.isFinite(major) ? major : undefined;
}

export interface PluginCopy {
  /** A file or folder of the plugin. */
  from: string;
  /** Where it goes, relative to the target. */
  to: string;
}

export interface PluginInstall {
  /** "the Vim plugin", "the Emacs package". */
  what: string;
  /** The editor's name and its command (`Vim`, `vim`): a note when the command is not on PATH. */
  editor: string;
  editorCommand: string;
  /** How a user points the plugin at another node, for the note (e.g. `g:ide_companion_node`). */
  nodeOption: string;
  source: string;
  target: string;
  files: readonly PluginCopy[];
  /** Runs on the staged copy before the swap (help tags, say); returns extra notes. */
  finish?: (staging: string) => string[];
  /** What to tell the user after a successful install. */
  done: string;
}

/** Installs (or, with `dryRun`, describes) a plugin copy as the header says. */
export function installPlugin(plugin: PluginInstall, options: InstallOptions): InstallResult {
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const { target } = plugin;
  const missing = plugin.files.filter((f) => !fs.existsSync(f.from)).map((f) => f.from);
  if (missing.length > 0) {
    return { success: false, message: `${capitalized(plugin.what)} is incomplete (missing ${missing.join(', ')}); reinstall ide-companion.` };
  }
  if (fs.existsSync(target) && !fs.existsSync(path.join(target, INSTALL_MARKER))) {
    return {
      success: false,
      message: `${target} exists and was not written by this installer (a manual install or a link?); remove it and run the install again.`,
    };
  }
  const notes: string[] = [];
  const nodeMajor = nodeMajorOnPath(env);
  if (nodeMajor === undefined) {
    notes.push(
      `${plugin.editor} starts the companion's host with \`node\`, which is not on PATH: install Node.js >= ${MIN_NODE_MAJOR} (or set ${plugin.nodeOption}).`,
    );
  } else if (nodeMajor < MIN_NODE_MAJOR) {
    notes.push(`\`node\` on PATH is version ${nodeMajor}; the companion needs Node.js >= ${MIN_NODE_MAJOR} (or set ${plugin.nodeOption}).`);
  }
  if (onPath(plugin.editorCommand, env) === undefined) notes.push(`\`${plugin.editorCommand}\` is not on PATH; ${plugin.what} is installed for when it is.`);

  if (options.dryRun) {
    log(`would copy ${plugin.files.map((f) => f.to).join(', ')} to ${target}`);
    return { success: true, message: [`Would install ${plugin.what} into ${target}.`, ...notes].join(' '), changed: [] };
  }
  const staging = `${target}.new-${process.pid}`;
  try {
    fs.rmSync(staging, { recursive: true, force: true });
    // The first folder above the copy this install made (~/.vim, say), else the one an earlier install made: uninstall removes them once empty.
    const first = fs.mkdirSync(staging, { recursive: true });
    const made = first !== undefined && first !== staging ? first : readMarker(target).made;
    for (const file of plugin.files) {
      log(`copying ${file.to}`);
      fs.mkdirSync(path.dirname(path.join(staging, file.to)), { recursive: true });
      fs.cpSync(file.from, path.join(staging, file.to), { recursive: true, dereference: true });
    }
    notes.push(...(plugin.finish?.(staging) ?? []));
    fs.writeFileSync(
      path.join(staging, INSTALL_MARKER),
      `${JSON.stringify({ version: COMPANION_VERSION, source: plugin.source, installedAt: new Date().toISOString(), ...(made && { made }) }, null, 2)}\n`,
    );
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(staging, target);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    return { success: false, message: `Could not install ${plugin.what} into ${target}: ${(err as Error).message}` };
  }
  log(`installed into ${target}`);
  return { success: true, message: [`Installed ${plugin.what} into ${target}. ${plugin.done}`, ...notes].join(' '), changed: [target] };
}

/** What an installer wrote into `target`'s marker: its version, and the first folder above it the install made (each undefined when not there). */
function readMarker(target: string): { version?: string; made?: string } {
  try {
    const marker = JSON.parse(fs.readFileSync(path.join(target, INSTALL_MARKER), 'utf8')) as { version?: unknown; made?: unknown };
    return {
      ...(typeof marker.version === 'string' && { version: marker.version }),
      ...(typeof marker.made === 'string' && path.isAbsolute(marker.made) && { made: marker.made }),
    };
  } catch {
    return {};
  }
}

/** The version an installer wrote into `target`'s marker (undefined: none there, or from before versions were recorded). */
export function installedPluginVersion(target: string): string | undefined {
  return readMarker(target).version;
}

/** Removes a plugin copy `installPlugin` wrote (its marker says so); refuses any other folder. */
export function uninstallPlugin(what: string, target: string, options: InstallOptions, leftovers: readonly string[] = []): InstallResult {
  if (!fs.existsSync(target)) return { success: true, message: `${capitalized(what)} is not installed (${target} does not exist).`, changed: [] };
  if (!fs.existsSync(path.join(target, INSTALL_MARKER))) {
    return { success: false, message: `${target} was not written by \`ide-companion install\` (a manual install or a link?); left as it is.` };
  }
  if (options.dryRun) return { success: true, message: `Would remove ${target}.`, changed: [] };
  const { made } = readMarker(target);
  try {
    fs.rmSync(target, { recursive: true, force: true });
  } catch (err) {
    return { success: false, message: `Could not remove ${target}: ${(err as Error).message}` };
  }
  // The folders install made for it, when nothing else is in them: up to the first it made (~/.vim/pack, or ~/.vim
  // in a new home), never one the user had; an install that noted none made at least pack/ide-companion/start.
  const madeByInstall = (dir: string) => made !== undefined && isInside(made, dir, true);
  for (let dir = path.dirname(target); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const ours = madeByInstall(dir) || path.basename(dir) === 'ide-companion' || path.basename(path.dirname(dir)) === 'ide-companion';
    if (!ours || fs.readdirSync(dir).length > 0) break;
    fs.rmdirSync(dir);
  }
  for (const file of leftovers) fs.rmSync(file, { force: true });
  options.log?.(`removed ${target}`);
  return { success: true, message: `Removed ${what} from ${target}.`, changed: [target] };
}

/**
 * `installedVersion` and `uninstall` of an installer that copies a plugin into
 * `targetOf(env)`; uninstalling also removes `leftoversOf(env)`, files the
 * plugin writes as it runs (its log).
 */
export function pluginCopyLifecycle(
  what: string,
  targetOf: (env: NodeJS.ProcessEnv) => string,
  leftoversOf: (env: NodeJS.ProcessEnv) => string[] = () => [],
): Required<Pick<EditorInstaller, 'installedVersion' | 'uninstall'>> {
  return {
    installedVersion: async (options = {}) => installedPluginVersion(targetOf(options.env ?? process.env)),
    uninstall: async (options) => uninstallPlugin(what, targetOf(options.env ?? process.env), options, leftoversOf(options.env ?? process.env)),
  };
}

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
