/**
 * The extension in a real extension host: code-server 4.100.3 driven by
 * Chromium (test/codeServer.ts). One code-server serves every test here; each
 * window is its own extension host and companion. The MCP client is the real
 * SDK client the way Gemini CLI connects; the user is Chromium's keyboard and
 * mouse, or the VS Code API run in the window's extension host.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assertServesSocket,
  connectClaudeClient,
  connectRecordingClient,
  findGeminiCli,
  geminiEnv,
  makeGeminiRunDirs,
  processRunning,
  runNode,
  skipUnless,
  submitLine,
  waitFor,
  waitIdeConnected,
  writeFileTurns,
  writeGeminiScript,
  type RecordingClient,
} from '@ide-companion/testkit';
import { createVSIX } from '@vscode/vsce';
import { CHROMIUM, CodeServer, hasCodeServer, WITH_API, type Window } from './codeServer.js';
import {
  activeElementIsTerminal,
  diffTabCount,
  discoveryOf,
  lastContext,
  openDiff,
  palette,
  rejectAllDiffs,
  runGemini,
  startWithClient,
  terminalText,
  terminalUi,
  textOf,
} from './workbench.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const cli = findGeminiCli();
/** The CLI takes ~5 s to start on an idle machine; a shared 2-core machine can take many times that. */
const CLI_START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const skip =
  skipUnless(hasCodeServer, 'code-server 4.100.3', 'run scripts/install-code-server.sh') ||
  skipUnless(CHROMIUM !== undefined, 'chromium', 'apt-get install -y chromium');

/** The one pending diff, once it is shown. */
async function theOnlyDiff(win: Window): Promise<{ id: string }> {
  const [diff] = await waitFor(async () => {
    const d = (await win.api()).pendingDiffs;
    return d.length === 1 ? d : undefined;
  }, 'the diff');
  return diff!;
}

/** The user types `prefix` at the start of the diff's proposal (left unsaved: the document is dirty). */
async function editProposal(win: Window, id: string, prefix: string): Promise<void> {
  await win.eval(
    `const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'ide-companion-proposal' && d.uri.query === args.id);
     const edit = new vscode.WorkspaceEdit(); edit.insert(doc.uri, new vscode.Position(0, 0), args.prefix);
     await vscode.workspace.applyEdit(edit);
     if (!doc.isDirty) throw new Error('expected a dirty proposal');`,
    { id, prefix },
  );
}

/**
 * The kept file (no draft any more) holding `text`, with no draft of `writerPid` left; on a timeout, says whether
 * that extension host still lives and what the folder holds.
 */
async function keptFileHolding(dir: string, text: string, writerPid: number): Promise<string> {
  const name = await waitFor(
    () =>
      fs.existsSync(dir) &&
      !fs.readdirSync(dir).some((n) => n.startsWith(`draft-${writerPid}-`) || n.startsWith('draft-left-')) &&
      fs.readdirSync(dir).find((n) => !n.startsWith('draft-') && fs.readFileSync(path.join(dir, n), 'utf8') === text),
    'the kept edits reported',
    60_000,
  ).catch((err: Error) => {
    throw new Error(
      `${err.message}; the extension host that had them ${processRunning(writerPid) ? 'still runs' : 'has exited'}; the folder holds ${fs.existsSync(dir) ? fs.readdirSync(dir).join(', ') : 'nothing'}`,
    );
  });
  return path.join(dir, name);
}

describe('VS Code extension in code-server', { skip, timeout: 10 * 60_000 }, () => {
  let cs: CodeServer;
  let ws: string;
  let win: Window;
  let client: RecordingClient;
  /** Where the extension keeps proposals (TMPDIR is code-server's). */
  const keptDir = () => path.join(cs.tmpdir, `ide-companion-kept-${process.getuid!()}`);

  before(async () => {
    ({ cs, ws, win, client } = await startWithClient({ 'a.txt': 'alpha\n', 'b.txt': '😀xyz\nsecond line\n', 'sub/c.txt': 'gamma\n' }));
  });

  beforeEach(async () => {
    if (win) await rejectAllDiffs(win);
    client?.notifications.splice(0);
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await cs?.stop();
  });

  test("the discovery file names code-server's server process, this folder and code-server", async () => {
    const api = await win.api();
    const discovery = discoveryOf(api.discoveryFile);
    assert.equal(api.idePid, win.ppid, "the extension host's parent: where the CLI's process walk lands");
    assert.match(path.basename(api.discoveryFile), new RegExp(`^gemini-ide-server-${win.ppid}-${api.port}\\.json$`));
    assert.equal(discovery.workspacePath, ws);
    assert.deepEqual(discovery.ideInfo, { name: 'vscode', displayName: 'code-server' });
    assert.equal(fs.statSync(api.discoveryFile).mode & 0o777, 0o600);
    assert.ok(api.activationMs > 0);
  });

  test('the extension host also serves its Unix socket, with the same token (gemini elsewhere: issue 18)', async () => {
    const api = await win.api();
    assert.equal(api.socketPath, discoveryOf(api.discoveryFile).socketPath);
    const tools = await assertServesSocket(api.discoveryFile);
    assert.ok(tools.includes('getDiagnostics'));
  });

  test("open tabs, the active file's cursor (in characters) and selection reach the CLI; untitled documents do not", async () => {
    const a = path.join(ws, 'a.txt');
    const b = path.join(ws, 'b.txt');
    await win.eval(
      `for (const p of [args.a, args.b]) await vscode.window.showTextDocument(vscode.Uri.file(p), { preview: false });
       const untitled = await vscode.workspace.openTextDocument({ content: 'scratch' });
       await vscode.window.showTextDocument(untitled, { preview: false });
       const editor = await vscode.window.showTextDocument(vscode.Uri.file(args.b), { preview: false });
       // After "😀x": UTF-16 offset 3, the third character.
       editor.selection = new vscode.Selection(0, 0, 0, 3);`,
      { a, b },
    );
    const context = await waitFor(() => {
      const c = lastContext(client);
      return c?.openFiles[0]?.path === b && c.openFiles[0].selectedText === '😀x' ? c : undefined;
    }, 'the selection in b.txt');
    assert.deepEqual(context.openFiles[0]!.cursor, { line: 1, character: 3 });
    assert.equal(context.openFiles[0]!.isActive, true);
    assert.deepEqual(context.openFiles.map((f) => f.path).sort(), [a, b]);
    assert.equal(context.isTrusted, true);
    assert.ok(context.openFiles.every((f) => typeof f.timestamp === 'number'));

    // Closing b.txt's tab drops it; a.txt becomes the only file.
    await win.eval(
      `const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === args.b);
       await vscode.window.tabGroups.close(tabs);`,
      { b },
    );
    await waitFor(() => {
      const c = lastContext(client);
      return c && c.openFiles.length === 1 && c.openFiles[0]!.path === a;
    }, 'b.txt to leave the context');
  });

  test('a tab opened in the background is listed; rename and delete in VS Code follow the file', async () => {
    const c = path.join(ws, 'sub', 'c.txt');
    const moved = path.join(ws, 'sub', 'c2.txt');
    await win.eval(`await vscode.window.showTextDocument(vscode.Uri.file(args.c), { preview: false, preserveFocus: true, background: true });`, { c });
    await waitFor(() => lastContext(client)?.openFiles.some((f) => f.path === c), 'c.txt in the context');
    await win.eval(
      `const edit = new vscode.WorkspaceEdit(); edit.renameFile(vscode.Uri.file(args.c), vscode.Uri.file(args.moved));
       if (!(await vscode.workspace.applyEdit(edit))) throw new Error('rename failed');`,
      { c, moved },
    );
    await waitFor(() => {
      const files = lastContext(client)?.openFiles.map((f) => f.path) ?? [];
      return files.includes(moved) && !files.includes(c);
    }, 'the rename');
    await win.eval(
      `const edit = new vscode.WorkspaceEdit(); edit.deleteFile(vscode.Uri.file(args.moved));
       if (!(await vscode.workspace.applyEdit(edit))) throw new Error('delete failed');`,
      { moved },
    );
    await waitFor(() => !lastContext(client)?.openFiles.some((f) => f.path === moved), 'the delete');
  });

  test('a diff opens without taking focus from the terminal; the user edits the proposal and accepts with Ctrl+S; focus returns to the terminal', async () => {
    const file = path.join(ws, 'a.txt');
    await win.eval(`const t = vscode.window.createTerminal({ name: 'gemini here' }); t.show(false);`);
    await waitFor(() => activeElementIsTerminal(win.page), 'the terminal to have focus', 20_000);
    // CRLF and no final newline: bytes the user did not touch must survive.
    await openDiff(client, file, 'proposal\r\nlast');
    await waitFor(async () => (await win.api()).pendingDiffs.length === 1, 'the diff');
    await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab');
    assert.equal(await activeElementIsTerminal(win.page), true, 'the diff must not steal focus');

    // The user clicks into the proposal (the right side), types at its end, and saves.
    await win.page.locator('.editor-instance .editor.modified .view-lines').first().click();
    await win.page.keyboard.press('Control+End');
    await win.page.keyboard.type(' and more');
    await win.page.keyboard.press('Control+s');
    const accepted = await waitFor(() => client.notifications.find((n) => n.method === 'ide/diffAccepted'), 'ide/diffAccepted');
    assert.deepEqual(accepted.params, { filePath: file, content: 'proposal\r\nlast and more' });
    await waitFor(async () => (await diffTabCount(win)) === 0, 'the diff tab to close');
    await waitFor(() => activeElementIsTerminal(win.page), 'focus back in the terminal');
    assert.equal(fs.readFileSync(file, 'utf8'), 'alpha\n', 'the companion never writes the file: the CLI does');
  });

  test('reject by the title-bar button and by closing the tab; an unedited accept by command keeps the proposal byte for byte', async () => {
    const file = path.join(ws, 'b.txt');
    client.notifications.length = 0;
    await openDiff(client, file, 'rejected by button\n');
    await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab');
    await win.page.locator('[aria-label^="Reject Proposed Change"]').first().click();
    await waitFor(() => client.notifications.find((n) => n.method === 'ide/diffRejected'), 'ide/diffRejected (button)');
    await waitFor(async () => (await diffTabCount(win)) === 0, 'the tab to close');

    client.notifications.length = 0;
    await openDiff(client, file, 'rejected by closing\n');
    await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab');
    await win.eval(
      `const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff);
       await vscode.window.tabGroups.close(tabs);`,
    );
    const rejected = await waitFor(() => client.notifications.find((n) => n.method === 'ide/diffRejected'), 'ide/diffRejected (tab closed)');
    assert.deepEqual(rejected.params, { filePath: file });

    client.notifications.length = 0;
    const bytes = '\uFEFFmixed\r\nline endings\nand ünïcödé 😀';
    await openDiff(client, file, bytes);
    await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab');
    await win.eval(`await vscode.commands.executeCommand('ideCompanion.acceptDiff');`);
    const accepted = await waitFor(() => client.notifications.find((n) => n.method === 'ide/diffAccepted'), 'ide/diffAccepted');
    assert.equal(accepted.params.content, bytes);
  });

  // Regression (fuzz seed 12 #175): vscode.diff resolves only once VS Code has computed the diff, up to its
  // diffEditor.maxComputationTime (5 s) for a long changed line, and openDiff waited for it.
  test('a proposal with a 1 MB changed line: openDiff answers once the diff is shown, not after VS Code computed it; an edit to it is still sent', async () => {
    const file = path.join(ws, 'a.txt');
    client.notifications.length = 0;
    const proposal = 'z'.repeat(1_000_000);
    const started = Date.now();
    await openDiff(client, file, proposal);
    const took = Date.now() - started;
    assert.ok(took < 4000, `openDiff answered in ${took} ms`);
    const { id } = await theOnlyDiff(win);
    await editProposal(win, id, 'edited ');
    await win.eval(`await vscode.commands.executeCommand('ideCompanion.acceptDiff', args.id);`, { id });
    const accepted = await waitFor(() => client.notifications.find((n) => n.method === 'ide/diffAccepted'), 'ide/diffAccepted');
    assert.equal(accepted.params.content, `edited ${proposal}`);
  });

  // Regression: a write into the proposal's file system counted as an accept, so VS Code's
  // auto-save (code-server's default: after a delay) accepted a proposal a second after an edit.
  test('auto-save of an edited proposal is no decision; accepting later sends the edits', async () => {
    const file = path.join(ws, 'b.txt');
    const setAutoSave = (value: string) =>
      win.eval(
        `await vscode.workspace.getConfiguration('files').update('autoSave', args.value, vscode.ConfigurationTarget.Global); await vscode.workspace.getConfiguration('files').update('autoSaveDelay', 50, vscode.ConfigurationTarget.Global);`,
        { value },
      );
    await setAutoSave('afterDelay');
    try {
      await openDiff(client, file, 'proposal\n');
      const [diff] = await waitFor(async () => {
        const d = (await win.api()).pendingDiffs;
        return d.length === 1 ? d : undefined;
      }, 'the diff');
      const proposal = `vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'ide-companion-proposal' && d.uri.query === args.id)`;
      await win.eval(
        `const doc = ${proposal}; const edit = new vscode.WorkspaceEdit(); edit.insert(doc.uri, new vscode.Position(0, 0), 'kept '); await vscode.workspace.applyEdit(edit);`,
        { id: diff!.id },
      );
      await waitFor(async () => (await win.eval(`return !${proposal}.isDirty`, { id: diff!.id })) === true, 'the auto-save', 20_000, 50);
      assert.equal(client.notifications.filter((n) => n.method.startsWith('ide/diff')).length, 0, 'an auto-save decides nothing');
      assert.equal((await win.api()).pendingDiffs.length, 1);
      await win.eval(`await vscode.commands.executeCommand('ideCompanion.acceptDiff');`);
      const accepted = await waitFor(() => client.notifications.find((n) => n.method === 'ide/diffAccepted'), 'ide/diffAccepted');
      assert.equal(accepted.params.content, 'kept proposal\n');
    } finally {
      await setAutoSave('off');
    }
  });

  test("closing an edited proposal asks to save: Don't Save rejects, Save accepts the edits", async () => {
    const file = path.join(ws, 'a.txt');
    const editAndClose = async (button: RegExp) => {
      client.notifications.length = 0;
      await openDiff(client, file, 'proposal\n');
      await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab');
      await win.eval(
        `const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'ide-companion-proposal' && !d.isClosed && d.getText() === 'proposal\\n');
         const edit = new vscode.WorkspaceEdit(); edit.insert(doc.uri, new vscode.Position(0, 0), 'my ');
         await vscode.workspace.applyEdit(edit);
         const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputTextDiff);
         // Not awaited: VS Code asks the user first.
         void vscode.window.tabGroups.close(tabs);`,
      );
      await win.page
        .locator('.monaco-dialog-box .monaco-button', { hasText: button })
        .first()
        .click()
        .catch(async (err: Error) => {
          await win.page.screenshot({ path: path.join(cs.dir, '..', 'vscode-dialog-failure.png') });
          throw err;
        });
    };
    await editAndClose(/^Don.t Save$/); // whatever the apostrophe
    assert.deepEqual((await waitFor(() => client.notifications.find((n) => n.method.startsWith('ide/diff')), 'an outcome')).params, { filePath: file });
    await waitFor(async () => (await diffTabCount(win)) === 0, 'the tab to close');
    await editAndClose(/^Save$/);
    const accepted = await waitFor(() => client.notifications.find((n) => n.method.startsWith('ide/diff')), 'an outcome');
    assert.deepEqual(accepted, { method: 'ide/diffAccepted', params: { filePath: file, content: 'my proposal\n' } });
    await waitFor(async () => (await diffTabCount(win)) === 0, 'the tab to close');
  });

  test("closeDiff answers with the user's edits and closes the edited view without asking", async () => {
    const file = path.join(ws, 'new-file.txt');
    client.notifications.length = 0;
    await openDiff(client, file, 'fresh\n');
    // The user edits the proposal (unsaved: the document is dirty).
    await editProposal(win, (await theOnlyDiff(win)).id, 'edited ');
    assert.equal(
      await win.eval(
        `return vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff)?.input.original.scheme`,
      ),
      'ide-companion-original',
    );
    const result = await client.client.callTool({ name: 'closeDiff', arguments: { filePath: file, suppressNotification: true } });
    assert.deepEqual(JSON.parse(textOf(result)), { content: 'edited fresh\n' });
    await waitFor(async () => (await diffTabCount(win)) === 0, 'the tab to close');
    // No dialog was left open (a save prompt would be a modal dialog in the page).
    assert.equal(await win.page.locator('.monaco-dialog-box').count(), 0);
    assert.equal(client.notifications.filter((n) => n.method !== 'ide/contextUpdate').length, 0);
    assert.equal(fs.existsSync(file), false);
  });

  test("the proposing CLI's session ends (it exited or died) while the user edits: the edited proposal stays in an untitled editor, the file untouched", async () => {
    const other = await connectRecordingClient({ port: (await win.api()).port, token: discoveryOf((await win.api()).discoveryFile).authToken });
    const file = path.join(ws, 'a.txt');
    const before = fs.readFileSync(file, 'utf8');
    await openDiff(other, file, 'from the model\n');
    await editProposal(win, (await theOnlyDiff(win)).id, 'the user: ');
    // The session ends as when its CLI is gone (the companion closes its diffs with reason sessionClosed).
    await other.transport.terminateSession();
    await other.close();
    await waitFor(async () => (await win.api()).pendingDiffs.length === 0 && (await diffTabCount(win)) === 0, 'the diff view to close');
    const kept = await waitFor(
      async () =>
        (await win.eval<string[]>(`return vscode.workspace.textDocuments.filter((d) => d.isUntitled).map((d) => d.getText())`)).find((t) =>
          t.includes('the user: '),
        ),
      'the kept proposal',
    );
    assert.equal(kept, 'the user: from the model\n');
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'the file on disk is untouched');
    await win.eval(
      `for (const d of vscode.workspace.textDocuments.filter((d) => d.isUntitled)) { await vscode.window.showTextDocument(d); await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor'); }`,
    );
  });

  test("the CLI's session ends after the user's accept and before its write: the accepted text comes back in an untitled editor, the file untouched", async () => {
    const other = await connectRecordingClient({ port: (await win.api()).port, token: discoveryOf((await win.api()).discoveryFile).authToken });
    const file = path.join(ws, 'a.txt');
    const before = fs.readFileSync(file, 'utf8');
    await openDiff(other, file, 'from the model\n');
    const diff = await theOnlyDiff(win);
    await editProposal(win, diff.id, 'accepted by the user: ');
    await win.eval(`await vscode.commands.executeCommand('ideCompanion.acceptDiff', args.id);`, { id: diff.id });
    await waitFor(() => other.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
    // The CLI dies before it writes: its connection drops, no DELETE (an orderly end after an accept keeps nothing).
    await other.close();
    const kept = await waitFor(
      async () =>
        (await win.eval<string[]>(`return vscode.workspace.textDocuments.filter((d) => d.isUntitled).map((d) => d.getText())`)).find((t) =>
          t.includes('accepted by the user: '),
        ),
      'the accepted text kept',
    );
    assert.equal(kept, 'accepted by the user: from the model\n');
    await waitFor(async () => (await win.api()).pendingDiffs.length === 0, 'nothing pending');
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'the file on disk is untouched');
    await win.eval(
      `for (const d of vscode.workspace.textDocuments.filter((d) => d.isUntitled)) { await vscode.window.showTextDocument(d); await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor'); }`,
    );
  });

  test('"Send Selection to Claude Code" sends the selected lines to a connected Claude Code as at_mentioned; with none connected it says so', async () => {
    const port = (await win.api()).port;
    // Where the extension host writes Claude Code's lock file (the test run's private CLAUDE_CONFIG_DIR).
    const lock = JSON.parse(fs.readFileSync(path.join(process.env['CLAUDE_CONFIG_DIR']!, 'ide', `${port}.lock`), 'utf8')) as { authToken: string };
    const file = path.join(ws, 'a.txt');
    await win.eval(
      `const editor = await vscode.window.showTextDocument(vscode.Uri.file(args.file), { preview: false });
       editor.selection = new vscode.Selection(0, 0, 1, 0);`,
      { file },
    );
    assert.equal(
      await win.eval<number>(`return await vscode.commands.executeCommand('ideCompanion.sendToAgent');`),
      0,
      'no Claude Code connected: nothing sent',
    );
    const claude = await connectClaudeClient({ port, token: lock.authToken });
    try {
      await waitFor(
        async () => (await win.eval<string[]>(`${WITH_API} return api.sessions().map((x) => x.agent);`)).includes('claude'),
        'the Claude Code session listed',
      );
      assert.equal(await win.eval<number>(`return await vscode.commands.executeCommand('ideCompanion.sendToAgent');`), 1);
      const mention = await waitFor(() => claude.notifications.find((n) => n.method === 'at_mentioned'), 'at_mentioned');
      // The selection ends at the start of line 2: line 1 alone (0-based for Claude Code).
      assert.deepEqual(mention.params, { filePath: file, lineStart: 0, lineEnd: 0 });

      // Lines 1 and 2 of b.txt selected forward, then backward (the cursor at the start): the same lines either way.
      const b = path.join(ws, 'b.txt');
      const selected = (backward: boolean) =>
        waitFor(
          () =>
            claude.notifications.find(
              (n) =>
                n.method === 'selection_changed' &&
                n.params.filePath === b &&
                n.params.text === 'xyz\nsecond' &&
                n.params.selection.start.character === (backward ? 1 : 0),
            ),
          `the selection made ${backward ? 'backward' : 'forward'}`,
        );
      await win.eval(
        `const editor = await vscode.window.showTextDocument(vscode.Uri.file(args.b), { preview: false });
         editor.selection = new vscode.Selection(0, 2, 1, 6);`,
        { b },
      );
      assert.deepEqual((await selected(false)).params.selection, { start: { line: 0, character: 0 }, end: { line: 1, character: 6 }, isEmpty: false });
      await win.eval(`vscode.window.activeTextEditor.selection = new vscode.Selection(1, 6, 0, 2);`);
      assert.deepEqual((await selected(true)).params.selection, { start: { line: 0, character: 1 }, end: { line: 1, character: 6 }, isEmpty: false });
    } finally {
      await claude.close();
    }
  });

  test('diffs of two CLI sessions are told apart: each hears only its own outcome', async () => {
    const other = await connectRecordingClient({ port: (await win.api()).port, token: discoveryOf((await win.api()).discoveryFile).authToken });
    try {
      client.notifications.length = 0;
      await openDiff(client, path.join(ws, 'a.txt'), 'from session one\n');
      await openDiff(other, path.join(ws, 'b.txt'), 'from session two\n');
      const pending = await waitFor(async () => {
        const d = (await win.api()).pendingDiffs;
        return d.length === 2 ? d : undefined;
      }, 'two diffs');
      assert.equal(await diffTabCount(win), 2);
      const second = pending.find((d) => d.filePath.endsWith('b.txt'))!;
      await win.eval(`await vscode.commands.executeCommand('ideCompanion.acceptDiff', args.id);`, { id: second.id });
      await waitFor(() => other.notifications.find((n) => n.method === 'ide/diffAccepted'), "session two's outcome");
      assert.equal(client.notifications.filter((n) => n.method === 'ide/diffAccepted').length, 0);
      await win.eval(`await vscode.commands.executeCommand('ideCompanion.rejectDiff');`);
      await waitFor(() => client.notifications.find((n) => n.method === 'ide/diffRejected'), "session one's outcome");
    } finally {
      await other.close();
    }
  });

  test("unsaved changes in the file's own editor survive an accepted diff and the CLI's write", async () => {
    const dirty = path.join(ws, 'dirty.txt');
    const clean = path.join(ws, 'clean.txt');
    fs.writeFileSync(dirty, 'on disk\n');
    fs.writeFileSync(clean, 'on disk\n');
    await win.eval(
      `await vscode.window.showTextDocument(vscode.Uri.file(args.clean), { preview: false });
       const editor = await vscode.window.showTextDocument(vscode.Uri.file(args.dirty), { preview: false });
       await editor.edit((b) => b.insert(new vscode.Position(0, 0), 'unsaved '));`,
      { dirty, clean },
    );
    await openDiff(client, dirty, 'proposal\n');
    await win.page.locator('.notifications-toasts', { hasText: 'has unsaved changes' }).waitFor({ timeout: 20_000 });
    await win.eval(`await vscode.commands.executeCommand('ideCompanion.acceptDiff');`);
    await waitFor(() => client.notifications.find((n) => n.method === 'ide/diffAccepted'), 'ide/diffAccepted');
    // What the CLI does on accept: it writes the file. A clean editor written at the same moment shows when VS Code has looked.
    fs.writeFileSync(dirty, 'proposal\n');
    fs.writeFileSync(clean, 'changed on disk\n');
    const docText = (p: string) =>
      win.eval<{ text: string; dirty: boolean }>(
        `const d = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === args.p); return { text: d.getText(), dirty: d.isDirty };`,
        { p },
      );
    await waitFor(async () => (await docText(clean)).text === 'changed on disk\n', 'VS Code to reload the clean editor', 30_000, 100);
    assert.deepEqual(await docText(dirty), { text: 'unsaved on disk\n', dirty: true });
    await win.eval(
      `await vscode.window.showTextDocument(vscode.Uri.file(args.dirty));
       await vscode.commands.executeCommand('workbench.action.files.revert');
       if (vscode.window.activeTextEditor.document.isDirty) throw new Error('still dirty');
       const mine = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && [args.dirty, args.clean].includes(t.input.uri.fsPath));
       await vscode.window.tabGroups.close(mine);`,
      { dirty, clean },
    );
  });

  test('a multi-root workspace: every folder is a root; "Gemini CLI: Run" asks for the folder and starts there', async () => {
    const other = path.join(cs.dir, 'other-root');
    fs.mkdirSync(other, { recursive: true });
    const workspaceFile = path.join(cs.dir, 'multi.code-workspace');
    fs.writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: ws }, { path: other }] }));
    // code-server at times opens a workspace file and shows none of its folders: VS Code's own list stays
    // empty (seen in CI and here under load, with the companion's socket and without it). That window is closed and the workspace
    // opened again, at most twice; the test starts once VS Code itself has both folders.
    let multi = await cs.openWindow(workspaceFile);
    for (let attempt = 1; ; attempt++) {
      const folders = await waitFor(
        async () => ((await multi.eval<number>('return (vscode.workspace.workspaceFolders ?? []).length')) === 2 ? true : undefined),
        "VS Code's own folders",
        15_000,
      ).catch(() => false);
      if (folders) break;
      if (attempt === 3) throw new Error('code-server opened the workspace without its folders three times');
      await multi.close();
      multi = await cs.openWindow(workspaceFile);
    }
    try {
      // Flaked once in CI: the window's companion can start before VS Code hands it the folders, so its
      // workspacePath was briefly '' when read at once. Wait for the roots (the assertion stays exact).
      const api = await waitFor(
        async () => {
          const a = await multi.api();
          return a.workspacePath !== '' ? a : undefined;
        },
        'the workspace folders',
        30_000,
      );
      assert.equal(api.workspacePath, [ws, other].join(path.delimiter));
      assert.equal(discoveryOf(api.discoveryFile).workspacePath, api.workspacePath);
      const out = path.join(cs.dir, 'run-cwd.txt');
      await multi.eval(`await vscode.workspace.getConfiguration('ideCompanion').update('geminiCommand', args.command, vscode.ConfigurationTarget.Global);`, {
        command: `pwd > ${out}`,
      });
      await palette(multi, 'Gemini CLI: Run');
      // The folder pick: both roots offered; the user picks the second.
      await multi.page.locator('.quick-input-list .monaco-list-row', { hasText: 'other-root' }).first().waitFor({ timeout: 30_000 });
      assert.equal((await multi.page.locator('.quick-input-list .monaco-list-row', { hasText: 'ws' }).count()) >= 1, true);
      await multi.page.keyboard.type('other-root');
      await multi.page.keyboard.press('Enter');
      await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8').trim() === other, 'the terminal in the picked folder', 30_000, 100);
    } finally {
      await multi.close();
    }
  });

  test("two windows on one folder: each terminal carries its own window's companion; closing a window removes its discovery file", async () => {
    const second = await cs.openWindow(ws);
    const [one, two] = [await win.api(), await second.api()];
    assert.notEqual(one.port, two.port);
    assert.equal(one.idePid, two.idePid, 'both extension hosts are children of the one server process');
    const envIn = async (w: Window, name: string) => {
      const out = path.join(cs.dir, `${name}.env`);
      await w.eval(
        `vscode.window.createTerminal({ name: 'env', shellPath: '/bin/sh', shellArgs: ['-c', 'printf "%s %s" "$GEMINI_CLI_IDE_SERVER_PORT" "$GEMINI_CLI_IDE_PID" > ' + args.out] });`,
        { out },
      );
      return waitFor(() => (fs.existsSync(out) && fs.readFileSync(out, 'utf8')) || undefined, `the terminal of window ${name}`, 30_000);
    };
    assert.equal(await envIn(win, 'one'), `${one.port} ${one.idePid}`);
    assert.equal(await envIn(second, 'two'), `${two.port} ${two.idePid}`);

    assert.equal(fs.existsSync(two.discoveryFile), true);
    await second.close();
    await waitFor(() => !fs.existsSync(two.discoveryFile), "the closed window's discovery file to go", 30_000);
    assert.equal(fs.existsSync(one.discoveryFile), true, 'the other window keeps its companion');
  });

  // Issue 21: the extension host killed with -9 runs no handler of ours; its files must not outlive it.
  // ... and the user's edits to an open proposal lived only in its in-memory document.
  test("the extension host killed with SIGKILL: its discovery file, lock files and socket folder go within 2 s; the user's edits to its open proposal open in the next window", async () => {
    const third = await cs.openWindow(ws);
    const api = await third.api();
    const files = [
      api.discoveryFile,
      path.join(process.env['CLAUDE_CONFIG_DIR']!, 'ide', `${api.port}.lock`),
      path.join(process.env['QWEN_HOME']!, 'ide', `${api.port}.lock`),
      path.dirname(api.socketPath!),
    ];
    for (const f of files) assert.ok(fs.existsSync(f), `${f} exists while the window runs`);
    const proposer = await connectRecordingClient({ port: api.port, token: discoveryOf(api.discoveryFile).authToken });
    const file = path.join(ws, 'b.txt');
    const before = fs.readFileSync(file, 'utf8');
    await openDiff(proposer, file, 'from the model\r\nno final newline');
    await editProposal(third, (await theOnlyDiff(third)).id, 'kept across the kill ✓ ');
    const draftOf = () => (fs.existsSync(keptDir()) ? fs.readdirSync(keptDir()).find((n) => n.startsWith(`draft-${third.pid}-`)) : undefined);
    await waitFor(draftOf, 'the edits saved as a draft', 5_000);

    process.kill(third.pid, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor(() => files.every((f) => !fs.existsSync(f)), "the killed extension host's files gone", 5_000);
    assert.ok(Date.now() - killedAt < 2_000, `gone after ${Date.now() - killedAt} ms`);
    assert.equal(fs.existsSync((await win.api()).discoveryFile), true, 'the other window keeps its companion');
    await third.page.close().catch(() => undefined);
    await proposer.close().catch(() => undefined);

    const next = await cs.openWindow(ws);
    try {
      const kept = await waitFor(
        async () =>
          (
            await next.eval<Array<{ path: string; text: string }>>(
              `return vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file' && d.uri.fsPath.startsWith(args.keptDir)).map((d) => ({ path: d.uri.fsPath, text: d.getText() }))`,
              { keptDir: keptDir() },
            )
          )[0],
        'the kept edits open in the next window',
      );
      assert.equal(fs.readFileSync(kept.path, 'utf8'), 'kept across the kill ✓ from the model\r\nno final newline', 'byte for byte');
      assert.equal(draftOf(), undefined, 'reported once: no longer a draft');
      assert.equal(fs.readFileSync(file, 'utf8'), before, 'the file on disk untouched');
    } finally {
      await next.close().catch(() => undefined);
    }
  });

  test('a window reloaded the moment the user edited an open proposal (no draft yet): the edits are handed over as its extension host stops, and opened', async () => {
    const fourth = await cs.openWindow(ws);
    const api = await fourth.api();
    const proposer = await connectRecordingClient({ port: api.port, token: discoveryOf(api.discoveryFile).authToken });
    try {
      await openDiff(proposer, path.join(ws, 'sub', 'c.txt'), 'from the model\n');
      await editProposal(fourth, (await theOnlyDiff(fourth)).id, 'kept across the reload ');
      // At once: VS Code asks to leave (the edit is not backed up yet), and the user leaves.
      await fourth.reload();
      // The reloaded window's new extension host opens them as it starts; or, when it started before the old one
      // had stopped, a window open opens them, by its watch.
      await keptFileHolding(keptDir(), 'kept across the reload from the model\n', fourth.pid);
    } finally {
      await proposer.close().catch(() => undefined);
      await fourth.close().catch(() => undefined);
    }
  });

  test("a window closed with the user's edits in an open proposal: a window still open opens them, as last typed", async () => {
    const fifth = await cs.openWindow(ws);
    const api = await fifth.api();
    const proposer = await connectRecordingClient({ port: api.port, token: discoveryOf(api.discoveryFile).authToken });
    try {
      await openDiff(proposer, path.join(ws, 'sub', 'c.txt'), 'from the model\n');
      const { id } = await theOnlyDiff(fifth);
      await editProposal(fifth, id, 'across the close ');
      await waitFor(
        () => fs.existsSync(keptDir()) && fs.readdirSync(keptDir()).some((n) => n.startsWith(`draft-${fifth.pid}-`)),
        'the edits saved as a draft',
        5_000,
      );
      // Typed after the draft was saved, closed at once: the handover carries this too.
      await editProposal(fifth, id, 'kept ');
      await fifth.close();
      const kept = await keptFileHolding(keptDir(), 'kept across the close from the model\n', fifth.pid);
      await waitFor(
        async () => (await win.eval(`return vscode.workspace.textDocuments.some((d) => d.uri.fsPath === args.kept)`, { kept })) === true,
        'the window still open to show the kept edits',
        30_000,
      );
    } finally {
      await proposer.close().catch(() => undefined);
    }
  });

  test('ide-companion check passes against the extension', async () => {
    const api = await win.api();
    // Asynchronously: a blocked event loop would stall Chromium, whose protocol pipe this process reads.
    const r = await runNode([path.join(REPO_ROOT, 'packages/cli/bin/ide-companion.js'), 'check', '--file', api.discoveryFile], {
      env: { ...process.env, TMPDIR: cs.tmpdir },
      timeoutMs: 120_000,
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /PASS +diff\.open/);
    assert.match(r.stdout, /PASS +diff\.closeDiffJson/);
    assert.equal(await diffTabCount(win), 0, 'check closes every diff it opened');
  });

  test('every capability VS Code has is an MCP tool: open file at a line, open editors, selection, diagnostics, unsaved state, save', async () => {
    const a = path.join(ws, 'a.txt');
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const result = (await client.client.callTool({ name, arguments: args })) as { isError?: boolean };
      assert.notEqual(result.isError, true, `${name}: ${textOf(result)}`);
      return JSON.parse(textOf(result)) as Record<string, unknown>;
    };
    const { tools } = await client.client.listTools();
    for (const name of ['openFile', 'getOpenEditors', 'getSelection', 'getDiagnostics', 'checkDocumentDirty', 'saveDocument']) {
      assert.ok(
        tools.some((t) => t.name === name),
        `${name} offered`,
      );
    }
    await call('openFile', { path: a, line: 1, column: 3 });
    await waitFor(
      async () =>
        (await win.eval(
          `return vscode.window.activeTextEditor?.document.uri.fsPath === args.a && vscode.window.activeTextEditor.selection.active.character === 2`,
          { a },
        )) === true,
      'a.txt open at 1:3',
    );
    // A problem as a language server would report it.
    await win.eval(
      `globalThis.testDiagnostics ??= vscode.languages.createDiagnosticCollection('test');
       globalThis.testDiagnostics.set(vscode.Uri.file(args.a), [new vscode.Diagnostic(new vscode.Range(0, 0, 0, 5), 'bad alpha', vscode.DiagnosticSeverity.Warning)]);`,
      { a },
    );
    const diagnostics = (await call('getDiagnostics', { path: a })) as { diagnostics: unknown[] };
    assert.deepEqual(diagnostics.diagnostics, [
      { path: a, range: { start: { line: 1, character: 1 }, end: { line: 1, character: 6 } }, severity: 'warning', message: 'bad alpha' },
    ]);
    // A bare cursor is no selection (the documented null); a real one is answered in characters.
    assert.deepEqual(await call('getSelection'), { selection: null });
    await win.eval(`const e = vscode.window.activeTextEditor; e.selection = new vscode.Selection(0, 1, 0, 4);`);
    assert.deepEqual(await call('getSelection'), { selection: { path: a, text: 'lph', start: { line: 1, character: 2 }, end: { line: 1, character: 5 } } });
    const editors = (await call('getOpenEditors')) as { editors: Array<{ path: string; isActive: boolean }> };
    assert.ok(
      editors.editors.some((e) => e.path === a && e.isActive),
      JSON.stringify(editors),
    );
    // Unsaved changes, then a save through the tool.
    await win.eval(`await vscode.window.activeTextEditor.edit((b) => b.insert(new vscode.Position(0, 0), 'unsaved '));`);
    assert.deepEqual(await call('checkDocumentDirty', { path: a }), { isOpen: true, isDirty: true });
    assert.equal((await call('saveDocument', { path: a }))['saved'], true);
    assert.equal(fs.readFileSync(a, 'utf8'), 'unsaved alpha\n');
    assert.deepEqual(await call('checkDocumentDirty', { path: a }), { isOpen: true, isDirty: false });
    await win.eval(`globalThis.testDiagnostics.dispose(); globalThis.testDiagnostics = undefined;`);
  });

  // Issue 27 item 1: a link swapped while the editor opened a file showed the user another one. The companion re-checks
  // after the open and asks closeFile, which closes the tab. The swap is made by VS Code's own open event: deterministic.
  test('a link swapped while VS Code opens a file: openFile is refused and the tab it opened is closed', async () => {
    const file = path.join(ws, 'swapped.txt');
    fs.writeFileSync(file, 'mine\n');
    const secret = path.join(cs.dir, 'secret.txt');
    fs.writeFileSync(secret, 'secret\n');
    fs.symlinkSync(secret, `${file}.swap`);
    await win.eval(
      `const fs = require('node:fs');
       const sub = vscode.workspace.onDidOpenTextDocument((d) => {
         if (d.uri.fsPath !== args.file) return;
         sub.dispose();
         fs.renameSync(args.swap, args.file);
       });`,
      { file, swap: `${file}.swap` },
    );
    const result = (await client.client.callTool({ name: 'openFile', arguments: { path: file } })) as { isError?: boolean };
    assert.equal(result.isError, true, textOf(result));
    assert.match(textOf(result), /no longer leads to the file that was checked/);
    assert.equal(fs.readlinkSync(file), secret, 'the swap happened');
    await waitFor(
      async () =>
        (await win.eval(
          `return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === args.file).length`,
          { file },
        )) === 0,
      'the tab closed',
    );
  });

  // Issue 21 part 4: each capability tool with each optional argument absent (Neovim failed openFile without a column).
  // Every optional argument left out (issue 21 part 4): the conformance suite (conformance.test.ts) runs optionalArguments.ts here.

  test(
    'the real gemini, started with "Gemini CLI: Run", shows Connected; a write_file accepted with Ctrl+S after editing leaves the user\'s text',
    { skip: skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') },
    async (t) => {
      const ORIGINAL = 'original line\n';
      const EDITED = 'line the user wrote in VS Code\n';
      const dirs = makeGeminiRunDirs('ide-companion-vscode-e2e-', { files: { 'a.txt': ORIGINAL }, turns: writeFileTurns('a.txt', 'line from the model\n') });
      t.after(() => dirs.cleanup());
      const file = path.join(dirs.workspace, 'a.txt');
      // What "Gemini CLI: Run" types: the pinned CLI with scripted turns; TMPDIR is code-server's, where the companion writes.
      const wrapper = writeGeminiScript(path.join(dirs.path, 'gemini.sh'), cli!, dirs.fakeResponses, geminiEnv({ home: dirs.home, tmpdir: cs.tmpdir }));
      const w = await cs.openWindow(dirs.workspace);
      t.after(() => w.close().catch(() => undefined));
      const screen = () => terminalText(w.page);
      const fail = async (err: Error) => {
        throw new Error(`${err.message}\n--- terminal ---\n${await screen().catch(() => '')}`);
      };
      // The user runs the command from the command palette.
      await runGemini(w, wrapper);
      // /ide status until connected: the CLI says Connected only after its tools/list.
      assert.match((await waitIdeConnected(terminalUi(w), CLI_START_TIMEOUT_MS).catch(fail)).status, /Connected to code-server/);
      assert.equal((await w.api()).sessions, 1);
      await w.page.locator('.statusbar-item', { hasText: 'Gemini 1' }).waitFor({ timeout: STEP_TIMEOUT_MS });

      await submitLine(terminalUi(w), 'please write a.txt', STEP_TIMEOUT_MS).catch(fail);
      await waitFor(async () => (await w.api()).pendingDiffs.some((d) => d.filePath === file), 'the diff in VS Code', STEP_TIMEOUT_MS, 250).catch(fail);
      await waitFor(async () => (await diffTabCount(w)) === 1, 'the diff tab', STEP_TIMEOUT_MS);
      assert.equal(await activeElementIsTerminal(w.page), true, "the diff must not steal focus from gemini's terminal");

      // The user rewrites the proposal and saves it.
      await w.page.locator('.editor-instance .editor.modified .view-lines').first().click();
      await w.page.keyboard.press('Control+a');
      await w.page.keyboard.type(EDITED.trimEnd());
      await w.page.keyboard.press('Enter');
      await w.page.keyboard.press('Control+s');
      await waitFor(() => fs.readFileSync(file, 'utf8') === EDITED, "the CLI to write the user's text", STEP_TIMEOUT_MS, 100).catch(async (err: Error) => {
        await fail(new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}`));
      });
      await waitFor(() => activeElementIsTerminal(w.page), "focus back in gemini's terminal", STEP_TIMEOUT_MS);
      await waitFor(async () => /Accepted|Done\./.test(await screen()), 'the CLI to go on', STEP_TIMEOUT_MS, 250).catch(fail);
      await w.eval(`for (const t of vscode.window.terminals) t.dispose();`);
    },
  );
});

describe("with Google's companion installed too", { skip, timeout: 5 * 60_000 }, () => {
  let cs: CodeServer;

  before(async () => {
    cs = new CodeServer();
    // An extension with Google's id (publisher and name), nothing else: what the guard looks for.
    const fake = path.join(cs.dir, 'google-companion');
    fs.mkdirSync(fake);
    fs.writeFileSync(
      path.join(fake, 'package.json'),
      JSON.stringify({
        name: 'gemini-cli-vscode-ide-companion',
        publisher: 'Google',
        version: '0.0.1',
        engines: { vscode: '^1.100.0' },
        repository: { type: 'git', url: 'https://example.invalid/fake.git' },
        license: 'Apache-2.0',
      }),
    );
    const vsix = path.join(cs.dir, 'google-companion.vsix');
    await createVSIX({ cwd: fake, packagePath: vsix, dependencies: false, skipLicense: true });
    await cs.start({ moreExtensions: [vsix] });
  });

  after(async () => {
    await cs?.stop();
  });

  test('the guard says two companions are active; "Use Google\'s here" turns this one off for the workspace', async () => {
    const ws = path.join(cs.dir, 'ws');
    fs.mkdirSync(ws);
    const win = await cs.openWindow(ws);
    const { discoveryFile } = await win.api();
    const toast = win.page.locator('.notifications-toasts .notification-toast', { hasText: 'Two Gemini CLI companions are active' });
    await toast.waitFor({ timeout: 60_000 });
    await toast.locator('.monaco-button', { hasText: "Use Google's here" }).click();
    await waitFor(async () => !(await win.api()).running, 'this companion to stop', 30_000, 100);
    assert.equal(fs.existsSync(discoveryFile), false);
    assert.equal(await win.eval(`return vscode.workspace.getConfiguration('ideCompanion').inspect('enabled').workspaceValue`), false);
    await win.page.locator('.statusbar-item', { hasText: 'Gemini' }).first().waitFor({ timeout: 30_000 });
    await win.close();
  });
});

// Issue 21: VS Code itself killed with -9 (its server, so every window's extension host loses its parent).
describe('VS Code killed with SIGKILL', { skip, timeout: 5 * 60_000 }, () => {
  let cs: CodeServer;

  before(async () => {
    cs = new CodeServer();
    await cs.start();
  });

  after(async () => {
    await cs?.stop();
  });

  test("with the user's edits in an open proposal: the extension host follows it, its files go, and the edits stay in a draft the next start opens", async () => {
    const ws = path.join(cs.dir, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'a.txt'), 'on disk\n');
    const win = await cs.openWindow(ws);
    const api = await win.api();
    const proposer = await connectRecordingClient({ port: api.port, token: discoveryOf(api.discoveryFile).authToken });
    try {
      await openDiff(proposer, path.join(ws, 'a.txt'), 'from the model\n');
      await editProposal(win, (await theOnlyDiff(win)).id, 'kept when VS Code died ');
      const keptDir = path.join(cs.tmpdir, `ide-companion-kept-${process.getuid!()}`);
      const draft = await waitFor(
        () => (fs.existsSync(keptDir) ? fs.readdirSync(keptDir).find((n) => n.startsWith(`draft-${win.pid}-`)) : undefined),
        'the edits saved as a draft',
        5_000,
      );
      process.kill(win.ppid, 'SIGKILL');
      const killedAt = Date.now();
      // The extension host watches its parent and exits; its reaper removes its files.
      await waitFor(() => !fs.existsSync(api.discoveryFile), 'the discovery file to go', 30_000);
      const goneMs = Date.now() - killedAt;
      // VS Code's own watchdog decides when its extension host notices (0.7 s measured).
      assert.ok(goneMs < 3_000, `gone after ${goneMs} ms`);
      assert.equal(fs.existsSync(path.dirname(api.socketPath!)), false, 'its socket folder too');
      await waitFor(() => !processRunning(win.pid), 'the extension host to exit', 10_000);
      // The extension host stopped in order (its draft handed over) or was cut short (its draft named by its dead PID):
      // either is what the next start opens (keptProposals.test.ts, and the SIGKILL test above).
      const left = fs.readdirSync(keptDir).filter((n) => n === draft || n === draft.replace(/^draft-\d+-/, 'draft-left-'));
      assert.equal(left.length, 1, `one draft left: ${fs.readdirSync(keptDir).join(', ')}`);
      assert.equal(fs.readFileSync(path.join(keptDir, left[0]!), 'utf8'), 'kept when VS Code died from the model\n', 'the edits, byte for byte');
      assert.equal(fs.readFileSync(path.join(ws, 'a.txt'), 'utf8'), 'on disk\n', 'the file untouched');
    } finally {
      await proposer.close().catch(() => undefined);
    }
  });
});
