/**
 * Amp (issue 31) against VS Code (code-server driven by Chromium, as in
 * extension.test.ts): the window's companion writes Amp's lock file; by
 * default editFile opens as a VS Code diff: edited by the user and
 * accepted, the user's bytes land, rejected the file is left; in `buffer`
 * mode (IDE_COMPANION_AMP_EDIT=buffer) it goes through the document as one
 * edit the user undoes, saved byte for byte; a document with unsaved
 * changes refuses. Amp's side is testkit's ampClient (the real
 * `amp` cannot start offline: docs/agents.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectAmpClient, makeTempDir, skipUnless, waitFor } from '@ide-companion/testkit';
import { CHROMIUM, CodeServer, hasCodeServer } from './codeServer.js';

const skip =
  skipUnless(hasCodeServer, 'code-server 4.100.3', 'run scripts/install-code-server.sh') ||
  skipUnless(CHROMIUM !== undefined, 'chromium', 'apt-get install -y chromium');

test("Amp's buffer-mode editFile in VS Code: one undoable edit, saved exactly; unsaved changes refuse", { skip, timeout: 240_000 }, async (t) => {
  const data = makeTempDir('ide-companion-vscode-amp-');
  t.after(() => data.cleanup());
  const cs = new CodeServer({ env: { IDE_COMPANION_AGENTS: 'gemini,amp', AMP_DATA_HOME: data.path, IDE_COMPANION_AMP_EDIT: 'buffer' } });
  t.after(() => cs.stop());
  const ws = path.join(cs.dir, 'ws');
  fs.mkdirSync(ws);
  const file = path.join(ws, 'a.txt');
  fs.writeFileSync(file, 'alpha\nbeta\n');
  await cs.start();
  const win = await cs.openWindow(ws);
  const { port } = await win.api();
  const lockFile = path.join(data.path, 'amp', 'ide', `${port}.json`);
  const lock = await waitFor(() => fs.existsSync(lockFile) && JSON.parse(fs.readFileSync(lockFile, 'utf8')), "Amp's lock file", 30_000);
  assert.deepEqual(lock.workspaceFolders, [ws]);
  const amp = await connectAmpClient(lock);
  t.after(() => amp.close());

  const answer = (await amp.request('editFile', { path: file, fullContent: 'alpha\nBETA ✓\ngamma' })).editFile;
  assert.equal(answer.success, true, answer.message);
  assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the bytes exactly, no final newline added');
  assert.equal((await win.api()).pendingDiffs.length, 0, 'no review');
  const undone = await win.eval<string>(
    `const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(args.file));
     await vscode.window.showTextDocument(doc, { preview: false });
     await vscode.commands.executeCommand('undo');
     return doc.getText();`,
    { file },
  );
  assert.equal(undone, 'alpha\nbeta\n', 'one edit, undone');

  // CRLF text into an LF file: its line endings change too (a step of their own), the bytes exact.
  const other = path.join(ws, 'b.txt');
  fs.writeFileSync(other, 'keep\n');
  assert.equal((await amp.request('editFile', { path: other, fullContent: 'one\r\ntwo\r\n' })).editFile.success, true);
  assert.deepEqual(fs.readFileSync(other), Buffer.from('one\r\ntwo\r\n'), 'CRLF kept');

  const refused = (await amp.request('editFile', { path: file, fullContent: 'no\n' })).editFile;
  assert.equal(refused.success, false);
  assert.match(refused.message, /unsaved changes in code-server/, "the host says it, in the editor's name");
  assert.deepEqual(fs.readFileSync(file), Buffer.from('alpha\nBETA ✓\ngamma'), 'the file is left');
});

test(
  "Amp's editFile reviewed in VS Code (the default): the user's edits accepted land byte for byte, a rejection leaves the file; the selection reaches Amp",
  { skip, timeout: 240_000 },
  async (t) => {
    const data = makeTempDir('ide-companion-vscode-amp-review-');
    t.after(() => data.cleanup());
    const cs = new CodeServer({ env: { IDE_COMPANION_AGENTS: 'gemini,amp', AMP_DATA_HOME: data.path, IDE_COMPANION_AMP_EDIT: undefined } });
    t.after(() => cs.stop());
    const ws = path.join(cs.dir, 'ws');
    fs.mkdirSync(ws);
    const file = path.join(ws, 'a.txt');
    fs.writeFileSync(file, 'alpha\nbeta\n');
    await cs.start();
    const win = await cs.openWindow(ws);
    const { port } = await win.api();
    const lockFile = path.join(data.path, 'amp', 'ide', `${port}.json`);
    const lock = await waitFor(() => fs.existsSync(lockFile) && JSON.parse(fs.readFileSync(lockFile, 'utf8')), "Amp's lock file", 30_000);
    const amp = await connectAmpClient(lock);
    t.after(() => amp.close());

    // The user selects "beta" in VS Code: Amp hears it.
    await win.eval(
      `const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(args.file));
     const editor = await vscode.window.showTextDocument(doc, { preview: false });
     editor.selection = new vscode.Selection(1, 0, 1, 4);`,
      { file },
    );
    const selected = await waitFor(
      () => amp.notifications.find((n) => n.name === 'selectionDidChange' && n.params.selections[0].content === 'beta'),
      'the selection in VS Code reaches Amp',
      30_000,
    );
    assert.equal(selected.params.uri, `file://${file}`);

    const accepted = amp.request('editFile', { path: file, fullContent: 'alpha\nBETA\n' });
    const [diff] = await waitFor(
      async () => {
        const d = (await win.api()).pendingDiffs;
        return d.length === 1 ? d : undefined;
      },
      'the diff in VS Code',
      30_000,
    );
    const userText = 'the user’s line 😀\nno final newline';
    await win.eval(
      `let doc;
     for (let i = 0; i < 100 && !doc; i++) {
       doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'ide-companion-proposal' && d.uri.query === args.id);
       if (!doc) await new Promise((r) => setTimeout(r, 100));
     }
     if (!doc) throw new Error('no proposal document: ' + vscode.workspace.textDocuments.map((d) => d.uri.toString()).join(', '));
     const edit = new vscode.WorkspaceEdit();
     edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), args.text);
     await vscode.workspace.applyEdit(edit);
     await vscode.commands.executeCommand('ideCompanion.acceptDiff', args.id);`,
      { id: diff!.id, text: userText },
    );
    const answer = (await accepted).editFile;
    assert.equal(answer.success, true, answer.message);
    assert.match(answer.message, /edited and accepted/);
    assert.deepEqual(fs.readFileSync(file), Buffer.from(userText), "the user's bytes, exactly");

    const rejected = amp.request('editFile', { path: file, fullContent: 'rejected\n' });
    await waitFor(async () => (await win.api()).pendingDiffs.length === 1, 'the second diff', 30_000);
    await win.eval(`await vscode.commands.executeCommand('ideCompanion.rejectDiff');`);
    assert.equal((await rejected).editFile.success, false);
    assert.deepEqual(fs.readFileSync(file), Buffer.from(userText), 'the rejected edit never reached the file');
  },
);
