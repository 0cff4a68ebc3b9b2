/**
 * Issue 39 (6): closing a code-server window did not end the gemini that
 * "Gemini CLI: Run" started in it: with persistent terminal sessions on (the
 * default), code-server keeps a window's terminals running for it to come
 * back, and gemini ran on, disconnected, after its window went; Ctrl-C on
 * code-server left it orphaned. The other tests turn persistent sessions
 * off, so none saw it. Here with the default settings, walked as a user
 * does: the command palette of a real code-server, the real `gemini`, the
 * browser tab closed, then Ctrl-C on code-server.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { findGeminiCli, geminiEnv, makeGeminiRunDirs, waitFor, waitIdeConnected, writeFileTurns, writeGeminiScript } from '@ide-companion/testkit';
import { CodeServer, skipCodeServerWithGemini, type Window } from './codeServer.js';
import { runGemini, terminalUi } from './workbench.js';

const cli = findGeminiCli();
const skip = skipCodeServerWithGemini();

const CLI_START_TIMEOUT_MS = 120_000;
const END_TIMEOUT_MS = 30_000;

/** The processes of the session `sid` leads: gemini runs as two (it restarts itself with more heap), with whatever it started. */
function session(sid: number): number[] {
  const r = spawnSync('ps', ['-o', 'pid=', '-s', String(sid)], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((pid) => pid > 0);
}

/** The pid of the program "Gemini CLI: Run" started in `w`, once gemini there runs as its two processes. */
async function geminiSession(w: Window): Promise<number> {
  const sid = await w.eval<number>(`return await vscode.window.terminals.find((t) => t.name === 'Gemini CLI').processId;`);
  await waitFor(() => session(sid).length >= 2, "gemini's processes", CLI_START_TIMEOUT_MS, 250);
  return sid;
}

describe('VS Code with default settings: closing the window', { skip, timeout: 8 * 60_000 }, () => {
  let cs: CodeServer;
  const dirs = makeGeminiRunDirs('ide-companion-vscode-close-', { files: { 'a.txt': 'a\n' }, turns: writeFileTurns('a.txt', 'b\n') });
  const wrapper = path.join(dirs.path, 'gemini.sh');

  before(async () => {
    cs = new CodeServer();
    writeGeminiScript(wrapper, cli!, dirs.fakeResponses, geminiEnv({ home: dirs.home, tmpdir: cs.tmpdir }));
    // code-server's default, which the other tests turn off.
    await cs.start({ settings: { 'terminal.integrated.enablePersistentSessions': true } });
  });

  after(async () => {
    await cs?.stop();
    dirs.cleanup();
  });

  test('ends the gemini "Gemini CLI: Run" started in it', async () => {
    const w = await cs.openWindow(dirs.workspace);
    await runGemini(w, wrapper);
    assert.match((await waitIdeConnected(terminalUi(w), CLI_START_TIMEOUT_MS)).status, /Connected to code-server/);
    const sid = await geminiSession(w);
    await w.close();
    const started = Date.now();
    await waitFor(() => session(sid).length === 0, 'gemini to end with its window', END_TIMEOUT_MS, 250);
    console.log(`gemini ended ${Date.now() - started} ms after its window closed`);
  });

  test('Ctrl-C on code-server ends the gemini "Gemini CLI: Run" started', async () => {
    const w = await cs.openWindow(dirs.workspace);
    await runGemini(w, wrapper);
    assert.match((await waitIdeConnected(terminalUi(w), CLI_START_TIMEOUT_MS)).status, /Connected to code-server/);
    const sid = await geminiSession(w);
    // What Ctrl-C in the shell that started code-server does: SIGINT to its process group (gemini has a session of its own).
    process.kill(-cs.serverPid!, 'SIGINT');
    const started = Date.now();
    await waitFor(() => session(sid).length === 0, 'gemini to end with code-server', END_TIMEOUT_MS, 250);
    console.log(`gemini ended ${Date.now() - started} ms after Ctrl-C`);
  });
});
