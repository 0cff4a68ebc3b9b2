/**
 * The VS Code end as the `ide-companion` command sees it (no `vscode` import
 * here: the CLI loads this outside any editor): its installer. The extension
 * itself is src/extension.ts, bundled into dist/extension.cjs.
 */
import type { EditorEnd } from '@ide-companion/command/editorEnd';
import { findGoogleCompanion } from './googleCompanion.js';
import { vscodeInstaller } from './installer.js';

export { vscodeInstaller, findVsCodeEditors, ensureVsix, VSIX_PATH, EXTENSION_ROOT, EXTENSION_ID, type VsCodeEditorBinary } from './installer.js';
export { GOOGLE_COMPANION_ID, findGoogleCompanion, findExtensionInstalls, type ExtensionInstall } from './googleCompanion.js';

export const vscodeEnd: EditorEnd = {
  id: 'vscode',
  displayName: 'VS Code',
  // The forks install the same .vsix (the installer finds their CLIs).
  aliases: ['code', 'vs-code', 'code-insiders', 'codium', 'vscodefork', 'cursor', 'windsurf', 'vscodium', 'code-server'],
  installer: vscodeInstaller,
  doctorNotes: (env) =>
    findGoogleCompanion(env).map((install) => ({
      ok: false,
      text: `Google's Gemini CLI companion${install.version ? ` ${install.version}` : ''} is installed for ${install.editor} (${install.path})`,
      advice:
        "Where ide-companion's VS Code extension runs too, a gemini started in that window's terminal connects to whichever companion's terminal environment VS Code applied last. Keep one per window: disable Google's in the Extensions view, or set ideCompanion.enabled to false in that workspace.",
    })),
};
