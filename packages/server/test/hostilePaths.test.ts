/**
 * Issue 27 items 1 and 2, "a path is checked where it is used" and "roots are
 * sane". What broke: workspacePaths.ts checked where a path was, not what it
 * was (a FIFO in the workspace froze Neovim's openFile); Claude's openFile read
 * `startText`'s file synchronously before any check (a FIFO outside the
 * workspace froze the whole companion, /dev/zero grew it by GiBs); control
 * characters in paths went to the editor; a link swapped while the editor
 * opened or saved a file went unnoticed; and an editor's `roots` of `/` or the
 * user's home made the whole machine the workspace. Real Companion, real HTTP
 * with the MCP SDK client (Gemini's face) and a real WebSocket (Claude's).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test } from 'node:test';
import { connectClaudeClient } from '@ide-companion/testkit';
import type { ActionParams } from '@ide-companion/protocol';
import { applyEditorEvent } from '../src/editorEvents.js';
import type { EditorActions } from '../src/index.js';
import { RecordingEditor, connectClient, startCompanion, type Harness } from './helpers.js';

const text = (r: any) => r.content[0].text as string;
/** A control character other than tab, as a terminal would act on it. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/;

/** An editor with every path capability, recording what it was asked; `during` runs inside an action, as a racing process would. */
class PathEditor extends RecordingEditor implements EditorActions {
  asked: Array<{ action: string; path?: string }> = [];
  during: ((action: string, p: string) => void) | undefined;
  private use(action: string, p?: string) {
    this.asked.push({ action, ...(p !== undefined && { path: p }) });
    if (p !== undefined) this.during?.(action, p);
  }
  openFile(p: ActionParams<'openFile'>) {
    this.use('openFile', p.path);
  }
  saveDocument(p: ActionParams<'saveDocument'>) {
    this.use('saveDocument', p.path);
    return { saved: true };
  }
  checkDocumentDirty(p: ActionParams<'checkDocumentDirty'>) {
    this.use('checkDocumentDirty', p.path);
    return { isOpen: false, isDirty: false };
  }
  getDiagnostics(p: ActionParams<'getDiagnostics'>) {
    this.use('getDiagnostics', p.path);
    return { diagnostics: [] };
  }
  closeFile(p: { path: string }) {
    this.use('closeFile', p.path);
  }
}

async function withCompanion(t: import('node:test').TestContext): Promise<{ h: Harness; editor: PathEditor }> {
  const editor = new PathEditor();
  const h = await startCompanion({ editor });
  t.after(() => h.cleanup());
  return { h, editor };
}

function claudeToken(h: Harness): string {
  return JSON.parse(fs.readFileSync(h.companion.lockFilePath('claude')!, 'utf8')).authToken as string;
}

async function makeFifo(p: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('mkfifo', [p], { stdio: 'ignore' });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo exited ${code}`))));
    child.once('error', reject);
  });
}

/** A listening Unix socket at `p`, closed when the test ends. */
async function makeSocket(t: import('node:test').TestContext, p: string): Promise<void> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(p, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

/** Every Gemini face tool that takes a path, called on `file`. */
function geminiPathCalls(file: string) {
  return [
    ['openFile', { path: file }],
    ['saveDocument', { path: file }],
    ['checkDocumentDirty', { path: file }],
    ['getDiagnostics', { path: file }],
    ['openDiff', { filePath: file, newContent: 'y\n' }],
    ['closeDiff', { filePath: file }],
  ] as const;
}

/** Ms a fresh Gemini session's `initialize` (and tools/list) takes: the companion still answers others. */
async function otherSessionAnswersIn(h: Harness): Promise<number> {
  const started = performance.now();
  const c = await connectClient(h.companion);
  await c.client.listTools();
  const took = performance.now() - started;
  await c.close();
  return took;
}

test('Gemini face: openFile and saveDocument refuse a FIFO, a directory and a socket in the workspace, and the editor is never asked', async (t) => {
  const { h, editor } = await withCompanion(t);
  const fifo = path.join(h.workspace, 'pipe');
  await makeFifo(fifo);
  const dir = path.join(h.workspace, 'folder');
  fs.mkdirSync(dir);
  const sock = path.join(h.workspace, 'sock');
  await makeSocket(t, sock);
  const c = await connectClient(h.companion);
  t.after(() => c.close());
  for (const [given, kind] of [
    [fifo, /a FIFO, not a regular file/],
    [dir, /a directory, not a regular file/],
    [sock, /a socket, not a regular file/],
  ] as const) {
    for (const name of ['openFile', 'saveDocument', 'checkDocumentDirty', 'getDiagnostics']) {
      const r: any = await c.client.callTool({ name, arguments: { path: given } });
      assert.equal(r.isError, true, `${name} ${given}: ${text(r)}`);
      assert.match(text(r), new RegExp(`${name} refused ${given}: `), name);
      assert.match(text(r), kind, name);
    }
  }
  assert.deepEqual(editor.asked, []);
  assert.ok((await otherSessionAnswersIn(h)) < 1000);
});

test('Gemini face: a path with a control character (C0, DEL, C1) is refused by every tool taking one, even when such a file exists', async (t) => {
  const { h, editor } = await withCompanion(t);
  const c = await connectClient(h.companion);
  t.after(() => c.close());
  for (const name of ['a\nb.txt', 'c\u001b[31mred.txt', 'd\u007f.txt', 'e\u0085.txt', 'f\u009b2J.txt', 'g\tb.txt']) {
    const file = path.join(h.workspace, name);
    fs.writeFileSync(file, 'x\n');
    for (const [tool, args] of geminiPathCalls(file)) {
      const r: any = await c.client.callTool({ name: tool, arguments: args });
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(name)}: ${text(r)}`);
      assert.match(text(r), /control character \(U\+00[0-9A-F]{2} at \d+\)/, tool);
      // The name is echoed escaped, never raw.
      assert.doesNotMatch(text(r), RAW_CONTROL, tool);
    }
  }
  assert.deepEqual(editor.asked, []);
  assert.deepEqual(h.view.shown, [], 'no diff shown');
});

test('a path holding a lone surrogate (no Linux file name decodes to one) is refused by every tool of both faces, and the editor is never asked', async (t) => {
  // Emacs's json-parse failed on the escaped surrogate: checkDocumentDirty went unanswered for 5 s (fuzz seed 2075220332 #93).
  const { h, editor } = await withCompanion(t);
  const c = await connectClient(h.companion);
  t.after(() => c.close());
  const claude = await connectClaudeClient({ port: h.companion.port, token: claudeToken(h) });
  t.after(() => claude.close());
  for (const name of ['\ud800lone.txt', 'tail\udfff.txt', '\udc00\ud800.txt']) {
    const file = path.join(h.workspace, name);
    for (const [tool, args] of geminiPathCalls(file)) {
      const r: any = await c.client.callTool({ name: tool, arguments: args });
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(name)}: ${text(r)}`);
      assert.match(text(r), /lone surrogate \(U\+D[89A-F][0-9A-F]{2} at \d+\)/, tool);
      // Echoed escaped: the refusal is itself well-formed text.
      assert.doesNotMatch(text(r), /[\ud800-\udfff]/, tool);
    }
    for (const [tool, args] of [
      ['openFile', { filePath: file }],
      ['checkDocumentDirty', { filePath: file }],
      ['saveDocument', { filePath: file }],
      ['openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'y\n', tab_name: 't' }],
    ] as const) {
      const r = await claude.callTool(tool, args);
      assert.equal(r.isError, true, `claude ${tool}: ${r.content[0]!.text}`);
      assert.match(r.content[0]!.text!, /lone surrogate/, tool);
    }
  }
  // A well-formed pair (an emoji) is a name like any other.
  const emoji = path.join(h.workspace, '😀.txt');
  fs.writeFileSync(emoji, 'x\n');
  const r: any = await c.client.callTool({ name: 'checkDocumentDirty', arguments: { path: emoji } });
  assert.notEqual(r.isError, true, text(r));
  assert.deepEqual(
    editor.asked.map((a) => a.path),
    [emoji],
  );
  assert.deepEqual(h.view.shown, [], 'no diff shown');
});

test('a link swapped while the editor opens the file: the re-check refuses and the editor is asked to close it; while it saves: refused', async (t) => {
  const { h, editor } = await withCompanion(t);
  const outside = path.join(h.tmp, 'outside');
  fs.mkdirSync(path.join(outside, 'sub'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
  fs.writeFileSync(path.join(outside, 'sub', 'a.txt'), 'secret\n');
  const file = path.join(h.workspace, 'a.txt');
  const sub = path.join(h.workspace, 'sub');
  const c = await connectClient(h.companion);
  t.after(() => c.close());
  /** Replaces `at` by a link to `to` atomically (a rename), as an attacker racing the editor would. */
  const swap = (at: string, to: string) => {
    fs.symlinkSync(to, `${at}.swap`);
    fs.renameSync(`${at}.swap`, at);
  };
  const reset = () => {
    fs.rmSync(file, { force: true, recursive: true });
    fs.rmSync(sub, { force: true, recursive: true });
    fs.writeFileSync(file, 'mine\n');
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, 'a.txt'), 'mine\n');
  };

  // The last component swapped for a link to a file outside, while the editor opens it.
  reset();
  editor.during = (action) => action === 'openFile' && swap(file, path.join(outside, 'secret.txt'));
  let r: any = await c.client.callTool({ name: 'openFile', arguments: { path: file } });
  assert.equal(r.isError, true, text(r));
  assert.match(text(r), /no longer leads to the file that was checked/);
  assert.deepEqual(editor.asked, [
    { action: 'openFile', path: file },
    { action: 'closeFile', path: file },
  ]);

  // A folder below the root swapped for a link to a folder outside.
  reset();
  editor.asked = [];
  editor.during = (action) => action === 'openFile' && (fs.rmSync(sub, { recursive: true }), fs.symlinkSync(path.join(outside, 'sub'), sub));
  r = await c.client.callTool({ name: 'openFile', arguments: { path: path.join(sub, 'a.txt') } });
  assert.equal(r.isError, true, text(r));
  assert.deepEqual(
    editor.asked.map((a) => a.action),
    ['openFile', 'closeFile'],
  );

  // The same file replaced by another (a new inode under the same name) while it opens: not the file checked.
  reset();
  editor.asked = [];
  editor.during = (action) => action === 'openFile' && (fs.writeFileSync(`${file}.new`, 'other\n'), fs.renameSync(`${file}.new`, file));
  r = await c.client.callTool({ name: 'openFile', arguments: { path: file } });
  assert.equal(r.isError, true, text(r));

  // The last component swapped for a link to a file outside while the editor saves: refused.
  reset();
  editor.asked = [];
  editor.during = (action) => action === 'saveDocument' && swap(file, path.join(outside, 'secret.txt'));
  r = await c.client.callTool({ name: 'saveDocument', arguments: { path: file } });
  assert.equal(r.isError, true, text(r));
  assert.match(text(r), /saveDocument refused .*no longer leads to the file that was checked/);

  // A save that writes a new file under the name (as Vim and Emacs do with their backups) is no swap.
  reset();
  editor.asked = [];
  editor.during = (action) => action === 'saveDocument' && (fs.renameSync(file, `${file}~`), fs.writeFileSync(file, 'saved\n'));
  r = await c.client.callTool({ name: 'saveDocument', arguments: { path: file } });
  assert.notEqual(r.isError, true, text(r));

  // Without a swap both pass: the re-check is no false alarm.
  reset();
  editor.asked = [];
  editor.during = undefined;
  r = await c.client.callTool({ name: 'openFile', arguments: { path: file } });
  assert.notEqual(r.isError, true, text(r));
  r = await c.client.callTool({ name: 'saveDocument', arguments: { path: file } });
  assert.notEqual(r.isError, true, text(r));
  assert.deepEqual(
    editor.asked.map((a) => a.action),
    ['openFile', 'saveDocument'],
  );
});

test("Claude face: openFile with startText on a FIFO outside the workspace neither reads it nor freezes the companion; another session's initialize answers within 1 s", async (t) => {
  const { h, editor } = await withCompanion(t);
  const fifo = path.join(h.tmp, 'outside-pipe');
  await makeFifo(fifo);
  // Bounds the old, frozen behaviour: a writer opens the FIFO after 3 s, which would end a blocked read.
  const writer = spawn('sh', ['-c', `sleep 3; echo unblock > '${fifo}'`], { stdio: 'ignore' });
  t.after(() => writer.kill());
  const claude = await connectClaudeClient({ port: h.companion.port, token: claudeToken(h) });
  t.after(() => claude.close());
  const started = performance.now();
  const answer = claude.callTool('openFile', { filePath: fifo, startText: 'x' });
  const other = await otherSessionAnswersIn(h);
  const r = await answer;
  assert.ok(other < 1000, `another session's initialize took ${Math.round(other)} ms`);
  assert.ok(performance.now() - started < 1000, 'the call itself answered at once');
  assert.equal(r.isError, true, r.content[0]!.text);
  assert.match(r.content[0]!.text, /outside the workspace folders/);
  assert.deepEqual(editor.asked, []);
});

test('Claude face: openFile with startText on a FIFO inside the workspace is refused at once, and startText still finds its line in a regular file', async (t) => {
  const { h, editor } = await withCompanion(t);
  const fifo = path.join(h.workspace, 'pipe');
  await makeFifo(fifo);
  const writer = spawn('sh', ['-c', `sleep 3; echo unblock > '${fifo}'`], { stdio: 'ignore' });
  t.after(() => writer.kill());
  const claude = await connectClaudeClient({ port: h.companion.port, token: claudeToken(h) });
  t.after(() => claude.close());
  const answer = claude.callTool('openFile', { filePath: fifo, startText: 'x' });
  assert.ok((await otherSessionAnswersIn(h)) < 1000);
  const r = await answer;
  assert.equal(r.isError, true, r.content[0]!.text);
  assert.match(r.content[0]!.text, /a FIFO, not a regular file/);
  assert.deepEqual(editor.asked, []);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\ntwo\nthree\n');
  const ok = await claude.callTool('openFile', { filePath: file, startText: 'thr' });
  assert.equal(ok.content[0]!.text, 'Opened file and selected text "thr"'); // Claude Code's words (claudecode.nvim)
  assert.deepEqual(editor.asked, [{ action: 'openFile', path: file }]);
});

test('Claude face: openFile with startText on /dev/zero answers at once without growing the companion', async (t) => {
  const { h, editor } = await withCompanion(t);
  // /dev/zero inside the workspace through a link: the link resolves outside, so it is refused before any read.
  fs.symlinkSync('/dev/zero', path.join(h.workspace, 'zero'));
  const claude = await connectClaudeClient({ port: h.companion.port, token: claudeToken(h) });
  t.after(() => claude.close());
  const before = process.memoryUsage().rss;
  const started = performance.now();
  for (const filePath of ['/dev/zero', path.join(h.workspace, 'zero')]) {
    const r = await claude.callTool('openFile', { filePath, startText: 'x' });
    assert.equal(r.isError, true, r.content[0]!.text);
    assert.match(r.content[0]!.text, /outside the workspace folders/);
  }
  assert.ok(performance.now() - started < 1000);
  const grown = (process.memoryUsage().rss - before) / 2 ** 20;
  assert.ok(grown < 64, `the companion grew by ${grown.toFixed(0)} MiB`);
  assert.deepEqual(editor.asked, []);
});

test('Claude face: a control character in any path argument (filePath, a file:// URI, new_file_path) is refused', async (t) => {
  const { h, editor } = await withCompanion(t);
  const file = path.join(h.workspace, 'a\u001b]52;c;eA==\u0007.txt');
  fs.writeFileSync(file, 'x\n');
  const claude = await connectClaudeClient({ port: h.companion.port, token: claudeToken(h) });
  t.after(() => claude.close());
  const uri = `file://${h.workspace}/a%0Ab.txt`;
  fs.writeFileSync(path.join(h.workspace, 'a\nb.txt'), 'x\n');
  for (const [tool, args] of [
    ['openFile', { filePath: file, startText: 'x' }],
    ['saveDocument', { filePath: file }],
    ['checkDocumentDirty', { filePath: file }],
    ['getDiagnostics', { uri }],
    ['openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'y\n', tab_name: 't' }],
  ] as const) {
    const r = await claude.callTool(tool, args);
    assert.equal(r.isError, true, `${tool}: ${r.content[0]!.text}`);
    assert.match(r.content[0]!.text, /control character/, tool);
    assert.doesNotMatch(r.content[0]!.text, RAW_CONTROL, tool);
  }
  assert.deepEqual(editor.asked, []);
  assert.deepEqual(h.view.shown, []);
});

test('Claude face: a link swapped while the editor opens the file is refused by the same re-check', async (t) => {
  const { h, editor } = await withCompanion(t);
  const secret = path.join(h.tmp, 'secret.txt');
  fs.writeFileSync(secret, 'secret\n');
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'mine\n');
  editor.during = (action) => {
    if (action !== 'openFile') return;
    fs.symlinkSync(secret, `${file}.swap`);
    fs.renameSync(`${file}.swap`, file);
  };
  const claude = await connectClaudeClient({ port: h.companion.port, token: claudeToken(h) });
  t.after(() => claude.close());
  const r = await claude.callTool('openFile', { filePath: file });
  assert.equal(r.isError, true, r.content[0]!.text);
  assert.match(r.content[0]!.text, /no longer leads to the file that was checked/);
  assert.deepEqual(
    editor.asked.map((a) => a.action),
    ['openFile', 'closeFile'],
  );
});

test("roots: an editor's `/`, `//`, `/./`, its home as a whole, or a folder that does not exist is refused with a message; sane roots beside them stay", async (t) => {
  const { h, editor } = await withCompanion(t);
  const home = path.join(h.tmp, 'home');
  fs.mkdirSync(home);
  const savedHome = process.env['HOME'];
  process.env['HOME'] = home;
  t.after(() => (savedHome === undefined ? delete process.env['HOME'] : (process.env['HOME'] = savedHome)));
  const warnings: string[] = [];
  const logger = h.companion.logger as { warn: (m: string) => void };
  const originalWarn = logger.warn;
  logger.warn = (m: string) => void warnings.push(m);
  t.after(() => (logger.warn = originalWarn));
  const discovery = () => JSON.parse(fs.readFileSync(h.companion.discoveryFilePath!, 'utf8')) as { workspacePath: string };
  const missing = path.join(h.tmp, 'gone');

  for (const [roots, said] of [
    [['/'], /"\/" refused: it is the file system's root/],
    [['//'], /"\/\/" refused: it is the file system's root/],
    [['/./'], /"\/\.\/" refused: it is the file system's root/],
    [[home], /refused: it is your home folder as a whole/],
    [[`${home}/`], /refused: it is your home folder as a whole/],
    [[missing], /"[^"]*gone" refused: it does not exist/],
  ] as const) {
    assert.throws(() => applyEditorEvent(h.companion, { type: 'roots', roots: [...roots] }), said, JSON.stringify(roots));
    // Nothing sane in it: the roots stay as they were.
    assert.deepEqual(h.companion.context.getRoots(), [h.workspace], JSON.stringify(roots));
    assert.match(warnings.at(-1) ?? '', said);
  }
  // `/` beside the real root: `/` goes, the real root stays.
  const second = path.join(h.tmp, 'second');
  fs.mkdirSync(second);
  assert.throws(() => applyEditorEvent(h.companion, { type: 'roots', roots: ['/', second, missing] }), /"\/" refused.*gone" refused: it does not exist/);
  assert.deepEqual(h.companion.context.getRoots(), [second]);
  assert.equal(discovery().workspacePath, second);
  // And openFile /etc/passwd does not reach the editor.
  const c = await connectClient(h.companion);
  t.after(() => c.close());
  const r: any = await c.client.callTool({ name: 'openFile', arguments: { path: '/etc/passwd' } });
  assert.equal(r.isError, true);
  assert.match(text(r), /outside the workspace folders/);
  assert.deepEqual(editor.asked, []);
});

test('roots: a companion started with `/` as its workspace has none, says so, and opens nothing', async (t) => {
  const warnings: string[] = [];
  const editor = new PathEditor();
  const h = await startCompanion({
    editor,
    workspaceRoots: ['/'],
    logger: { debug() {}, info() {}, warn: (m: string) => void warnings.push(m), error() {} },
  });
  t.after(() => h.cleanup());
  assert.deepEqual(h.companion.context.getRoots(), []);
  assert.match(warnings.join('\n'), /workspace folder "\/" refused: it is the file system's root/);
  const discovery = JSON.parse(fs.readFileSync(h.companion.discoveryFilePath!, 'utf8')) as { workspacePath: string };
  assert.notEqual(discovery.workspacePath, '/');
  const c = await connectClient(h.companion);
  t.after(() => c.close());
  const r: any = await c.client.callTool({ name: 'openFile', arguments: { path: '/etc/passwd' } });
  assert.equal(r.isError, true);
  assert.deepEqual(editor.asked, []);
});
