/**
 * The VS Code end as the rest of the project sees it (no `vscode` import here:
 * the CLI loads this outside any editor): its installer.
 */
export { vscodeInstaller, findVsCodeEditors, ensureVsix, VSIX_PATH, EXTENSION_ROOT, EXTENSION_ID, type VsCodeEditorBinary } from './installer.js';
