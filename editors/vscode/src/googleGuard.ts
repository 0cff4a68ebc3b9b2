/**
 * Google's companion (Google.gemini-cli-vscode-ide-companion) installed next
 * to this one: both write a discovery file for this window and both put
 * GEMINI_CLI_IDE_* into terminals, so which one a `gemini` connects to
 * depends on the order VS Code applies the two extensions' terminal
 * environments. We say so once per window and offer the ways to choose.
 */
import * as vscode from 'vscode';

import { GOOGLE_COMPANION_ID } from './googleCompanion.js';

export { GOOGLE_COMPANION_ID };

export function googleCompanionInstalled(): boolean {
  return vscode.extensions.getExtension(GOOGLE_COMPANION_ID) !== undefined;
}

export async function warnAboutGoogleCompanion(): Promise<void> {
  if (!googleCompanionInstalled()) return;
  const disableOurs = "Use Google's here";
  const showGoogle = "Disable Google's…";
  const choice = await vscode.window.showWarningMessage(
    "Two Gemini CLI companions are active: this one (ide-companion) and Google's. A gemini started in a terminal connects to the one whose terminal environment VS Code applied last, so the choice is not predictable. Keep one: disable Google's in the Extensions view, or turn this one off for this workspace. Run `ide-companion status` in a terminal to see which one gemini would use.",
    disableOurs,
    showGoogle,
  );
  if (choice === disableOurs) {
    await vscode.workspace.getConfiguration('ideCompanion').update('enabled', false, vscode.ConfigurationTarget.Workspace);
  } else if (choice === showGoogle) {
    await vscode.commands.executeCommand('workbench.extensions.search', `@id:${GOOGLE_COMPANION_ID}`);
  }
}
