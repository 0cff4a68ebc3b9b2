/**
 * Claude Code's face (issue 19) over a real WebSocket on loopback: the lock
 * file, the upgrade's checks, Claude's vocabulary on the same diff
 * coordinator and context, and the notifications Claude Code listens for.
 * The real CLI is driven in packages/cli/test/claudeCode.test.ts and the
 * editors' tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClaudeClient, waitFor } from '@ide-companion/testkit';
import { applyEditorEvent } from '../src/editorEvents.js';
import { sweepStaleClaudeLockFiles } from '../src/faces/claude.js';
import { claudeIdeDir } from '@ide-companion/shared/agentPaths';
import { connectClient, rawRequest, startCompanion, mcpHeaders, type Harness } from './helpers.js';

async function withCompanion(t: import('node:test').TestContext, options: Parameters<typeof startCompanion>[0] = {}): Promise<Harness> {
  const h = await startCompanion(options);
  t.after(() => h.cleanup());
  return h;
}

function lockOf(h: Harness): Record<string, any> {
  return JSON.parse(fs.readFileSync(h.companion.lockFilePath('claude')!, 'utf8')) as Record<string, any>;
}

async function connect(h: Harness) {
  return connectClaudeClient({ port: h.companion.port, token: lockOf(h)['authToken'] as string });
}

test("the lock file Claude Code reads: private, the companion's port, IDE pid, folders and a token of its own; rewritten with the roots, gone on stop", async (t) => {
  const h = await withCompanion(t, { idePid: process.pid });
  const file = h.companion.lockFilePath('claude')!;
  assert.equal(file, path.join(h.tmp, 'claude', 'ide', `${h.companion.port}.lock`));
  assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
  assert.equal((fs.statSync(path.dirname(file)).mode & 0o777).toString(8), '700');
  const lock = lockOf(h);
  assert.deepEqual(Object.keys(lock).sort(), ['authToken', 'ideName', 'pid', 'runningInWindows', 'transport', 'workspaceFolders']);
  assert.equal(lock['pid'], process.pid);
  assert.equal(lock['transport'], 'ws');
  assert.equal(lock['ideName'], 'Test IDE');
  assert.deepEqual(lock['workspaceFolders'], [h.workspace]);
  assert.match(lock['authToken'], /^[0-9a-f]{64}$/);
  assert.notEqual(lock['authToken'], h.companion.authToken, "Claude's face has a token of its own");
  const other = path.join(h.tmp, 'other');
  fs.mkdirSync(other);
  h.companion.context.setRoots([h.workspace, other]);
  assert.deepEqual(lockOf(h)['workspaceFolders'], [h.workspace, other]);
  assert.deepEqual(h.companion.agents, ['gemini', 'qwen', 'claude', 'copilot', 'codex', 'amp', 'droid']);
  await h.companion.stop();
  assert.equal(fs.existsSync(file), false);
});

test('with Claude Code left out: no lock file, no variables, and no WebSocket', async (t) => {
  const h = await withCompanion(t, { agents: ['gemini', 'qwen'] });
  assert.equal(h.companion.lockFilePath('claude'), undefined);
  assert.equal(fs.existsSync(path.join(h.tmp, 'claude')), false);
  assert.equal(h.companion.terminalEnv['CLAUDE_CODE_SSE_PORT'], undefined);
  assert.deepEqual(h.companion.agents, ['gemini', 'qwen']);
  await assert.rejects(connectClaudeClient({ port: h.companion.port, token: h.companion.authToken }), /refused|Unexpected server response|socket hang up/);
});

test('the upgrade is refused without the token, with a wrong one or another face’s, with any Origin, with a foreign Host, and for another subprotocol', async (t) => {
  const h = await withCompanion(t);
  const port = h.companion.port;
  const token = lockOf(h)['authToken'] as string;
  const refused = async (options: Parameters<typeof connectClaudeClient>[0], status: RegExp) =>
    assert.rejects(connectClaudeClient({ initialize: false, ...options }), status);
  await refused({ port }, /HTTP 401/);
  await refused({ port, token: token.replace(/.$/, (c) => (c === '0' ? '1' : '0')) }, /HTTP 401/);
  await refused({ port, token: h.companion.authToken }, /HTTP 401/);
  // What a web page's WebSocket sends (CVE-2025-52882): refused before any upgrade.
  await refused({ port, token, headers: { Origin: 'https://example.com' } }, /HTTP 403/);
  await refused({ port, token, headers: { Origin: `http://127.0.0.1:${port}` } }, /HTTP 403/);
  await refused({ port, token, headers: { Host: `evil.example:${port}` } }, /HTTP 403/);
  await assert.rejects(connectClaudeClient({ port, token, protocol: 'not-mcp', initialize: false }));
  // And Claude's token opens no HTTP session: each face's token is its own.
  const http = await rawRequest(port, {
    headers: mcpHeaders(token, port),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    }),
  });
  assert.equal(http.status, 401);
  assert.equal(h.companion.sessionList.length, 0);
});

test("Claude's tools: its names over the same tools; a session is listed as Claude Code", async (t) => {
  const h = await withCompanion(t);
  const claude = await connect(h);
  t.after(() => claude.close());
  const { tools } = (await claude.request('tools/list')) as { tools: Array<{ name: string }> };
  assert.deepEqual(tools.map((tool) => tool.name).sort(), [
    'closeAllDiffTabs',
    'close_tab',
    'getCurrentSelection',
    'getLatestSelection',
    'getWorkspaceFolders',
    'openDiff',
  ]);
  const folders = JSON.parse((await claude.callTool('getWorkspaceFolders')).content[0]!.text);
  assert.deepEqual(folders, { success: true, folders: [{ name: 'ws', uri: `file://${h.workspace}`, path: h.workspace }], rootPath: h.workspace });
  await waitFor(() => h.companion.sessionList.length === 1, 'the session listed');
  assert.equal(h.companion.sessionList[0]!.agent, 'claude');
  assert.equal(h.companion.sessionList[0]!.clientName, 'claude-code');
});

test("openDiff blocks until the user decides: accepted (edited) answers FILE_SAVED with the user's text, rejected DIFF_REJECTED; the view shows Claude Code", async (t) => {
  const h = await withCompanion(t);
  const claude = await connect(h);
  t.after(() => claude.close());
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'old\n');
  const args = { old_file_path: file, new_file_path: file, new_file_contents: 'from the model\n', tab_name: '✻ [Claude Code] a.txt (1) ⧉' };
  const accepted = claude.callTool('openDiff', args);
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  assert.equal(shown.agent, 'Claude Code');
  assert.equal(shown.originalContent, 'old\n');
  let answered = false;
  void accepted.then(() => (answered = true));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(answered, false, 'openDiff waits for the user');
  const edited = 'the user’s text\r\nno final newline 😀';
  assert.equal(h.companion.diffs.accept(shown.id, edited), true);
  assert.deepEqual((await accepted).content, [
    { type: 'text', text: 'FILE_SAVED' },
    { type: 'text', text: edited },
  ]);
  assert.equal(fs.readFileSync(file, 'utf8'), 'old\n', 'the companion never writes: the CLI does');
  // Claude Code closes the tab after an answer: nothing is pending, nothing happens.
  assert.deepEqual((await claude.callTool('close_tab', { tab_name: args.tab_name })).content, [{ type: 'text', text: 'TAB_CLOSED' }]);

  const rejected = claude.callTool('openDiff', { ...args, tab_name: 'second' });
  const second = await waitFor(() => h.view.shown[1], 'the second diff');
  h.companion.diffs.reject(second.id);
  assert.deepEqual((await rejected).content, [
    { type: 'text', text: 'DIFF_REJECTED' },
    { type: 'text', text: 'second' },
  ]);
});

test('the user accepts while the editor is still opening the view (VS Code: vscode.diff never resolves once its tab is closed): openDiff answers FILE_SAVED at once', async (t) => {
  const h = await withCompanion(t);
  h.view.hang = true;
  const claude = await connect(h);
  t.after(() => claude.close());
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'old\n');
  const answer = claude.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'new\n', tab_name: 't' });
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  assert.equal(h.companion.diffs.accept(shown.id), true);
  const result = await Promise.race([answer, new Promise<'none'>((r) => setTimeout(() => r('none'), 2000))]);
  assert.notEqual(result, 'none', 'openDiff answered within 2 s of the accept');
  assert.deepEqual(result, {
    content: [
      { type: 'text', text: 'FILE_SAVED' },
      { type: 'text', text: 'new\n' },
    ],
  });
});

test('close_tab and closeAllDiffTabs close pending diffs (answered TAB_CLOSED); a dropped connection closes its diffs', async (t) => {
  const h = await withCompanion(t);
  const claude = await connect(h);
  const file = (name: string) => path.join(h.workspace, name);
  const open = (name: string) =>
    claude.callTool('openDiff', { old_file_path: file(name), new_file_path: file(name), new_file_contents: name, tab_name: `tab ${name}` });
  const one = open('one.txt');
  await waitFor(() => h.view.shown.length === 1, 'one shown');
  assert.deepEqual((await claude.callTool('close_tab', { tab_name: 'tab one.txt' })).content, [{ type: 'text', text: 'TAB_CLOSED' }]);
  assert.deepEqual((await one).content, [{ type: 'text', text: 'TAB_CLOSED' }]);
  assert.equal(h.view.closed[0]!.reason, 'closedByCli');
  void open('two.txt');
  void open('three.txt');
  await waitFor(() => h.view.shown.length === 3, 'two more shown');
  assert.deepEqual((await claude.callTool('closeAllDiffTabs')).content, [{ type: 'text', text: 'CLOSED_2_DIFF_TABS' }]);
  assert.equal(h.companion.diffs.list().length, 0);
  void open('four.txt');
  await waitFor(() => h.view.shown.length === 4, 'four shown');
  await claude.close();
  await waitFor(() => h.view.closed.find((c) => c.diff.filePath === file('four.txt'))?.reason, 'the diff closed with its session');
  assert.equal(h.view.closed.at(-1)!.reason, 'sessionClosed');
  await waitFor(() => h.companion.sessionList.length === 0, 'the session gone');
});

test('two agents at once: diffs of two files each get their own outcome; a second agent on the same file is refused, naming the first', async (t) => {
  const h = await withCompanion(t);
  const claude = await connect(h);
  const gemini = await connectClient(h.companion);
  t.after(async () => {
    await claude.close();
    await gemini.close();
  });
  const file = (name: string) => path.join(h.workspace, name);
  await gemini.client.callTool({ name: 'openDiff', arguments: { filePath: file('g.txt'), newContent: 'from gemini' } });
  const fromClaude = claude.callTool('openDiff', {
    old_file_path: file('c.txt'),
    new_file_path: file('c.txt'),
    new_file_contents: 'from claude',
    tab_name: 'c',
  });
  await waitFor(() => h.view.shown.length === 2, 'both shown');
  const [g, c] = h.view.shown;
  assert.equal(g!.agent, 'Gemini CLI');
  assert.equal(c!.agent, 'Claude Code');

  const clash = await claude.callTool('openDiff', { old_file_path: file('g.txt'), new_file_path: file('g.txt'), new_file_contents: 'x', tab_name: 'clash' });
  assert.equal(clash.isError, true);
  assert.match(clash.content[0]!.text, /g\.txt already has a proposed change open for review \(from Gemini CLI\)/);
  const geminiClash = await gemini.client.callTool({ name: 'openDiff', arguments: { filePath: file('c.txt'), newContent: 'y' } });
  assert.equal(geminiClash.isError, true);
  assert.match((geminiClash.content as Array<{ text: string }>)[0]!.text, /\(from Claude Code\)/);
  assert.equal(h.view.shown.length, 2, 'nothing replaced');

  h.companion.diffs.accept(c!.id);
  h.companion.diffs.reject(g!.id);
  assert.equal((await fromClaude).content[0]!.text, 'FILE_SAVED');
  const outcome = await waitFor(() => gemini.notifications.find((n) => n.method.startsWith('ide/diff')), 'gemini hears its outcome');
  assert.deepEqual(outcome, { method: 'ide/diffRejected', params: { filePath: file('g.txt') } });
});

test('selection_changed on connect and as the selection moves (0-based); "Send to agent" reaches Claude Code as at_mentioned', async (t) => {
  const h = await withCompanion(t);
  const file = path.join(h.workspace, 'sel.ts');
  fs.writeFileSync(file, 'one\ntwo\nthree\n');
  h.companion.context.focus(file, { cursor: { line: 1, character: 1 } });
  assert.equal(applyEditorEvent(h.companion, { type: 'mention', path: file }), false, 'no agent to hear it');
  const claude = await connect(h);
  t.after(() => claude.close());
  const first = await waitFor(() => claude.notifications.find((n) => n.method === 'selection_changed'), 'the selection on connect');
  assert.deepEqual(first.params, {
    text: '',
    filePath: file,
    fileUrl: `file://${file}`,
    selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 }, isEmpty: true },
  });
  // A selection from line 2 to the end of line 3, the cursor at its end.
  h.companion.context.setCursor(file, { line: 3, character: 5 }, 'two\nthree');
  const moved = await waitFor(() => claude.notifications.filter((n) => n.method === 'selection_changed')[1], 'the new selection');
  assert.deepEqual(moved.params.selection, { start: { line: 1, character: 0 }, end: { line: 2, character: 4 }, isEmpty: false });
  assert.equal(moved.params.text, 'two\nthree');
  // The same lines selected backward (the editor says so): the cursor is at their start.
  applyEditorEvent(h.companion, { type: 'cursor', path: file, cursor: { line: 2, character: 1 }, selectedText: 'two\nthree', selectionBackward: true });
  const backward = await waitFor(() => claude.notifications.filter((n) => n.method === 'selection_changed')[2], 'the backward selection');
  assert.deepEqual(backward.params.selection, { start: { line: 1, character: 0 }, end: { line: 2, character: 5 }, isEmpty: false });
  applyEditorEvent(h.companion, { type: 'selection', path: file, selectedText: 'hre', selectionBackward: true });
  h.companion.context.setCursor(file, { line: 3, character: 2 }, 'hre', true);
  const oneLine = await waitFor(
    () => claude.notifications.filter((n) => n.method === 'selection_changed').find((n) => n.params.text === 'hre' && n.params.selection.start.line === 2),
    'a backward selection within a line',
  );
  assert.deepEqual(oneLine.params.selection, { start: { line: 2, character: 1 }, end: { line: 2, character: 4 }, isEmpty: false });
  // The same text, the cursor where it was, the direction flipped: a new range.
  const heard = claude.notifications.length;
  h.companion.context.setCursor(file, { line: 3, character: 2 }, 'hre', false);
  const flipped = await waitFor(() => claude.notifications.slice(heard).find((n) => n.method === 'selection_changed'), 'the flipped selection');
  assert.deepEqual(flipped.params.selection, { start: { line: 2, character: 0 }, end: { line: 2, character: 1 }, isEmpty: false });
  h.companion.context.setCursor(file, { line: 3, character: 5 }, 'two\nthree');
  assert.equal(h.companion.context.selectionBackward, false, 'a new selection without the word is forward');

  assert.equal(applyEditorEvent(h.companion, { type: 'mention', path: file, startLine: 2, endLine: 3 }), true);
  const mention = await waitFor(() => claude.notifications.find((n) => n.method === 'at_mentioned'), 'at_mentioned');
  assert.deepEqual(mention.params, { filePath: file, lineStart: 1, lineEnd: 2 });
  const current = JSON.parse((await claude.callTool('getCurrentSelection')).content[0]!.text);
  assert.equal(current.success, true);
  assert.equal(current.text, 'two\nthree');
});

test('a frame that is no JSON-RPC gets an error and changes nothing; the connection serves on', async (t) => {
  const h = await withCompanion(t);
  const claude = await connect(h);
  t.after(() => claude.close());
  claude.sendRaw('{not json');
  claude.sendRaw(JSON.stringify({ hello: 'world' }));
  claude.socket.send(Buffer.from([0xff, 0x00]), { binary: true });
  await waitFor(() => claude.unanswered.length === 3, 'three errors');
  assert.deepEqual(
    claude.unanswered.map((m) => m.error.code),
    [-32700, -32600, -32700],
  );
  const { tools } = (await claude.request('tools/list')) as { tools: unknown[] };
  assert.ok(tools.length > 0);
  const missing = await claude.callTool('openDiff', { new_file_path: 'relative.txt' }).catch((err: Error) => err);
  assert.ok(missing instanceof Error || (missing as { isError?: boolean }).isError, 'bad arguments are an error');
  assert.equal(h.view.shown.length, 0);
});

test("a lock file whose IDE is dead is swept; the folder is Claude Code's", (t) => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env['TMPDIR'] ?? '/tmp'), 'ide-companion-claude-sweep-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, '1111.lock'), JSON.stringify({ pid: 999_999_999, transport: 'ws' }));
  fs.writeFileSync(path.join(dir, '2222.lock'), JSON.stringify({ pid: process.pid, transport: 'ws' }));
  fs.writeFileSync(path.join(dir, '3333.lock'), 'not json');
  assert.deepEqual(sweepStaleClaudeLockFiles(dir), ['1111.lock']);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['2222.lock', '3333.lock']);
  assert.equal(claudeIdeDir({ CLAUDE_CONFIG_DIR: '/x/cc' }), path.join('/x/cc', 'ide'));
  assert.match(claudeIdeDir({}), /[\\/]\.claude[\\/]ide$/);
});
