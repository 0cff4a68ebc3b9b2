/**
 * Claude Code parity with coder/claudecode.nvim (issue 31, item 5): openFile
 * selects the range its anchors name (startText/endText/selectToEndOfLine,
 * or claude-code-ide.el's startLine/endLine) and passes preview and
 * makeFrontmost on; getOpenEditors gives every tab field the VS Code
 * extension gives; severities say `Info`; diffs are named by tab_name.
 * Before: openFile opened startText's line and nothing more, tabs had five
 * fields, severities said `Information`, and an openDiff reusing a tab name
 * left the first diff pending (close_tab then closed the wrong one).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClaudeClient, waitFor } from '@ide-companion/testkit';
import type { ActionParams, ActionResult } from '@ide-companion/protocol';
import { RecordingEditor, startCompanion, type Harness } from './helpers.js';

/** An editor that records openFile and lists what the test says. */
class CapableEditor extends RecordingEditor {
  opened: Array<ActionParams<'openFile'>> = [];
  editors: ActionResult<'getOpenEditors'>['editors'] = [];
  diagnostics: ActionResult<'getDiagnostics'>['diagnostics'] = [];
  openFile(params: ActionParams<'openFile'>): void {
    this.opened.push(params);
  }
  getOpenEditors(): ActionResult<'getOpenEditors'> {
    return { editors: this.editors };
  }
  getDiagnostics(): ActionResult<'getDiagnostics'> {
    return { diagnostics: this.diagnostics };
  }
}

async function withClaude(t: import('node:test').TestContext) {
  const editor = new CapableEditor();
  const h: Harness = await startCompanion({ editor });
  t.after(() => h.cleanup());
  const lock = JSON.parse(fs.readFileSync(h.companion.lockFilePath('claude')!, 'utf8')) as { authToken: string };
  const claude = await connectClaudeClient({ port: h.companion.port, token: lock.authToken });
  t.after(() => claude.close());
  return { h, editor, claude };
}

test('openFile selects what its anchors name: startText to endText, to the end of the line, the lines startLine to endLine; preview and makeFrontmost passed on', async (t) => {
  const { h, editor, claude } = await withClaude(t);
  const file = path.join(h.workspace, 'code.ts');
  fs.writeFileSync(file, 'const a = 1;\nfunction héllo() {\n  return a;\n}\n');
  const open = async (args: Record<string, unknown>) => {
    const result = await claude.callTool('openFile', { filePath: file, ...args });
    return { text: result.content[0]!.text as string, sent: editor.opened.at(-1)! };
  };

  let r = await open({ startText: 'function', endText: '}' });
  assert.deepEqual(r.sent, { path: file, line: 2, column: 1, endLine: 4, endColumn: 2 });
  assert.equal(r.text, 'Opened file and selected text from "function" to "}"');

  r = await open({ startText: 'héllo', endText: 'return', selectToEndOfLine: true });
  assert.deepEqual(r.sent, { path: file, line: 2, column: 10, endLine: 3 }, 'columns in characters; no endColumn: the end of line 3');

  r = await open({ startText: 'return a' });
  assert.deepEqual(r.sent, { path: file, line: 3, column: 3, endLine: 3, endColumn: 11 }, 'startText alone selects itself');

  r = await open({ startText: 'const', endText: 'absent' });
  assert.deepEqual(r.sent, { path: file, line: 1, column: 1, endLine: 1, endColumn: 6 });
  assert.match(r.text, /end text "absent" not found/);

  r = await open({ startText: 'nowhere' });
  assert.deepEqual(r.sent, { path: file });
  assert.match(r.text, /text "nowhere" not found/);

  r = await open({ startLine: 2, endLine: 3, preview: true, makeFrontmost: true });
  assert.deepEqual(r.sent, { path: file, line: 2, column: 1, endLine: 3, preview: true, focus: true });
  assert.equal(r.text, 'Opened file and selected lines 2 to 3');

  editor.editors = [{ path: file, isActive: true, languageId: 'typescript' }];
  r = await open({ makeFrontmost: false });
  assert.deepEqual(r.sent, { path: file, focus: false });
  assert.deepEqual(JSON.parse(r.text), { success: true, filePath: file, languageId: 'typescript', lineCount: 4 });
});

test('getOpenEditors gives every tab field; what the editor leaves out is filled once (fileName, label, line count, the selection of the active tab)', async (t) => {
  const { h, editor, claude } = await withClaude(t);
  const a = path.join(h.workspace, 'a.txt');
  const b = path.join(h.workspace, 'b.py');
  fs.writeFileSync(a, 'one\ntwo\nthree\n');
  fs.writeFileSync(b, 'x = 1\n');
  editor.editors = [
    { path: a, isActive: true, isDirty: false },
    { path: b, isActive: false, isDirty: true, languageId: 'python', lineCount: 7, isPinned: true, isPreview: true, groupIndex: 1 },
  ];
  h.companion.context.focus(a, { cursor: { line: 2, character: 4 } });
  h.companion.context.setCursor(a, { line: 2, character: 4 }, 'two');
  const { tabs } = JSON.parse((await claude.callTool('getOpenEditors')).content[0]!.text as string);
  const latest = JSON.parse((await claude.callTool('getLatestSelection')).content[0]!.text as string);
  delete latest.selection.isEmpty;
  assert.equal(latest.selection.start.line, 1);
  assert.deepEqual(tabs, [
    {
      uri: `file://${a}`,
      isActive: true,
      isPinned: false,
      isPreview: false,
      isDirty: false,
      label: 'a.txt',
      groupIndex: 0,
      viewColumn: 1,
      isGroupActive: true,
      fileName: a,
      languageId: 'plaintext',
      lineCount: 3,
      isUntitled: false,
      selection: { ...latest.selection, isReversed: false },
    },
    {
      uri: `file://${b}`,
      isActive: false,
      isPinned: true,
      isPreview: true,
      isDirty: true,
      label: 'b.py',
      groupIndex: 1,
      viewColumn: 2,
      isGroupActive: false,
      fileName: b,
      languageId: 'python',
      lineCount: 7,
      isUntitled: false,
    },
  ]);
});

test('diagnostics say Info where our tools say information', async (t) => {
  const { h, editor, claude } = await withClaude(t);
  const file = path.join(h.workspace, 'a.ts');
  fs.writeFileSync(file, 'x\n');
  const range = { start: { line: 1, character: 1 }, end: { line: 1, character: 2 } };
  editor.diagnostics = (['error', 'warning', 'information', 'hint'] as const).map((severity) => ({ path: file, range, severity, message: severity }));
  const [entry] = JSON.parse((await claude.callTool('getDiagnostics')).content[0]!.text as string);
  assert.deepEqual(
    entry.diagnostics.map((d: { severity: string }) => d.severity),
    ['Error', 'Warning', 'Info', 'Hint'],
  );
});

test('diffs are named by tab_name: a tab name reused for another file closes the first diff; a file proposed again under a new name ends the old tab, and closing the old name closes nothing', async (t) => {
  const { h, editor, claude } = await withClaude(t);
  const file = (name: string) => path.join(h.workspace, name);
  const open = (name: string, tab: string) =>
    claude.callTool('openDiff', { old_file_path: file(name), new_file_path: file(name), new_file_contents: `${name} by ${tab}`, tab_name: tab });

  const first = open('a.txt', 'review');
  await waitFor(() => editor.shown.length === 1, 'a shown');
  const second = open('b.txt', 'review');
  assert.deepEqual((await first).content, [{ type: 'text', text: 'TAB_CLOSED' }], "the tab's first diff ends");
  await waitFor(() => editor.closed.some((c) => c.diff.filePath === file('a.txt')), "a's view closed");
  await waitFor(() => editor.shown.length === 2, 'b shown');
  assert.deepEqual(
    h.companion.diffs.list().map((d) => d.filePath),
    [file('b.txt')],
  );

  const renamed = open('b.txt', 'review 2');
  assert.deepEqual((await second).content, [{ type: 'text', text: 'TAB_CLOSED' }], 'the old tab of b ends');
  await waitFor(() => editor.shown.length === 3, 'b shown again');
  assert.deepEqual((await claude.callTool('close_tab', { tab_name: 'review' })).content, [{ type: 'text', text: 'TAB_CLOSED' }]);
  assert.equal(h.companion.diffs.list().length, 1, 'closing the old name left the new diff open');
  const shown = editor.shown.at(-1)!;
  h.companion.diffs.reject(shown.id);
  assert.deepEqual((await renamed).content, [
    { type: 'text', text: 'DIFF_REJECTED' },
    { type: 'text', text: 'review 2' },
  ]);
});

/** A companion, and opencode on Claude's face as opencode dials it: no subprotocol, its own name. */
async function withOpencode(t: TestContext) {
  const editor = new CapableEditor();
  const h: Harness = await startCompanion({ editor });
  t.after(() => h.cleanup());
  const lock = JSON.parse(fs.readFileSync(h.companion.lockFilePath('claude')!, 'utf8')) as { authToken: string };
  const opencode = await connectClaudeClient({ port: h.companion.port, token: lock.authToken, protocol: null, clientName: 'opencode' });
  t.after(() => opencode.close());
  return { editor, h, opencode };
}

test('opencode dials without a subprotocol and names itself opencode: its session is listed as opencode; a whole-file mention reaches it with all its lines', async (t) => {
  const { h, opencode } = await withOpencode(t);
  await waitFor(() => h.companion.sessionList[0]?.clientName === 'opencode', 'the session listed');
  assert.equal(h.companion.sessionList[0]!.agent, 'opencode');
  const file = path.join(h.workspace, 'm.txt');
  fs.writeFileSync(file, 'one\ntwo\nthree\n');
  assert.equal(h.companion.mention(file), 1);
  const mention = await waitFor(() => opencode.notifications.find((n) => n.method === 'at_mentioned'), 'at_mentioned');
  assert.deepEqual(mention.params, { filePath: file, lineStart: 0, lineEnd: 2 });
});

test("opencode's proposal is shown as opencode's, not Claude Code's: the face it borrows does not name it", async (t) => {
  // Before: Claude's openDiff labelled every proposal "Claude Code", so a user of opencode read the wrong agent's name.
  const { editor, h, opencode } = await withOpencode(t);
  await waitFor(() => h.companion.sessionList[0]?.agent === 'opencode', 'the session listed as opencode');
  const file = path.join(h.workspace, 'p.txt');
  fs.writeFileSync(file, 'one\n');
  const proposed = opencode.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'two\n', tab_name: 'p' });
  const shown = await waitFor(() => editor.shown[0], 'the diff shown');
  assert.equal(shown.agent, 'opencode');
  h.companion.diffs.reject(shown.id);
  assert.equal((await proposed).content[0]!.text, 'DIFF_REJECTED');
});
