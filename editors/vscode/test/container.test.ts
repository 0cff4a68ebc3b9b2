/**
 * Issue 39 (1): in a container or toolbox (`/.dockerenv`,
 * `/run/.containerenv`), "Gemini CLI: Run" started gemini disconnected and
 * nothing said why: Gemini CLI there dials host.docker.internal unless
 * REMOTE_CONTAINERS is set, and the window's companion listens on
 * 127.0.0.1. Now every terminal of the window gets REMOTE_CONTAINERS=1 with
 * the connection, as in a VS Code dev container. The container is a private
 * mount namespace whose /run holds the marker file the CLI looks for:
 * code-server, its extension host, its terminals and gemini all see it, the
 * rest of the machine does not. Walked as a user does: the command palette
 * of a real code-server, and the real `gemini` answering /ide status.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  findGeminiCli,
  geminiEnvInContainer,
  makeGeminiRunDirs,
  shellCommand,
  waitFor,
  waitIdeConnected,
  writeFileTurns,
  writeGeminiScript,
  inFakeContainer,
  skipFakeContainer,
} from '@ide-companion/testkit';
import { CodeServer, skipCodeServerWithGemini } from './codeServer.js';
import { palette, runGemini, terminalText, terminalUi } from './workbench.js';

const cli = findGeminiCli();
const skip = skipCodeServerWithGemini() || skipFakeContainer();

const CLI_START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;

describe('VS Code in a container: "Gemini CLI: Run"', { skip, timeout: 8 * 60_000 }, () => {
  let cs: CodeServer;
  const dirs = makeGeminiRunDirs('ide-companion-vscode-container-', { files: { 'a.txt': 'a\n' }, turns: writeFileTurns('a.txt', 'b\n') });
  const wrapper = path.join(dirs.path, 'gemini.sh');

  before(async () => {
    cs = new CodeServer({
      // What a shell in a container has: none of the variables that send gemini to loopback.
      env: {
        REMOTE_CONTAINERS: undefined,
        SSH_CONNECTION: undefined,
        VSCODE_REMOTE_CONTAINERS_SESSION: undefined,
        XDG_RUNTIME_DIR: path.join(dirs.path, 'run'),
      },
      wrap: (argv) => inFakeContainer(`exec ${shellCommand(argv, {}, [])}`),
    });
    // The pinned CLI with scripted turns, and nothing of the test's: REMOTE_CONTAINERS comes from the window, or not at all.
    writeGeminiScript(wrapper, cli!, dirs.fakeResponses, geminiEnvInContainer({ home: dirs.home, tmpdir: cs.tmpdir }));
    await cs.start();
  });

  after(async () => {
    await cs?.stop();
    dirs.cleanup();
  });

  test('gemini connects to the window; a terminal the user opens has REMOTE_CONTAINERS=1 too', async () => {
    const w = await cs.openWindow(dirs.workspace);
    await runGemini(w, wrapper);
    assert.match((await waitIdeConnected(terminalUi(w), CLI_START_TIMEOUT_MS)).status, /Connected to code-server/);
    assert.equal((await w.api()).sessions, 1);

    // A terminal of the user's own: gemini typed there connects the same way.
    await palette(w, 'Terminal: Create New Terminal');
    await waitFor(() => w.eval<boolean>('return vscode.window.terminals.length === 2'), 'the new terminal', STEP_TIMEOUT_MS, 250);
    const ready = await terminalText(w.page);
    await waitFor(async () => (await terminalText(w.page)) !== ready, 'its prompt', STEP_TIMEOUT_MS, 250).catch(() => undefined);
    await w.page.keyboard.type('echo "in-container=$REMOTE_CONTAINERS"');
    await w.page.keyboard.press('Enter');
    await waitFor(async () => (await terminalText(w.page)).includes('in-container=1'), 'REMOTE_CONTAINERS=1 in the new terminal', STEP_TIMEOUT_MS, 250).catch(
      async (err: Error) => {
        throw new Error(`${err.message}\n--- terminals ---\n${await terminalText(w.page)}`);
      },
    );
    await w.eval(`for (const t of vscode.window.terminals) t.dispose();`);
  });
});
