/**
 * The VS Code end as the `ide-companion` command sees it (no `vscode` import
 * here: the CLI loads this outside any editor): its installer. The extension
 * itself is src/extension.ts, bundled into dist/extension.cjs.
 */
import type { EditorEnd } from '@ide-companion/server';
import { vscodeInstaller } from './installer.js';

export { vscodeInstaller, findVsCodeEditors, ensureVsix, VSIX_PATH, EXTENSION_ROOT, EXTENSION_ID, type VsCodeEditorBinary } from './installer.js';
export { GOOGLE_COMPANION_ID, findGoogleCompanion, findExtensionInstalls, type ExtensionInstall } from './googleCompanion.js';

export const vscodeEnd: EditorEnd = {
  id: 'vscode',
  displayName: 'VS Code',
  // The forks install the same .vsix (the installer finds their CLIs).
  aliases: ['vscodefork', 'cursor', 'windsurf', 'vscodium', 'code-server'],
  installer: vscodeInstaller,
};
