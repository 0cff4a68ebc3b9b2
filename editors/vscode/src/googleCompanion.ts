/** Google's VS Code companion, which doctor and the extension's guard look for. No `vscode` import. */
export const GOOGLE_COMPANION_ID = 'Google.gemini-cli-vscode-ide-companion';
