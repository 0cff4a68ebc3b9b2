/**
 * Issue 30: with auto-save on (code-server's default), closing a proposal the
 * user had edited (Ctrl+W, or the tab's ×) rejected it and dropped the edits
 * without a word: the auto-save had left the tab clean, so VS Code asked
 * nothing. Now the companion asks: accept with the edits, reject, or cancel,
 * which opens the proposal again as the user left it. The user here is
 * Chromium's keyboard and mouse in a real code-server.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectRecordingClient, skipUnless, sleep, waitFor, type RecordingClient } from '@ide-companion/testkit';
import { CHROMIUM, CodeServer, hasCodeServer, type Window } from './codeServer.js';
import { diffTabCount, discoveryOf, openDiff, rejectAllDiffs, startWithClient } from './workbench.js';

const skip =
  skipUnless(hasCodeServer, 'code-server 4.100.3', 'run scripts/install-code-server.sh') ||
  skipUnless(CHROMIUM !== undefined, 'chromium', 'apt-get install -y chromium');

describe('VS Code: closing an edited proposal', { skip, timeout: 6 * 60_000 }, () => {
  let cs: CodeServer;
  let ws: string;
  let win: Window;
  let client: RecordingClient;

  before(async () => {
    ({ cs, ws, win, client } = await startWithClient({ 'a.txt': 'alpha\n' }));
    // code-server's default: an edit is saved after a moment, so the tab is clean when closed.
    await win.eval(
      `await vscode.workspace.getConfiguration('files').update('autoSave', 'afterDelay', vscode.ConfigurationTarget.Global);
       await vscode.workspace.getConfiguration('files').update('autoSaveDelay', 50, vscode.ConfigurationTarget.Global);`,
    );
  });

  beforeEach(async () => {
    // One failed test does not leave its diff to the next.
    if (win) await rejectAllDiffs(win);
    client?.notifications.splice(0);
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await cs?.stop();
  });

  const proposal = `vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'ide-companion-proposal' && !d.isClosed)`;
  const outcomes = () => client.notifications.filter((n) => n.method.startsWith('ide/diff'));

  /** The user clicks into the proposal, types at its start, waits for the auto-save, and presses Ctrl+W. */
  async function typeThenCloseWithCtrlW(text: string) {
    await win.page.locator('.editor-instance .editor.modified .view-lines').first().click();
    await win.page.keyboard.press('Control+Home');
    await win.page.keyboard.type(text);
    await waitFor(
      async () => (await win.eval(`const d = ${proposal}; return !!d && d.getText().startsWith(args.text) && !d.isDirty`, { text })) === true,
      'the auto-save',
      20_000,
      50,
    );
    await win.page.keyboard.press('Control+w');
  }

  const dialogButton = (label: RegExp) => win.page.locator('.monaco-dialog-box .monaco-button', { hasText: label }).first();

  test('Ctrl+W on an auto-saved edited proposal asks; Cancel opens it again with the edits, then Accept with My Edits sends them', async () => {
    const file = path.join(ws, 'a.txt');
    await openDiff(client, file, 'proposal\n');
    await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab');
    await typeThenCloseWithCtrlW('my ');
    await dialogButton(/^Cancel$/).click({ timeout: 20_000 });
    await waitFor(async () => (await diffTabCount(win)) === 1, 'the proposal open again');
    await waitFor(async () => (await win.eval(`return ${proposal}?.getText() ?? null`)) === 'my proposal\n', 'the proposal as the user left it').catch(
      async (err: Error) => {
        throw new Error(
          `${err.message}; the proposals open: ${JSON.stringify(await win.eval(`return vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'ide-companion-proposal').map((d) => [d.isClosed, d.getText()])`))}`,
        );
      },
    );
    assert.deepEqual(outcomes(), [], 'nothing decided yet');

    // Closed again (the tab's ×): this time the user accepts.
    await win.page.locator('.tab.active .tab-actions .codicon-close').first().click();
    await dialogButton(/^Accept with My Edits$/).click({ timeout: 20_000 });
    const accepted = await waitFor(() => outcomes()[0], 'an outcome');
    assert.deepEqual(accepted, { method: 'ide/diffAccepted', params: { filePath: file, content: 'my proposal\n' } });
    await waitFor(async () => (await diffTabCount(win)) === 0, 'the tab closed');
  });

  // Issue 30: the diff's breadcrumb began with the diff's UUID (it was the first folder of the proposal's path).
  test("the proposal's breadcrumb is the file's path, with no diff id in it", async () => {
    client.notifications.length = 0;
    const file = path.join(ws, 'a.txt');
    await openDiff(client, file, 'crumbs\n');
    await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab');
    await win.page.locator('.editor-instance .editor.modified .view-lines').first().click();
    const crumbs = await waitFor(
      async () => {
        const items = await win.page.locator('.editor-group-container.active .breadcrumbs-control .monaco-breadcrumb-item').allInnerTexts();
        return items.some((t) => t.includes('a.txt')) ? items.map((t) => t.trim()) : undefined;
      },
      'the breadcrumb',
      20_000,
    );
    assert.equal(
      crumbs.some((t) => /[0-9a-f]{8}-[0-9a-f]{4}-/.test(t)),
      false,
      `no UUID in ${JSON.stringify(crumbs)}`,
    );
    assert.equal(crumbs.at(-1), 'a.txt');
    assert.deepEqual(crumbs.slice(-2, -1), [path.basename(ws)]);
    await win.page.locator('[aria-label^="Reject Proposed Change"]').first().click();
    await waitFor(() => outcomes()[0], 'an outcome');
  });

  test("the proposing CLI's session ends while the user is asked: the edits stay in an untitled editor", async () => {
    const other = await connectRecordingClient({ port: (await win.api()).port, token: discoveryOf((await win.api()).discoveryFile).authToken });
    const file = path.join(ws, 'a.txt');
    await openDiff(other, file, 'from the model\n');
    await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab');
    await typeThenCloseWithCtrlW('the user: ');
    await dialogButton(/^Cancel$/).waitFor({ timeout: 20_000 });
    // Its CLI is gone meanwhile.
    await other.transport.terminateSession();
    await other.close();
    await waitFor(async () => (await win.api()).pendingDiffs.length === 0, 'the diff closed');
    await dialogButton(/^Cancel$/).click();
    const kept = await waitFor(
      async () =>
        (await win.eval<string[]>(`return vscode.workspace.textDocuments.filter((d) => d.isUntitled).map((d) => d.getText())`)).find((t) =>
          t.includes('the user: '),
        ),
      'the kept proposal',
    );
    assert.equal(kept, 'the user: from the model\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'alpha\n');
    await sleep(300);
    assert.equal(await diffTabCount(win), 0, 'Cancel after the diff closed opens nothing');
    await win.eval(
      `for (const d of vscode.workspace.textDocuments.filter((d) => d.isUntitled)) { await vscode.window.showTextDocument(d); await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor'); }`,
    );
  });

  test('Ctrl+W on an auto-saved edited proposal asks; Reject rejects', async () => {
    client.notifications.length = 0;
    const file = path.join(ws, 'a.txt');
    await openDiff(client, file, 'second\n');
    await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab');
    await typeThenCloseWithCtrlW('edited ');
    await dialogButton(/^Reject$/).click({ timeout: 20_000 });
    assert.deepEqual((await waitFor(() => outcomes()[0], 'an outcome')).params, { filePath: file });
    await sleep(300);
    assert.equal(outcomes().length, 1);
    assert.equal(fs.readFileSync(file, 'utf8'), 'alpha\n');
  });
});
