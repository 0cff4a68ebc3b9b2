/**
 * Issue 30: "Gemini CLI: Run" typed `gemini` into a new terminal's shell; a
 * login shell whose profile resets PATH then said "gemini: command not found",
 * and nothing said what to do. VS Code's extension host takes its environment
 * from that same login shell, so the window could not find gemini either; it
 * said so in a notification only, which the user did not see (issue 39, 7).
 * Now Run looks on the PATH code-server was started with too, and runs gemini
 * from there as the terminal's own process, whatever the shell's profile
 * does; a command found nowhere is said in a modal, with the fix, and no
 * terminal opens. Walked as a user does: the command palette of a real
 * code-server, and the real `gemini` (scripted turns) answering /ide status.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, geminiEnv, makeGeminiRunDirs, makeTempDir, waitIdeConnected, writeFileTurns, writeGeminiScript } from '@ide-companion/testkit';
import { CodeServer, skipCodeServerWithGemini } from './codeServer.js';
import { palette, runGemini, terminalUi } from './workbench.js';

const cli = findGeminiCli();
const skip = skipCodeServerWithGemini();

const CLI_START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;

describe('VS Code: "Gemini CLI: Run" with a login shell that resets PATH', { skip, timeout: 10 * 60_000 }, () => {
  let cs: CodeServer;
  const bin = makeTempDir('ide-companion-vscode-bin-');
  const dirs = makeGeminiRunDirs('ide-companion-vscode-run-', { files: { 'a.txt': 'a\n' }, turns: writeFileTurns('a.txt', 'b\n') });

  before(async () => {
    // `gemini` is on the PATH code-server (hence the window) was started with...
    cs = new CodeServer({ env: { PATH: `${bin.path}${path.delimiter}${process.env['PATH'] ?? ''}` } });
    writeGeminiScript(path.join(bin.path, 'gemini'), cli!, dirs.fakeResponses, geminiEnv({ home: dirs.home, tmpdir: cs.tmpdir }));
    // ...and the user's login shell resets it.
    fs.writeFileSync(path.join(cs.home, '.bash_profile'), 'export PATH=/usr/bin:/bin\n');
    await cs.start();
  });

  after(async () => {
    await cs?.stop();
    bin.cleanup();
    dirs.cleanup();
  });

  test('"Gemini CLI: Run" finds gemini on the PATH code-server was started with; it starts and connects', async () => {
    const w = await cs.openWindow(dirs.workspace);
    await w.eval(
      `const c = vscode.workspace.getConfiguration('terminal.integrated');
       await c.update('profiles.linux', { bash: { path: 'bash', args: ['-l'] } }, vscode.ConfigurationTarget.Global);
       await c.update('defaultProfile.linux', 'bash', vscode.ConfigurationTarget.Global);`,
    );
    // VS Code's extension host takes the login shell's environment: the window's PATH has no gemini.
    const windowPath = await w.eval<string>(`return process.env.PATH`);
    assert.ok(!windowPath.split(path.delimiter).includes(bin.path), `the window's PATH is the profile's: ${windowPath}`);
    // The setting as it comes: `gemini`.
    await runGemini(w);
    assert.match((await waitIdeConnected(terminalUi(w), CLI_START_TIMEOUT_MS)).status, /Connected to code-server/);
    assert.equal((await w.api()).sessions, 1);
    await w.eval(`for (const t of vscode.window.terminals) t.dispose();`);
  });

  test('a command found nowhere: a modal says so and how to fix it, no terminal opens; "Open Settings" shows the setting', async () => {
    const w = await cs.openWindow(dirs.workspace);
    await w.eval(`await vscode.workspace.getConfiguration('ideCompanion').update('geminiCommand', 'gemini-not-installed', vscode.ConfigurationTarget.Global);`);
    await palette(w, 'Gemini CLI: Run');
    const dialog = w.page.locator('.monaco-dialog-box', { hasText: /`gemini-not-installed` was not found.*ideCompanion\.geminiCommand/s });
    await dialog.waitFor({ timeout: STEP_TIMEOUT_MS });
    assert.equal(await w.eval(`return vscode.window.terminals.length`), 0, 'no terminal opens for a command found nowhere');
    await dialog.locator('.monaco-button', { hasText: 'Open Settings' }).click();
    await w.page.locator('.settings-editor .setting-item-contents', { hasText: 'Gemini Command' }).first().waitFor({ timeout: STEP_TIMEOUT_MS });
    await w.eval(`await vscode.workspace.getConfiguration('ideCompanion').update('geminiCommand', undefined, vscode.ConfigurationTarget.Global);`);
  });
});
