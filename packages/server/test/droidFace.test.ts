/**
 * Factory Droid's face (issue 36) at the wire, with a real MCP SDK client
 * behaving as the CLI 0.225.2's shipped code does (protocol/src/droid.ts):
 * `http://localhost:PORT/mcp` on the face's own port from the lock file's
 * name, no token, no Origin, two sessions per CLI (its terminal UI and its
 * agent worker), its four tools; and the guard that stands in for a token.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DROID_ENV, DROID_NOTIFICATION, DroidActiveFileParamsSchema, DroidLockFileSchema, type ActionParams, type ActionResult } from '@ide-companion/protocol';
import { droidIdeDir, parseAgents } from '@ide-companion/shared/agentPaths';
import { inCI, waitFor } from '@ide-companion/testkit';
import { RecordingEditor, rawRequest, startCompanion, type Harness } from './helpers.js';
import { kernelHex, peerUid } from '../src/faces/droid/peerUid.js';

interface DroidClient {
  client: Client;
  notifications: Array<{ method: string; params: any }>;
  close: () => Promise<void>;
}

/** As the CLI's `tM.connect`: the SDK's Streamable HTTP client on localhost, its client info, no capabilities, no headers of its own. */
async function connectDroid(port: number): Promise<DroidClient> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost:${port}/mcp`));
  const client = new Client({ name: 'factory-cli-mcp-client', version: '1.0.0' }, { capabilities: {} });
  const notifications: DroidClient['notifications'] = [];
  client.fallbackNotificationHandler = async (n) => {
    notifications.push({ method: n.method, params: n.params });
  };
  await client.connect(transport);
  return { client, notifications, close: () => client.close() };
}

const diagnostic = {
  path: '',
  range: { start: { line: 2, character: 3 }, end: { line: 2, character: 5 } },
  severity: 'error',
  message: 'x is unused',
  source: 'lint',
};

class DiagnosingEditor extends RecordingEditor {
  asked: Array<ActionParams<'getDiagnostics'>> = [];
  opened: Array<ActionParams<'openFile'>> = [];
  getDiagnostics(params: ActionParams<'getDiagnostics'>): ActionResult<'getDiagnostics'> {
    this.asked.push(params);
    return { diagnostics: params.path ? [{ ...diagnostic, path: params.path }] : [] } as never;
  }
  openFile(params: ActionParams<'openFile'>): void {
    this.opened.push(params);
  }
}

async function withDroid(
  t: import('node:test').TestContext,
  options: Parameters<typeof startCompanion>[0] = {},
): Promise<Harness & { editor: DiagnosingEditor; port: number }> {
  const editor = new DiagnosingEditor();
  const h = await startCompanion({ agents: ['gemini', 'droid'], editor, ...options });
  t.after(() => h.cleanup());
  const lock = h.companion.lockFilePath('droid')!;
  return Object.assign(h, { editor, port: Number(path.basename(lock, '.lock')) });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'factory-cli-mcp-client', version: '1.0.0' } },
});
const droidHeaders = (port: number, extra: Record<string, string> = {}) => ({
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  Host: `localhost:${port}`,
  ...extra,
});

test("the lock file Droid reads: <ITS PORT>.lock, private, {pid, ideName, workspaceFolders}, a port that is not the companion's; the terminals' variable; gone on stop", async (t) => {
  const h = await withDroid(t);
  const file = h.companion.lockFilePath('droid')!;
  assert.equal(path.dirname(file), path.join(h.tmp, '.factory', 'ide'));
  assert.match(path.basename(file), /^\d+\.lock$/);
  assert.notEqual(h.port, h.companion.port, 'a port of its own: Droid sends no token, so the shared port is not opened to it');
  assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
  assert.equal((fs.statSync(path.dirname(file)).mode & 0o777).toString(8), '700');
  const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepEqual(Object.keys(lock).sort(), ['ideName', 'pid', 'workspaceFolders']);
  assert.equal(DroidLockFileSchema.safeParse(lock).success, true);
  assert.equal(lock.pid, h.companion.idePid);
  assert.deepEqual(lock.workspaceFolders, [h.workspace]);
  assert.equal(h.companion.terminalEnv[DROID_ENV.MCP_PORT as keyof typeof h.companion.terminalEnv], String(h.port));
  assert.deepEqual(h.companion.agents, ['gemini', 'droid']);
  assert.ok(
    h.companion.faceHealth.some((item) => item.level === 'ok' && item.text.startsWith(`Factory Droid: port ${h.port}`)),
    JSON.stringify(h.companion.faceHealth),
  );
  await h.companion.stop();
  assert.equal(fs.existsSync(file), false);
});

test('two sessions (the TUI and the worker) both hear activeFile, openFiles, diagnostics and heartbeats; exactly the four tools', async (t) => {
  const h = await withDroid(t, { keepAliveMs: 300 });
  const file = path.join(h.workspace, 'a.py');
  fs.writeFileSync(file, 'one\ntwo\nthree\n');
  h.companion.context.focus(file, { cursor: { line: 1, character: 1 } });
  const tui = await connectDroid(h.port);
  t.after(() => tui.close());
  const worker = await connectDroid(h.port);
  t.after(() => worker.close());
  await waitFor(() => h.companion.sessionList.filter((s) => s.agent === 'droid').length === 2, 'both sessions listed as Droid');
  for (const c of [tui, worker]) {
    const { tools } = await c.client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), ['closeDiff', 'getIdeDiagnostics', 'openDiff', 'openFile']);
    for (const tool of tools) assert.ok((tool.description ?? '').length > 20, `${tool.name} is described (the model sees it)`);
  }
  // On connect: the active file as it stands.
  for (const c of [tui, worker]) {
    const first = await waitFor(() => c.notifications.find((n) => n.method === DROID_NOTIFICATION.activeFile), 'activeFile on connect');
    assert.equal(DroidActiveFileParamsSchema.safeParse(first.params).success, true, JSON.stringify(first.params));
    assert.equal(first.params.path, file);
    assert.equal(first.params.lineCount, 4);
  }
  // A selection: every session hears it, 0-based.
  h.companion.context.focus(file, { cursor: { line: 2, character: 3 }, selectedText: 'two' });
  for (const c of [tui, worker]) {
    const sel = await waitFor(
      () => c.notifications.find((n) => n.method === DROID_NOTIFICATION.activeFile && n.params.selection.selectedText === 'two'),
      'the selection in every session',
    );
    // The context's cursor is the selection's end, as every face reads it (selection.ts).
    assert.deepEqual(sel.params.selection, { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 2, selectedText: 'two' });
    assert.equal(sel.params.fileName, 'a.py');
    const open = await waitFor(() => c.notifications.find((n) => n.method === DROID_NOTIFICATION.openFiles && n.params.files.length === 1), 'openFiles');
    assert.equal(open.params.files[0].path, file);
    const diag = await waitFor(() => c.notifications.find((n) => n.method === DROID_NOTIFICATION.diagnostics), 'diagnostics pushed');
    assert.deepEqual(diag.params, {
      filePath: file,
      diagnostics: [{ severity: 0, message: 'x is unused', source: 'lint', range: { start: { line: 1, character: 2 }, end: { line: 1, character: 4 } } }],
    });
  }
  // The heartbeat: repeated while connected (every keepAliveMs here, at most every 20 s, well inside Droid's 75 s).
  for (const c of [tui, worker]) {
    await waitFor(() => c.notifications.filter((n) => n.method === DROID_NOTIFICATION.heartbeat).length >= 3, 'three heartbeats', 5000);
    const beat = c.notifications.find((n) => n.method === DROID_NOTIFICATION.heartbeat)!;
    assert.ok(Math.abs(Date.now() - beat.params.timestamp) < 60_000);
  }
});

test("Droid's tools: openDiff shows a preview and answers at once, closeDiff closes it, nothing written; getIdeDiagnostics by URI in VS Code's numbers; openFile; a path outside the roots refused", async (t) => {
  const h = await withDroid(t);
  const file = path.join(h.workspace, 'a.py');
  fs.writeFileSync(file, 'x = 1\n');
  const tui = await connectDroid(h.port);
  t.after(() => tui.close());
  const opened: any = await tui.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'x = 2\n' } });
  assert.notEqual(opened.isError, true, opened.content[0].text);
  assert.deepEqual(JSON.parse(opened.content[0].text), { success: true });
  assert.equal(h.editor.shown.length, 1);
  assert.equal(h.editor.shown[0]!.newContent, 'x = 2\n');
  assert.equal(h.editor.shown[0]!.agent, 'Factory Droid');
  const closed: any = await tui.client.callTool({ name: 'closeDiff', arguments: { filePath: file } });
  assert.deepEqual(JSON.parse(closed.content[0].text), { success: true, alreadyClosed: false });
  assert.equal(h.editor.closed.length, 1);
  assert.equal(h.editor.closed[0]!.reason, 'closedByCli');
  assert.deepEqual(h.companion.diffs.list(), []);
  assert.equal(fs.readFileSync(file, 'utf8'), 'x = 1\n', 'the CLI writes the file, not us');

  const diags: any = await tui.client.callTool({ name: 'getIdeDiagnostics', arguments: { uri: pathToFileURL(file).href } });
  assert.deepEqual(JSON.parse(diags.content[0].text).diagnostics, [
    { severity: 0, message: 'x is unused', source: 'lint', range: { start: { line: 1, character: 2 }, end: { line: 1, character: 4 } } },
  ]);
  assert.equal(h.editor.asked.at(-1)!.path, file);
  const shown: any = await tui.client.callTool({ name: 'openFile', arguments: { filePath: file, waitForSave: false } });
  assert.notEqual(shown.isError, true, shown.content[0].text);
  assert.equal(h.editor.opened.at(-1)!.path, file);

  const outside = path.join(h.tmp, 'outside.py');
  fs.writeFileSync(outside, 'secret\n');
  // The roots bound what the editor shows or opens (diagnostics are read as every face reads them: what the editor shows).
  for (const [name, args] of [
    ['openDiff', { filePath: outside, newContent: 'y\n' }],
    ['openFile', { filePath: outside }],
  ] as const) {
    const r: any = await tui.client.callTool({ name, arguments: args });
    assert.equal(r.isError, true, `${name}: ${r.content[0].text}`);
    assert.match(r.content[0].text, /outside the workspace/, name);
  }
  const asked = h.editor.asked.length;
  const hostile: any = await tui.client.callTool({ name: 'getIdeDiagnostics', arguments: { uri: `file://${h.workspace}/a%1B]52;c;eA==%07.py` } });
  assert.equal(hostile.isError, true);
  assert.match(hostile.content[0].text, /control character/);
  assert.equal(h.editor.asked.length, asked, 'the editor was not asked');
  assert.equal(h.editor.shown.length, 1, 'no diff shown for the outside file');
  assert.equal(h.editor.opened.length, 1);
});

test('the guard in place of a token: a foreign Host, an Origin, a body over the limit are refused; nothing opened', async (t) => {
  const h = await withDroid(t, { maxBodyBytes: 64 * 1024 });
  const at = h.port;
  assert.equal((await rawRequest(at, { headers: droidHeaders(h.port), body: INIT })).status, 200, 'as the CLI sends it');
  assert.equal((await rawRequest(at, { headers: droidHeaders(h.port, { Host: `evil.example:${h.port}` }), body: INIT })).status, 403);
  assert.equal((await rawRequest(at, { headers: droidHeaders(h.port, { Host: `localhost:${h.companion.port}` }), body: INIT })).status, 403);
  assert.equal((await rawRequest(at, { headers: droidHeaders(h.port, { Origin: 'http://evil.example' }), body: INIT })).status, 403);
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { pad: 'x'.repeat(128 * 1024) } });
  assert.equal((await rawRequest(at, { headers: droidHeaders(h.port), body: big })).status, 413);
  // The companion's shared port does not take Droid's tokenless request either.
  const shared = h.companion.port;
  assert.equal((await rawRequest(shared, { headers: droidHeaders(h.companion.port), body: INIT })).status, 401);
  assert.equal(h.companion.sessionList.filter((s) => s.agent === 'droid').length, 1, 'only the well-formed one');
});

test("the peer's uid is read from the kernel's table: ours for our own connection, none for a pair nobody holds", () => {
  assert.equal(kernelHex('127.0.0.1'), '0100007F');
  assert.equal(kernelHex('::1'), '00000000000000000000000001000000');
  assert.equal(kernelHex('::ffff:127.0.0.1'), '0000000000000000FFFF00000100007F');
  assert.equal(peerUid({ address: '127.0.0.1', port: 1 }, { address: '127.0.0.1', port: 2 }), undefined);
});

const isRoot = process.getuid?.() === 0;

/** Runs a program to its exit, killed after 20 s. */
function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
const NOBODY = 65534;

test('a connection from another user (nobody, 65534) is refused with 403, its session never opened', async (t) => {
  if (!isRoot) {
    if (inCI) throw new Error('needs root to run a second user (nobody): required when CI=true');
    return t.skip('needs root to run a second user (nobody)');
  }
  const h = await withDroid(t);
  const script = `fetch('http://127.0.0.1:${h.port}/mcp',{method:'POST',headers:${JSON.stringify(droidHeaders(h.port))},body:${JSON.stringify(INIT)}}).then(async r=>{console.log(r.status+' '+(await r.text()))},e=>{console.log('error '+e.message)})`;
  // Spawned, not spawnSync: the companion answering is in this process.
  const r = await run('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', script]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^403 .*another user \(uid 65534\)/, r.stdout);
  assert.equal(h.companion.sessionList.filter((s) => s.agent === 'droid').length, 0);
  // The same request as us is taken (the refusal was the uid's).
  const ours = await run(process.execPath, ['-e', script]);
  assert.match(ours.stdout, /^200 /, ours.stdout + ours.stderr);
});

test("Droid's folder is $HOME/.factory/ide (the CLI's os.homedir()); a lock file of a dead IDE there is swept at start, a live one kept", async (t) => {
  assert.equal(droidIdeDir({ HOME: '/x/home' }), path.join('/x/home', '.factory', 'ide'));
  assert.deepEqual(parseAgents('droid'), ['gemini', 'droid']);
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(process.env['TMPDIR'] ?? '/tmp', 'ide-companion-droid-sweep-')));
  const dir = path.join(tmp, '.factory', 'ide');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(path.join(dir, '1111.lock'), JSON.stringify({ pid: 999_999_999, ideName: 'Gone', workspaceFolders: ['/w'] }));
  fs.writeFileSync(path.join(dir, '2222.lock'), JSON.stringify({ pid: process.pid, ideName: 'Live', workspaceFolders: ['/w'] }));
  const h = await withDroid(t, { tmp });
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  assert.deepEqual(fs.readdirSync(dir).sort(), ['2222.lock', path.basename(h.companion.lockFilePath('droid')!)].sort());
});

test("the active file's lineCount is read by descriptor inside the roots: a link to a file outside is not read (0); a file edited is counted again when active again", async (t) => {
  const h = await withDroid(t);
  const outside = path.join(h.tmp, 'secret.txt');
  fs.writeFileSync(outside, 'a\nb\nc\nd\ne\n');
  const link = path.join(h.workspace, 'link.txt');
  fs.symlinkSync(outside, link);
  const file = path.join(h.workspace, 'a.py');
  fs.writeFileSync(file, 'one\ntwo\n');
  const c = await connectDroid(h.port);
  t.after(() => c.close());
  const activeOf = (p: string, lines?: number) =>
    c.notifications.find((n) => n.method === DROID_NOTIFICATION.activeFile && n.params.path === p && (lines === undefined || n.params.lineCount === lines));
  h.companion.context.focus(link, { cursor: { line: 1, character: 1 } });
  const linked = await waitFor(() => activeOf(link), 'the link as the active file');
  assert.equal(linked.params.lineCount, 0, 'the file outside the roots is not read through the link');
  h.companion.context.focus(file, { cursor: { line: 1, character: 1 } });
  assert.equal((await waitFor(() => activeOf(file), 'the file as the active file')).params.lineCount, 3);
  fs.writeFileSync(file, 'one\ntwo\nthree\nfour\n');
  h.companion.context.focus(link, { cursor: { line: 1, character: 2 } });
  const told = (p: string) => c.notifications.filter((n) => n.method === DROID_NOTIFICATION.activeFile && n.params.path === p).length;
  await waitFor(() => told(link) === 2, 'the link active again');
  h.companion.context.focus(file, { cursor: { line: 2, character: 1 } });
  await waitFor(() => activeOf(file, 5), 'the edited file counted again, not its first count kept');
  assert.deepEqual(DroidActiveFileParamsSchema.safeParse(activeOf(file, 5)!.params).success, true);
});
