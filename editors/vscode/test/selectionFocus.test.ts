/**
 * Issue 39, trip 11 in VS Code: the user selects in the editor with the
 * keyboard, then moves into a terminal (where the agent runs) and types there.
 * The selection still stands in the context and in getSelection, as the
 * other ends keep it, until the cursor moves in a file. code-server 4.100.3
 * driven by Chromium (codeServer.ts); a wire client as the agent. Also: the
 * install message names every agent that finds the window (issue 39, trip 10).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectRecordingClient, skipUnless, sleep, waitFor, type RecordingClient } from '@ide-companion/testkit';
import { CHROMIUM, CodeServer, hasCodeServer, type Window } from './codeServer.js';
import { activeElementIsTerminal, discoveryOf, lastContext, terminalText, textOf } from './workbench.js';

const skip =
  skipUnless(hasCodeServer, 'code-server 4.100.3', 'run scripts/install-code-server.sh') ||
  skipUnless(CHROMIUM !== undefined, 'chromium', 'apt-get install -y chromium');
const STEP_TIMEOUT_MS = 60_000;

describe('VS Code: a selection survives the move into a terminal', { skip, timeout: 300_000 }, () => {
  let cs: CodeServer;
  let ws: string;
  let win: Window;
  let client: RecordingClient;
  let installMessage: string;

  before(async () => {
    cs = new CodeServer();
    ws = path.join(cs.dir, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    fs.writeFileSync(path.join(ws, 'a.txt'), 'original line\nsecond line\n');
    ({ installMessage } = await cs.start());
    win = await cs.openWindow(ws);
    const discovery = discoveryOf((await win.api()).discoveryFile);
    client = await connectRecordingClient({ port: discovery.port, token: discovery.authToken });
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await cs?.stop();
  });

  test("the install message names every agent that finds the window, as Neovim's does", () => {
    assert.match(installMessage, /^Installed the Gemini CLI companion in code-server\./);
    assert.match(installMessage, /Qwen Code, Claude Code, opencode, GitHub Copilot CLI, Codex CLI, Amp and Factory Droid in its terminals find it too/);
  });

  test('select in the editor, then into a terminal and type there: the context and getSelection keep it until the cursor moves in the file', async () => {
    const a = path.join(ws, 'a.txt');
    const getSelection = async () => {
      const result = (await client.client.callTool({ name: 'getSelection', arguments: {} })) as { isError?: boolean };
      assert.notEqual(result.isError, true, textOf(result));
      return (JSON.parse(textOf(result)) as { selection: { path: string; text: string } | null }).selection;
    };
    const selectedInContext = () => lastContext(client)?.openFiles.find((f) => f.path === a && f.isActive)?.selectedText;

    // The user opens a.txt (the editor takes the keyboard) and selects its first line with Shift+End.
    await win.eval(
      `const editor = await vscode.window.showTextDocument(vscode.Uri.file(args.a), { preview: false });
       editor.selection = new vscode.Selection(0, 0, 0, 0);`,
      { a },
    );
    await win.eval(`await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');`);
    await win.page.keyboard.press('Shift+End');
    await waitFor(() => selectedInContext() === 'original line', 'the selection in the context', STEP_TIMEOUT_MS, 50);
    assert.equal((await getSelection())?.text, 'original line');

    // Into a terminal, as the user goes to the agent: a new one takes the keyboard; they type there.
    await win.eval(`await vscode.commands.executeCommand('workbench.action.terminal.new');`);
    await waitFor(() => activeElementIsTerminal(win.page), 'the terminal to have focus', STEP_TIMEOUT_MS, 100);
    await waitFor(async () => /[$#]\s*$/m.test(await terminalText(win.page)), 'the shell prompt', STEP_TIMEOUT_MS, 250);
    await win.page.keyboard.type('echo asked-the-agent');
    await win.page.keyboard.press('Enter');
    await waitFor(async () => /^asked-the-agent/m.test(await terminalText(win.page)), 'the echo', STEP_TIMEOUT_MS, 250);
    // Past the cursor coalescing and any focus report.
    await sleep(1_000);
    assert.ok(await activeElementIsTerminal(win.page), 'the keyboard is still in the terminal');
    assert.equal(selectedInContext(), 'original line', JSON.stringify(lastContext(client)));
    const kept = await getSelection();
    assert.equal(kept?.path, a, JSON.stringify(kept));
    assert.equal(kept?.text, 'original line');

    // Back in the file, the cursor moves: the selection goes.
    await win.eval(`await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');`);
    await win.page.keyboard.press('ArrowDown');
    await waitFor(
      () => selectedInContext() === undefined && lastContext(client)?.openFiles.some((f) => f.path === a),
      'the selection gone from the context',
      STEP_TIMEOUT_MS,
      50,
    );
    assert.equal(await getSelection(), null);
  });
});
