/**
 * Issue 30: "Gemini CLI: Run" typed `gemini` into a new terminal's shell; a
 * login shell whose profile resets PATH then said "gemini: command not found",
 * and nothing said what to do, where Neovim and Vim do. VS Code's extension
 * host takes its environment from that same login shell, so the window cannot
 * find gemini either: it now says so with the fix (the full path in
 * "ideCompanion.geminiCommand"), and a command it finds runs as the
 * terminal's own process, whatever the shell's profile does. Walked as a user
 * does: the command palette of a real code-server, the setting changed, and
 * the real `gemini` (scripted turns) answering /ide status.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  findGeminiCli,
  geminiArgv,
  geminiEnv,
  HEADLESS_TRIGGER_ENV,
  makeGeminiRunDirs,
  makeTempDir,
  shellCommand,
  skipUnless,
  waitIdeConnected,
  writeFileTurns,
} from '@ide-companion/testkit';
import { CHROMIUM, CodeServer, hasCodeServer } from './codeServer.js';
import { palette, runGemini, terminalUi } from './workbench.js';

const cli = findGeminiCli();
const skip =
  skipUnless(hasCodeServer, 'code-server 4.100.3', 'run scripts/install-code-server.sh') ||
  skipUnless(CHROMIUM !== undefined, 'chromium', 'apt-get install -y chromium') ||
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

const CLI_START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;

describe('VS Code: "Gemini CLI: Run" with a login shell that resets PATH', { skip, timeout: 8 * 60_000 }, () => {
  let cs: CodeServer;
  const bin = makeTempDir('ide-companion-vscode-bin-');
  const dirs = makeGeminiRunDirs('ide-companion-vscode-run-', { files: { 'a.txt': 'a\n' }, turns: writeFileTurns('a.txt', 'b\n') });

  before(async () => {
    // `gemini` is on the PATH code-server (hence the window) was started with...
    cs = new CodeServer({ env: { PATH: `${bin.path}${path.delimiter}${process.env['PATH'] ?? ''}` } });
    fs.writeFileSync(
      path.join(bin.path, 'gemini'),
      `#!/bin/sh\nexec ${shellCommand(geminiArgv(cli!, dirs.fakeResponses), geminiEnv({ home: dirs.home, tmpdir: cs.tmpdir }), HEADLESS_TRIGGER_ENV)} "$@"\n`,
      { mode: 0o755 },
    );
    // ...and the user's login shell resets it.
    fs.writeFileSync(path.join(cs.home, '.bash_profile'), 'export PATH=/usr/bin:/bin\n');
    await cs.start();
  });

  after(async () => {
    await cs?.stop();
    bin.cleanup();
    dirs.cleanup();
  });

  test('"Gemini CLI: Run" says to set ideCompanion.geminiCommand to the full path; done, gemini starts and connects', async () => {
    const w = await cs.openWindow(dirs.workspace);
    await w.eval(
      `const c = vscode.workspace.getConfiguration('terminal.integrated');
       await c.update('profiles.linux', { bash: { path: 'bash', args: ['-l'] } }, vscode.ConfigurationTarget.Global);
       await c.update('defaultProfile.linux', 'bash', vscode.ConfigurationTarget.Global);`,
    );
    // VS Code's extension host takes the login shell's environment too: the window cannot find gemini either, and says what to do.
    await palette(w, 'Gemini CLI: Run');
    await w.page
      .locator('.notification-toast', { hasText: /not on this window's PATH.*ideCompanion\.geminiCommand/ })
      .first()
      .waitFor({ timeout: STEP_TIMEOUT_MS });
    // The user does it: the full path in the setting, and Run again.
    await w.eval(`for (const t of vscode.window.terminals) t.dispose();`);
    await runGemini(w, path.join(bin.path, 'gemini'));
    assert.match((await waitIdeConnected(terminalUi(w), CLI_START_TIMEOUT_MS)).status, /Connected to code-server/);
    assert.equal((await w.api()).sessions, 1);
    await w.eval(`for (const t of vscode.window.terminals) t.dispose();`);
  });
});
