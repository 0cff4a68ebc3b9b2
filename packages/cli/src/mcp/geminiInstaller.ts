/**
 * `ide-companion install gemini`: installs the Gemini CLI extension
 * (packages/cli/gemini-extension: the MCP server of `ide-companion mcp` as one
 * bundled file, and a context file for the model). With `gemini` on PATH it
 * runs `gemini extensions install DIR --consent` (an older copy is uninstalled
 * first, so this also updates); without it, it copies the folder into
 * ~/.gemini/extensions/ide-companion as that command does.
 */
import { childProcess } from '@ide-companion/command/childProcess';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EditorEnd, EditorInstaller, InstallOptions, InstallResult } from '@ide-companion/command/editorEnd';
import { onPath } from '@ide-companion/command/pluginInstall';
import { GEMINI_EXTENSION_DIR } from './build/bundle.js';

export const EXTENSION_NAME = 'ide-companion';
const CONFIG_FILE = 'gemini-extension.json';
/** What `gemini extensions install` writes beside a local extension. */
const INSTALL_METADATA_FILE = '.gemini-extension-install.json';

/** Gemini CLI's home: GEMINI_CLI_HOME, else the user's home. */
function geminiHome(env: NodeJS.ProcessEnv): string {
  return env['GEMINI_CLI_HOME'] || env['HOME'] || os.homedir();
}

export function installedExtensionDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(geminiHome(env), '.gemini', 'extensions', EXTENSION_NAME);
}

/** `gemini` on the env's PATH, or undefined. */
function findGemini(env: NodeJS.ProcessEnv): string | undefined {
  return onPath('gemini', env);
}

/** Runs `gemini ARGS`; stdin stays the user's (the CLI may ask whether to trust the folder). */
function runGemini(gemini: string, args: string[], env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = childProcess().spawn(gemini, args, { env, stdio: ['inherit', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let output = '';
    const take = (d: Buffer) => {
      output += d.toString();
      for (const line of d.toString().split('\n')) if (line.trim()) log(`gemini: ${line.trimEnd()}`);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', (err) => resolve({ code: 127, output: err.message }));
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

function copyAsGeminiWould(source: string, dest: string): void {
  fs.rmSync(dest, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.cpSync(source, dest, { recursive: true });
  fs.writeFileSync(path.join(dest, INSTALL_METADATA_FILE), JSON.stringify({ source, type: 'local' }, null, 2));
}

export const geminiInstaller: EditorInstaller = {
  // Not an editor: the list names the extension, and whether the gemini command is there.
  listed: { name: 'Gemini CLI extension', found: 'gemini' },
  async detect(options?: InstallOptions) {
    return findGemini(options?.env ?? process.env) !== undefined;
  },
  async isInstalled(options?: InstallOptions) {
    return fs.existsSync(path.join(installedExtensionDir(options?.env ?? process.env), CONFIG_FILE));
  },
  async installedVersion(options?: InstallOptions) {
    try {
      const config = JSON.parse(fs.readFileSync(path.join(installedExtensionDir(options?.env ?? process.env), CONFIG_FILE), 'utf8')) as { version?: unknown };
      return typeof config.version === 'string' ? config.version : undefined;
    } catch {
      return undefined;
    }
  },
  async uninstall(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const log = options.log ?? (() => undefined);
    const dest = installedExtensionDir(env);
    if (!fs.existsSync(path.join(dest, CONFIG_FILE)))
      return { success: true, message: `The Gemini CLI extension ${EXTENSION_NAME} is not installed.`, changed: [] };
    const gemini = findGemini(env);
    if (options.dryRun)
      return { success: true, message: gemini ? `Would run: gemini extensions uninstall ${EXTENSION_NAME}.` : `Would remove ${dest}.`, changed: [] };
    if (gemini) {
      const removed = await runGemini(gemini, ['extensions', 'uninstall', EXTENSION_NAME], env, log);
      if (removed.code !== 0)
        return { success: false, message: `gemini extensions uninstall ${EXTENSION_NAME} failed (exit ${removed.code}): ${removed.output.trim()}` };
    } else {
      log(`gemini is not on PATH: removing ${dest} as \`gemini extensions uninstall\` would`);
      fs.rmSync(dest, { recursive: true, force: true });
    }
    return { success: true, message: `Removed the Gemini CLI extension ${EXTENSION_NAME} (${dest}).`, changed: [dest] };
  },
  async install(options: InstallOptions): Promise<InstallResult> {
    const env = options.env ?? process.env;
    const log = options.log ?? (() => undefined);
    const source = GEMINI_EXTENSION_DIR;
    const dest = installedExtensionDir(env);
    if (!fs.existsSync(path.join(source, CONFIG_FILE))) {
      return { success: false, message: `The extension is missing from this installation of ide-companion (${source}).` };
    }
    const gemini = findGemini(env);
    const already = fs.existsSync(path.join(dest, CONFIG_FILE));
    const plan = gemini
      ? `${already ? `gemini extensions uninstall ${EXTENSION_NAME}, then ` : ''}gemini extensions install ${source} --consent`
      : `copy ${source} to ${dest}`;
    if (options.dryRun) return { success: true, message: `Would run: ${plan}.` };
    const done = `Gemini CLI extension ${EXTENSION_NAME} installed in ${dest}: a new gemini session has the editor tools (getDiagnostics, openFile, ...) of the editor running an ide-companion for its folder. /mcp in gemini lists them.`;
    if (!gemini) {
      log(`gemini is not on PATH: copying the extension as \`gemini extensions install\` would`);
      copyAsGeminiWould(source, dest);
      return { success: true, message: done, changed: [dest] };
    }
    if (already) {
      const removed = await runGemini(gemini, ['extensions', 'uninstall', EXTENSION_NAME], env, log);
      if (removed.code !== 0)
        return { success: false, message: `gemini extensions uninstall ${EXTENSION_NAME} failed (exit ${removed.code}): ${removed.output.trim()}` };
    }
    const installed = await runGemini(gemini, ['extensions', 'install', source, '--consent'], env, log);
    if (installed.code !== 0 || !fs.existsSync(path.join(dest, CONFIG_FILE))) {
      return { success: false, message: `gemini extensions install failed (exit ${installed.code}): ${installed.output.trim() || 'no output'}` };
    }
    return { success: true, message: done, changed: [dest] };
  },
};

/** Not an editor: registered with the editor ends so that `install` finds it. */
export const geminiExtensionEnd: EditorEnd = { id: 'gemini', displayName: 'Gemini CLI', installer: geminiInstaller };
