/**
 * Google's VS Code companion (Google.gemini-cli-vscode-ide-companion), which
 * the extension's guard and `doctor` look for. No `vscode` import: this runs
 * in the CLI too, where it reads the editors' extension folders.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const GOOGLE_COMPANION_ID = 'Google.gemini-cli-vscode-ide-companion';

/** Where VS Code, its forks and code-server keep user extensions, relative to HOME or XDG_DATA_HOME. */
const EXTENSION_DIRS: ReadonlyArray<[editor: string, dir: (home: string, dataHome: string) => string]> = [
  ['VS Code', (home) => path.join(home, '.vscode', 'extensions')],
  ['VS Code Insiders', (home) => path.join(home, '.vscode-insiders', 'extensions')],
  ['VS Code Server (remote)', (home) => path.join(home, '.vscode-server', 'extensions')],
  ['VSCodium', (home) => path.join(home, '.vscode-oss', 'extensions')],
  ['Cursor', (home) => path.join(home, '.cursor', 'extensions')],
  ['Windsurf', (home) => path.join(home, '.windsurf', 'extensions')],
  ['code-server', (_home, dataHome) => path.join(dataHome, 'code-server', 'extensions')],
];

export interface ExtensionInstall {
  editor: string;
  /** The extension's folder, e.g. ~/.vscode/extensions/google.gemini-cli-vscode-ide-companion-0.7.0. */
  path: string;
  version: string | undefined;
}

/** Installs of an extension (by `publisher.name`, case-insensitive) in every known extensions folder. */
export function findExtensionInstalls(id: string, env: NodeJS.ProcessEnv = process.env): ExtensionInstall[] {
  const home = env['HOME'] || os.homedir();
  const dataHome = env['XDG_DATA_HOME'] || path.join(home, '.local', 'share');
  const prefix = `${id.toLowerCase()}-`;
  const found: ExtensionInstall[] = [];
  for (const [editor, dirOf] of EXTENSION_DIRS) {
    const dir = dirOf(home, dataHome);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.toLowerCase().startsWith(prefix)) continue;
      const version = /^(\d+\.\d+\.\d+[^/]*?)(?:-[a-z]+-[a-z0-9]+)?$/.exec(name.slice(prefix.length))?.[1];
      found.push({ editor, path: path.join(dir, name), version });
    }
  }
  return found;
}

/** Where Google's companion is installed, for `doctor`. */
export function findGoogleCompanion(env: NodeJS.ProcessEnv = process.env): ExtensionInstall[] {
  return findExtensionInstalls(GOOGLE_COMPANION_ID, env);
}
