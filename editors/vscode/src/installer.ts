/**
 * `ide-companion install vscode`: installs the extension's .vsix into every
 * VS Code-family editor on PATH (code, code-insiders, codium, cursor,
 * windsurf, code-server) with `--install-extension`.
 *
 * The .vsix is built from this checkout when it is missing or older than the
 * extension's sources (`npm run package -w editors/vscode`, which needs the
 * dev dependencies `npm install` brings); a published package ships it built.
 */
import { childProcess } from '@ide-companion/command/childProcess';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onPath } from '@ide-companion/command/pluginInstall';
import { AGENTS, agentsInWords } from '@ide-companion/shared/agentPaths';
import { type EditorInstaller, type InstallOptions, type InstallResult } from '@ide-companion/command/editorEnd';
import { shippedFolder } from '@ide-companion/server/shippedFiles';

/** editors/vscode (this file compiles to editors/vscode/dist/src/). */
export const EXTENSION_ROOT = shippedFolder(import.meta.url, '../..', 'editors/vscode');
export const VSIX_PATH = path.join(EXTENSION_ROOT, 'ide-companion-vscode.vsix');
export const EXTENSION_ID = 'ide-companion.ide-companion-vscode';
/** The commands of VS Code and the forks that take `--install-extension`. */
const EDITOR_COMMANDS: ReadonlyArray<[command: string, name: string]> = [
  ['code', 'VS Code'],
  ['code-insiders', 'VS Code Insiders'],
  ['codium', 'VSCodium'],
  ['cursor', 'Cursor'],
  ['windsurf', 'Windsurf'],
  ['code-server', 'code-server'],
];
const CLI_TIMEOUT_MS = 120_000;

export interface VsCodeEditorBinary {
  command: string;
  name: string;
  path: string;
}

export function findVsCodeEditors(env: NodeJS.ProcessEnv = process.env): VsCodeEditorBinary[] {
  const found: VsCodeEditorBinary[] = [];
  for (const [command, name] of EDITOR_COMMANDS) {
    const p = onPath(command, env);
    if (p) found.push({ command, name, path: p });
  }
  return found;
}

function newestSourceMtime(): number {
  let newest = fs.statSync(path.join(EXTENSION_ROOT, 'package.json')).mtimeMs;
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  // The bundle takes in the protocol, shared and server packages too (and how it is built), so a change there repackages.
  const repo = path.resolve(EXTENSION_ROOT, '..', '..');
  for (const dir of [
    path.join(EXTENSION_ROOT, 'src'),
    path.join(EXTENSION_ROOT, 'scripts'),
    ...['protocol', 'shared', 'server', 'bundler'].map((p) => path.join(repo, 'packages', p, 'src')),
  ]) {
    if (fs.existsSync(dir)) walk(dir);
  }
  return newest;
}

/** The .vsix, built first when missing or older than the sources. Throws with a message for the user. */
export function ensureVsix(log: (line: string) => void = () => undefined): string {
  const hasSources = fs.existsSync(path.join(EXTENSION_ROOT, 'src'));
  if (fs.existsSync(VSIX_PATH) && (!hasSources || fs.statSync(VSIX_PATH).mtimeMs >= newestSourceMtime())) return VSIX_PATH;
  if (!hasSources) throw new Error(`${VSIX_PATH} is missing; reinstall ide-companion`);
  log(`packaging the extension (${path.relative(process.cwd(), VSIX_PATH) || VSIX_PATH})`);
  const r = childProcess().spawnSync(process.execPath, [path.join(EXTENSION_ROOT, 'scripts', 'package.mjs')], { cwd: EXTENSION_ROOT, encoding: 'utf8' });
  if (r.status !== 0 || !fs.existsSync(VSIX_PATH)) {
    const why = (r.stderr || r.stdout || String(r.error ?? '')).trim().split('\n').slice(-3).join(' ');
    throw new Error(`could not package the VS Code extension (run \`npm install\` in the repository first): ${why}`);
  }
  return VSIX_PATH;
}

/** The extension's version as `EDITOR --list-extensions --show-versions` lists it, or undefined when it is not installed there. */
function listedVersion(editor: VsCodeEditorBinary, env: NodeJS.ProcessEnv): string | undefined {
  const r = childProcess().spawnSync(editor.path, ['--list-extensions', '--show-versions'], { encoding: 'utf8', env, timeout: CLI_TIMEOUT_MS });
  if (r.status !== 0) return undefined;
  const line = r.stdout.split('\n').find((l) => l.toLowerCase().startsWith(`${EXTENSION_ID}@`));
  return line?.slice(EXTENSION_ID.length + 1).trim();
}

export const vscodeInstaller: EditorInstaller = {
  async detect(options: InstallOptions = {}): Promise<boolean> {
    return findVsCodeEditors(options.env ?? process.env).length > 0;
  },

  async isInstalled(options: InstallOptions = {}): Promise<boolean> {
    const env = options.env ?? process.env;
    const editor = findVsCodeEditors(env)[0];
    return editor !== undefined && listedVersion(editor, env) !== undefined;
  },

  async installedVersion(options: InstallOptions = {}): Promise<string | undefined> {
    const env = options.env ?? process.env;
    const editor = findVsCodeEditors(env)[0];
    return editor && listedVersion(editor, env);
  },

  async uninstall(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const log = options.log ?? (() => undefined);
    const holding = findVsCodeEditors(env).filter((e) => listedVersion(e, env) !== undefined);
    if (holding.length === 0) return { success: true, message: 'The extension is not installed in any VS Code-family editor on PATH.', changed: [] };
    if (options.dryRun)
      return { success: true, message: `Would run ${holding.map((e) => `${e.command} --uninstall-extension ${EXTENSION_ID}`).join(', ')}.`, changed: [] };
    const failed: string[] = [];
    for (const editor of holding) {
      log(`${editor.command} --uninstall-extension ${EXTENSION_ID}`);
      const r = childProcess().spawnSync(editor.path, ['--uninstall-extension', EXTENSION_ID], { encoding: 'utf8', env, timeout: CLI_TIMEOUT_MS });
      if (r.status !== 0) failed.push(`${editor.name} (${(r.stderr || r.stdout || `exit ${r.status}`).trim().split('\n').pop()})`);
    }
    if (failed.length > 0) return { success: false, message: `Could not uninstall the extension from ${failed.join('; ')}.` };
    return { success: true, message: `Uninstalled the extension from ${holding.map((e) => e.name).join(', ')}.`, changed: [EXTENSION_ID] };
  },

  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const log = options.log ?? (() => undefined);
    const editors = findVsCodeEditors(env);
    if (editors.length === 0) {
      return {
        success: false,
        message: `None of ${EDITOR_COMMANDS.map(([c]) => c).join(', ')} is on PATH. In VS Code run "Shell Command: Install 'code' command in PATH", or install ${path.basename(VSIX_PATH)} from the Extensions view (… → Install from VSIX).`,
      };
    }
    if (options.dryRun) {
      return {
        success: true,
        message: `Would install ${VSIX_PATH} with ${editors.map((e) => `${e.command} --install-extension`).join(', ')}.`,
        changed: [],
      };
    }
    let vsix: string;
    try {
      vsix = ensureVsix(log);
    } catch (err) {
      return { success: false, message: (err as Error).message };
    }
    const done: string[] = [];
    const failed: string[] = [];
    for (const editor of editors) {
      log(`${editor.command} --install-extension ${vsix}`);
      const r = childProcess().spawnSync(editor.path, ['--install-extension', vsix, '--force'], { encoding: 'utf8', env, timeout: CLI_TIMEOUT_MS });
      if (r.status === 0) done.push(editor.name);
      else failed.push(`${editor.name} (${(r.stderr || r.stdout || String(r.error ?? `exit ${r.status}`)).trim().split('\n').pop()})`);
    }
    const parts: string[] = [];
    if (done.length > 0)
      parts.push(
        `Installed the Gemini CLI companion in ${done.join(', ')}. Reload open windows ("Developer: Reload Window"), then run "Gemini CLI: Run"; ${agentsInWords(AGENTS.filter((a) => a !== 'gemini'))} in its terminals find it too (docs/agents.md).`,
      );
    if (failed.length > 0) parts.push(`Failed in ${failed.join('; ')}.`);
    return { success: done.length > 0 && failed.length === 0, message: parts.join(' '), changed: done.length > 0 ? [vsix] : [] };
  },
};
