/**
 * `ide-companion bridge`, the host for script-based editor plugins, driven the
 * way a Vim or Emacs script drives it: JSON lines on the real bin's
 * stdin/stdout (docs/editor-protocol.md), with a real MCP client as the CLI.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { CONTAINER_ENV, CONTAINER_MARKER_FILES, MAX_SELECTED_TEXT_LENGTH, UNHEARD_MENTION } from '@ide-companion/protocol';
import { acceptedCopies, assertServesSocket, connectRecordingClient, makeTempDir, repoRoot, waitFor, type RecordingClient } from '@ide-companion/testkit';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

class ScriptedEditor {
  readonly fromHost: any[] = [];
  readonly host: ChildProcessWithoutNullStreams;
  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.host = spawn(process.execPath, [bin, 'bridge', ...args], { env });
    readline.createInterface({ input: this.host.stdout }).on('line', (l) => this.fromHost.push(JSON.parse(l)));
  }
  send(m: unknown): void {
    this.host.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  }
  errors(): string[] {
    return this.fromHost.filter((m) => m.type === 'error').map((m) => m.message);
  }
  request(action: string, match: (params: any) => boolean = () => true): Promise<any> {
    return waitFor(() => this.fromHost.find((m) => m.type === 'request' && m.action === action && match(m.params)), `${action} request`, 15_000);
  }
  respond(request: any, answer: { result?: unknown; error?: string }): void {
    this.send({ type: 'response', id: request.id, ...answer });
  }
}

const text = (r: any) => r.content[0].text as string;

/** `cli` proposes `newContent` for `file` and the script shows it: resolves once openDiff is answered, with the showDiff request. */
async function proposalShown(cli: RecordingClient, editor: ScriptedEditor, file: string, newContent: string): Promise<any> {
  const opening = cli.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent } });
  const show = await editor.request('showDiff', (p) => p.filePath === file);
  editor.respond(show, { result: null });
  await opening;
  return show;
}

describe('ide-companion bridge (JSON lines)', () => {
  let tmp: { path: string; cleanup: () => void };
  let editor: ScriptedEditor;
  let peer: RecordingClient;
  let ready: any;
  const file = (n: string) => path.join(tmp.path, n);

  before(async () => {
    tmp = makeTempDir();
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp.path };
    for (const name of Object.values(CONTAINER_ENV)) delete env[name];
    editor = new ScriptedEditor(['--name', 'scripted', '--display-name', 'Scripted Editor', '--workspace', tmp.path], env);
    editor.send({ type: 'focus', path: file('early.txt') });
    await waitFor(() => editor.errors().length === 1, 'error before hello');
    assert.match(editor.errors()[0]!, /first line must be \{"type":"hello"/);
    editor.send({ type: 'hello', protocol: 1, pid: process.pid, capabilities: ['openFile', 'getDiagnostics', 'fromTheFuture'] });
    ready = await waitFor(() => editor.fromHost.find((m) => m.type === 'ready'), 'ready', 15_000);
    peer = await connectRecordingClient({ port: ready.port, token: ready.env.GEMINI_CLI_IDE_AUTH_TOKEN });
  });
  after(async () => {
    await peer?.close();
    editor?.host.kill();
    tmp?.cleanup();
  });

  test('hello starts the companion: ready names the editor PID, the discovery file and the known capabilities', async () => {
    assert.equal(ready.env.GEMINI_CLI_IDE_PID, String(process.pid));
    assert.match(ready.discoveryFile, new RegExp(`gemini-ide-server-${process.pid}-${ready.port}\\.json$`));
    assert.deepEqual(ready.capabilities, ['openFile', 'getDiagnostics']);
    assert.equal(ready.workspacePath, fs.realpathSync(tmp.path));
    // In a container where gemini would dial host.docker.internal (the host runs without the variables that avoid it), the editor is told what to export.
    // Its terminals are given the variable, and the words that say so (issue 39: Vim and Emacs started gemini disconnected there).
    if (CONTAINER_MARKER_FILES.some((f) => fs.existsSync(f))) {
      assert.match(ready.containerHint, /export REMOTE_CONTAINERS=1/);
      assert.equal(ready.env.REMOTE_CONTAINERS, '1');
      assert.match(ready.containerSaid, /^in a container: terminals opened from Scripted Editor carry REMOTE_CONTAINERS=1/);
    } else {
      assert.equal(ready.containerHint, undefined);
      assert.equal(ready.env.REMOTE_CONTAINERS, undefined);
    }
    const discovery = JSON.parse(fs.readFileSync(ready.discoveryFile, 'utf8'));
    assert.deepEqual(discovery.ideInfo, { name: 'scripted', displayName: 'Scripted Editor' });
  });

  test('the companion also serves its Unix socket, named in ready (gemini elsewhere: issue 18)', async () => {
    assert.equal(ready.socketPath, JSON.parse(fs.readFileSync(ready.discoveryFile, 'utf8')).socketPath);
    const tools = await assertServesSocket(ready.discoveryFile);
    assert.ok(tools.includes('openFile') && tools.includes('getDiagnostics'));
  });

  test('ready and sessions carry the shared health report as lines, made by the host (it checks its files itself)', async () => {
    assert.equal(ready.health[0], `ok   host running (pid ${editor.host.pid}), port ${ready.port}, 0 CLI sessions`);
    assert.ok(ready.health.includes(`ok   discovery file ${ready.discoveryFile}`), ready.health.join('\n'));
    assert.ok(ready.health.includes(`info workspace: ${ready.workspacePath}`), ready.health.join('\n'));
    assert.ok(
      ready.health.some((l: string) => l.startsWith(`ok   socket ${ready.socketPath}: for gemini in a container`)),
      ready.health.join('\n'),
    );
    const sessions = await waitFor(() => editor.fromHost.find((m) => m.type === 'sessions' && m.count === 1), 'sessions');
    assert.match(sessions.health[0], /^ok {3}host running \(pid \d+\), port \d+, 1 CLI session \(\w[\w ]*\)$/);
    // Asked, the host makes the report anew: a discovery file gone since is said to be missing.
    fs.renameSync(ready.discoveryFile, `${ready.discoveryFile}.away`);
    try {
      editor.send({ type: 'health' });
      const fresh = await waitFor(() => editor.fromHost.find((m) => m.type === 'health'), 'health');
      assert.equal(fresh.health[0], sessions.health[0]);
      assert.ok(fresh.health.includes(`FAIL discovery file ${ready.discoveryFile} is missing`), fresh.health.join('\n'));
    } finally {
      fs.renameSync(`${ready.discoveryFile}.away`, ready.discoveryFile);
    }
  });

  test('the tools follow the declared capabilities', async () => {
    const names = (await peer.client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['closeDiff', 'getActiveFile', 'getDiagnostics', 'getWorkspaceFolders', 'openDiff', 'openFile']);
  });

  test('editor events become context for the CLI', async () => {
    fs.writeFileSync(file('a.vim'), 'x');
    editor.send({ type: 'focus', path: file('a.vim'), cursor: { line: 3, character: 7 }, selectedText: 'sel' });
    const n = await waitFor(() => peer.notifications.find((x) => x.params.workspaceState?.openFiles?.[0]?.path === file('a.vim')), 'context');
    assert.deepEqual(n.params.workspaceState.openFiles[0].cursor, { line: 3, character: 7 });
    assert.equal(n.params.workspaceState.openFiles[0].selectedText, 'sel');
  });

  test('a selection sent as its range: the bridge asks the script for its text, and works out its direction', async () => {
    fs.writeFileSync(file('r.txt'), 'one\ntwo\n');
    editor.send({ type: 'focus', path: file('r.txt'), cursor: { line: 1, character: 2 }, anchor: { line: 2, character: 3 }, selectionKind: 'char' });
    const req = await editor.request('selectedText');
    assert.deepEqual(req.params, { maxChars: MAX_SELECTED_TEXT_LENGTH + 1 });
    editor.respond(req, { result: { text: 'ne\ntw' } });
    const n = await waitFor(() => peer.notifications.find((x) => x.params.workspaceState?.openFiles?.[0]?.selectedText === 'ne\ntw'), 'the text read');
    assert.deepEqual(n.params.workspaceState.openFiles[0].cursor, { line: 1, character: 2 });
    // The same position again: nothing to read.
    const asked = editor.fromHost.filter((m) => m.action === 'selectedText').length;
    editor.send({ type: 'cursor', path: file('r.txt'), cursor: { line: 1, character: 2 }, anchor: { line: 2, character: 3 }, selectionKind: 'char' });
    editor.send({ type: 'cursor', path: file('r.txt'), cursor: { line: 1, character: 1 } });
    await waitFor(() => peer.notifications.some((x) => x.params.workspaceState?.openFiles?.[0]?.cursor?.character === 1), 'the plain move');
    assert.equal(editor.fromHost.filter((m) => m.action === 'selectedText').length, asked, 'no read for a repeat or a plain move');
  });

  test('bad lines get an error and change nothing', async () => {
    const before = editor.errors().length;
    const contexts = peer.notifications.length;
    editor.send('not json');
    editor.send({ type: 'focus', path: 'relative.txt' });
    editor.send({ type: 'cursor', path: file('a.vim'), cursor: { line: 0, character: 1 } });
    editor.send({ type: 'nonsense' });
    editor.send({ type: 'hello' });
    editor.send({ type: 'diffAccepted', diffId: 'no-such-diff' });
    editor.send({ type: 'response', id: 'x' });
    await waitFor(() => editor.errors().length === before + 7, 'seven errors');
    assert.match(editor.errors().at(-3)!, /hello was already received/);
    assert.match(editor.errors().at(-2)!, /no pending diff no-such-diff/);
    assert.ok(!editor.fromHost.some((m) => m.action === 'closeDiff' && m.params.diffId === 'no-such-diff'), 'no accept taken, none acknowledged');
    assert.ok((await peer.client.listTools()).tools.length >= 3, 'still serving');
    assert.equal(peer.notifications.length, contexts, 'no context change');
  });

  test('"Send to agent" that no connected agent takes says who would, in the one wording every end shows', async () => {
    const before = editor.errors().length;
    editor.send({ type: 'mention', path: file('a.vim'), startLine: 1, endLine: 1 });
    await waitFor(() => editor.errors().length === before + 1, 'one error');
    assert.equal(editor.errors().at(-1), UNHEARD_MENTION);
  });

  test('showDiff carries the file on disk; the script accepts with its edited text', async () => {
    fs.writeFileSync(file('d.txt'), 'old\r\n');
    const show = await proposalShown(peer, editor, file('d.txt'), 'proposal\n');
    assert.equal(show.params.newContent, 'proposal\n');
    assert.equal(show.params.originalContent, 'old\r\n');
    editor.send({ type: 'diffAccepted', diffId: show.params.diffId, content: 'proposal\nedited\n' });
    // Issue 37: the script holds the proposal until the host says it took the accept, its copy written first.
    const taken = await editor.request('closeDiff', (p) => p.diffId === show.params.diffId);
    assert.deepEqual(taken.params, { diffId: show.params.diffId, reason: 'accepted' });
    assert.deepEqual(
      acceptedCopies(tmp.path)
        .filter((c) => c.filePath === file('d.txt'))
        .map((c) => c.content),
      ['proposal\nedited\n'],
      'the copy on disk before the ack',
    );
    editor.respond(taken, { result: null });
    const n = await waitFor(() => peer.notifications.find((x) => x.method === 'ide/diffAccepted'), 'accepted');
    assert.deepEqual(n.params, { filePath: file('d.txt'), content: 'proposal\nedited\n' });
  });

  test('a new file is shown with originalContent null; the script rejects', async () => {
    const opening = peer.client.callTool({ name: 'openDiff', arguments: { filePath: file('new.txt'), newContent: 'n\n' } });
    const show = await editor.request('showDiff', (p) => p.filePath === file('new.txt'));
    assert.equal(show.params.originalContent, null);
    editor.respond(show, { result: null });
    assert.deepEqual(((await opening) as any).content, []);
    editor.send({ type: 'diffRejected', diffId: show.params.diffId });
    const n = await waitFor(() => peer.notifications.find((x) => x.method === 'ide/diffRejected' && x.params.filePath === file('new.txt')), 'rejected');
    assert.deepEqual(n.params, { filePath: file('new.txt') });
  });

  test('a script that cannot show a diff makes openDiff an error with its words', async () => {
    const opening = peer.client.callTool({ name: 'openDiff', arguments: { filePath: file('e.txt'), newContent: 'x' } });
    editor.respond(await editor.request('showDiff', (p) => p.filePath === file('e.txt')), { error: 'no room for a tab' });
    const r: any = await opening;
    assert.equal(r.isError, true);
    assert.match(text(r), /no room for a tab/);
  });

  // Regression: openDiff on a FIFO froze the companion (a synchronous read on the event loop).
  test('openDiff of a FIFO or a directory is an error, and the script is never asked', async () => {
    const fifo = file('pipe');
    execFileSync('mkfifo', [fifo]);
    const shows = editor.fromHost.filter((m) => m.action === 'showDiff').length;
    // Inside the workspace: not a regular file. /dev/zero lies outside it, which is refused first (issue 35).
    for (const [target, why] of [
      [fifo, /only regular files can be diffed/],
      [tmp.path, /only regular files can be diffed/],
      ['/dev/zero', /outside the workspace folders/],
    ] as const) {
      const r: any = await peer.client.callTool({ name: 'openDiff', arguments: { filePath: target, newContent: 'x' } });
      assert.equal(r.isError, true, target);
      assert.match(text(r), why);
    }
    assert.equal(editor.fromHost.filter((m) => m.action === 'showDiff').length, shows);
  });

  test('closeDiff asks the script for the edited text, then closes its view', async () => {
    await proposalShown(peer, editor, file('c.txt'), 'model\n');
    const closing = peer.client.callTool({ name: 'closeDiff', arguments: { filePath: file('c.txt') } });
    const ask = await editor.request('diffText');
    editor.respond(ask, { result: { text: 'model\nuser edit\n' } });
    const close = await editor.request('closeDiff', (p) => p.diffId === ask.params.diffId);
    assert.equal(close.params.reason, 'closedByCli');
    editor.respond(close, { result: null });
    assert.deepEqual(JSON.parse(text(await closing)), { content: 'model\nuser edit\n' });
  });

  test('openFile asks the script for files inside the workspace only', async () => {
    fs.writeFileSync(file('o.txt'), 'x\n');
    const opening = peer.client.callTool({ name: 'openFile', arguments: { path: file('o.txt'), line: 2, column: 3 } });
    const req = await editor.request('openFile');
    assert.deepEqual(req.params, { path: file('o.txt'), line: 2, column: 3 });
    editor.respond(req, { result: null });
    assert.deepEqual(JSON.parse(text(await opening)), { opened: file('o.txt'), line: 2, column: 3 });
    const requests = editor.fromHost.filter((m) => m.action === 'openFile').length;
    const outside: any = await peer.client.callTool({ name: 'openFile', arguments: { path: '/etc/hostname' } });
    assert.equal(outside.isError, true);
    assert.match(text(outside), /outside the workspace/);
    assert.equal(editor.fromHost.filter((m) => m.action === 'openFile').length, requests, 'the script was not asked');
  });

  test('getDiagnostics: the script lists, the companion filters by severity; a script error is the tool error', async () => {
    const diag = (severity: string, line: number) => ({
      path: file('a.vim'),
      range: { start: { line, character: 1 }, end: { line, character: 4 } },
      severity,
      message: `${severity} here`,
      source: 'lint',
    });
    const asking = peer.client.callTool({ name: 'getDiagnostics', arguments: { path: file('a.vim'), severity: 'warning' } });
    const req = await editor.request('getDiagnostics');
    assert.deepEqual(req.params, { path: file('a.vim') });
    editor.respond(req, { result: { diagnostics: [diag('hint', 1), diag('warning', 2), diag('error', 3)] } });
    const got = JSON.parse(text(await asking));
    assert.deepEqual(
      got.diagnostics.map((d: any) => d.severity),
      ['error', 'warning'],
    );
    const failing = peer.client.callTool({ name: 'getDiagnostics', arguments: {} });
    editor.respond(await editor.request('getDiagnostics', (p) => p.path === undefined), { error: 'linter crashed' });
    const r: any = await failing;
    assert.equal(r.isError, true);
    assert.match(text(r), /linter crashed/);
  });

  test('a malformed answer from the script is a clear tool error', async () => {
    const asked = () => editor.fromHost.filter((m) => m.action === 'getDiagnostics');
    const before = asked().length;
    const asking = peer.client.callTool({ name: 'getDiagnostics', arguments: {} });
    const req = await waitFor(() => asked()[before], 'a new getDiagnostics request');
    editor.respond(req, { result: { diagnostics: [{ path: 1 }] } });
    const r: any = await asking;
    assert.equal(r.isError, true);
    assert.match(text(r), /malformed answer to getDiagnostics/);
  });

  test('closing stdin stops the host and removes its discovery file', async () => {
    editor.host.stdin.end();
    const code = await new Promise((r) => editor.host.once('exit', r));
    assert.equal(code, 0);
    assert.equal(fs.existsSync(ready.discoveryFile), false);
    assert.equal(fs.existsSync(path.dirname(ready.socketPath)), false, 'the socket folder goes too');
  });
});

describe('ide-companion bridge usage', () => {
  test('a missing flag is named, not only the usage printed', async () => {
    const child = spawn(process.execPath, [bin, 'bridge', '--name', 'x']);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 2);
    assert.match(stderr, /--name was given without --display-name/);
  });

  test('hello without an editor name (no flags either) says how to give one', async () => {
    const tmp = makeTempDir();
    try {
      const editor = new ScriptedEditor([], { ...process.env, TMPDIR: tmp.path });
      editor.send({ type: 'hello' });
      const code = await new Promise((r) => editor.host.once('exit', r));
      assert.equal(code, 2);
      assert.match(editor.errors()[0]!, /pass --name and --display-name, or "ide"/);
    } finally {
      tmp.cleanup();
    }
  });

  // Issue 36: the ends (Vim's g:ide_companion_agents, Emacs's ide-companion-agents) pass any name on; the host alone knows the agents.
  test('hello naming an unknown agent is refused, naming the known ones, and nothing is written', async () => {
    const tmp = makeTempDir();
    try {
      const env = { ...process.env, TMPDIR: tmp.path, HOME: tmp.path, IDE_COMPANION_AGENTS: '' };
      const editor = new ScriptedEditor(['--workspace', tmp.path], env);
      editor.send({ type: 'hello', ide: { name: 'emacs', displayName: 'Emacs' }, agents: ['gemini', 'droid', 'nosuch'] });
      const code = await new Promise((r) => editor.host.once('exit', r));
      assert.notEqual(code, 0);
      assert.equal(
        editor.fromHost.find((m) => m.type === 'ready'),
        undefined,
        'never ready',
      );
      assert.match(editor.errors()[0]!, /unknown agent "nosuch": choose from gemini, qwen, claude, copilot, codex, amp, droid, opencode/);
      assert.deepEqual(fs.readdirSync(tmp.path), [], 'no discovery or lock file written');
    } finally {
      tmp.cleanup();
    }
  });

  test('hello may name an agent no end lists by hand (droid): the host serves it', async () => {
    const tmp = makeTempDir();
    try {
      const env = { ...process.env, TMPDIR: tmp.path, HOME: tmp.path, IDE_COMPANION_AGENTS: '' };
      const editor = new ScriptedEditor(['--workspace', tmp.path], env);
      editor.send({ type: 'hello', ide: { name: 'emacs', displayName: 'Emacs' }, agents: ['droid'] });
      const ready = await waitFor(() => editor.fromHost.find((m) => m.type === 'ready'), 'ready', 15_000);
      assert.deepEqual(ready.agents, ['Gemini CLI', 'Factory Droid']);
      editor.host.stdin.end();
      await new Promise((r) => editor.host.once('exit', r));
    } finally {
      tmp.cleanup();
    }
  });

  test('hello may name the editor itself', async () => {
    const tmp = makeTempDir();
    try {
      const editor = new ScriptedEditor(['--workspace', tmp.path], { ...process.env, TMPDIR: tmp.path });
      editor.send({ type: 'hello', ide: { name: 'emacs', displayName: 'Emacs' } });
      const ready = await waitFor(() => editor.fromHost.find((m) => m.type === 'ready'), 'ready', 15_000);
      assert.equal(JSON.parse(fs.readFileSync(ready.discoveryFile, 'utf8')).ideInfo.displayName, 'Emacs');
      assert.deepEqual(ready.capabilities, []);
      editor.host.stdin.end();
      await new Promise((r) => editor.host.once('exit', r));
    } finally {
      tmp.cleanup();
    }
  });
});

describe('ide-companion bridge: every optional argument left out', () => {
  // Issue 21 part 4: an argument left out must be absent in the request the script gets (never null, never a key
  // holding nothing: in Neovim's msgpack it became vim.NIL and broke openFile), and the script's answer is the tool's.
  test('each capability tool with each optional argument absent: the script is asked exactly what was given, and its answer is the answer', async () => {
    const tmp = makeTempDir();
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp.path };
    const editor = new ScriptedEditor(['--name', 'scripted', '--display-name', 'Scripted Editor', '--workspace', tmp.path], env);
    let peer: RecordingClient | undefined;
    try {
      const root = fs.realpathSync(tmp.path);
      const f = (n: string) => path.join(root, n);
      fs.writeFileSync(f('u.txt'), 'one\ntwo\n');
      fs.writeFileSync(f('e.txt'), '');
      editor.send({
        type: 'hello',
        protocol: 1,
        pid: process.pid,
        capabilities: ['openFile', 'getOpenEditors', 'getSelection', 'getDiagnostics', 'checkDocumentDirty', 'saveDocument'],
      });
      const ready = await waitFor(() => editor.fromHost.find((m) => m.type === 'ready'), 'ready', 15_000);
      peer = await connectRecordingClient({ port: ready.port, token: ready.env.GEMINI_CLI_IDE_AUTH_TOKEN });
      const canned: Record<string, unknown> = {
        openFile: null,
        getOpenEditors: { editors: [{ path: f('u.txt'), isActive: true }] },
        getSelection: { selection: null },
        getDiagnostics: { diagnostics: [] },
        checkDocumentDirty: { isOpen: false, isDirty: false },
        saveDocument: { saved: false, message: 'not open' },
      };
      // [tool, arguments (undefined: no `arguments` at all), the params the script must get, the tool's answer]
      const rows: Array<[string, Record<string, unknown> | undefined, Record<string, unknown>, unknown]> = [
        ['openFile', { path: f('u.txt') }, { path: f('u.txt') }, { opened: f('u.txt') }],
        ['openFile', { path: f('u.txt'), line: 2 }, { path: f('u.txt'), line: 2 }, { opened: f('u.txt'), line: 2 }],
        ['openFile', { path: f('u.txt'), column: 2 }, { path: f('u.txt'), column: 2 }, { opened: f('u.txt'), column: 2 }],
        ['openFile', { path: f('u.txt'), line: 99, column: 99 }, { path: f('u.txt'), line: 99, column: 99 }, { opened: f('u.txt'), line: 99, column: 99 }],
        ['openFile', { path: f('e.txt'), line: 1 }, { path: f('e.txt'), line: 1 }, { opened: f('e.txt'), line: 1 }],
        ['getOpenEditors', undefined, {}, canned['getOpenEditors']],
        ['getOpenEditors', {}, {}, canned['getOpenEditors']],
        ['getSelection', undefined, {}, { selection: null }],
        ['getSelection', {}, {}, { selection: null }],
        ['getDiagnostics', undefined, {}, { diagnostics: [] }],
        ['getDiagnostics', { severity: 'error' }, {}, { diagnostics: [] }],
        ['getDiagnostics', { path: f('e.txt') }, { path: f('e.txt') }, { diagnostics: [] }],
        ['checkDocumentDirty', { path: f('e.txt') }, { path: f('e.txt') }, canned['checkDocumentDirty']],
        ['checkDocumentDirty', { path: f('missing.txt') }, { path: f('missing.txt') }, canned['checkDocumentDirty']],
        ['saveDocument', { path: f('u.txt') }, { path: f('u.txt') }, canned['saveDocument']],
      ];
      const failures: string[] = [];
      for (const [tool, args, params, answer] of rows) {
        const asked = editor.fromHost.filter((m) => m.type === 'request').length;
        const calling = peer.client.callTool(args === undefined ? { name: tool } : { name: tool, arguments: args });
        const request = await waitFor(() => editor.fromHost.filter((m) => m.type === 'request')[asked], `the ${tool} request`, 15_000);
        editor.respond(request, { result: canned[request.action] });
        const result: any = await calling;
        const label = `${tool} ${args === undefined ? '(no arguments)' : JSON.stringify(args)}`;
        if (request.action !== tool || JSON.stringify(request.params) !== JSON.stringify(params))
          failures.push(`${label}: the script got ${request.action} ${JSON.stringify(request.params)}, expected ${JSON.stringify(params)}`);
        if (result.isError || JSON.stringify(JSON.parse(text(result))) !== JSON.stringify(answer))
          failures.push(`${label}: answered ${text(result)}, expected ${JSON.stringify(answer)}`);
      }
      assert.equal(failures.length, 0, `\n${failures.join('\n')}`);
    } finally {
      await peer?.close();
      editor.host.stdin.end();
      await new Promise((r) => editor.host.once('exit', r));
      tmp.cleanup();
    }
  });
});

// Issue 21: the kill matrix with a scripted editor. The bridge tells the script what happened; the script keeps what it shows.
describe('ide-companion bridge: faults, with a scripted editor', () => {
  async function startScripted(tmp: string) {
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, QWEN_HOME: path.join(tmp, 'qwen'), CLAUDE_CONFIG_DIR: path.join(tmp, 'claude') };
    for (const name of Object.values(CONTAINER_ENV)) delete env[name];
    const editor = new ScriptedEditor(['--name', 'scripted', '--display-name', 'Scripted Editor', '--workspace', tmp], env);
    editor.send({ type: 'hello', protocol: 1, pid: process.pid, capabilities: [] });
    const ready = await waitFor(() => editor.fromHost.find((m) => m.type === 'ready'), 'ready', 15_000);
    return { editor, ready };
  }

  test('the CLI gone with a proposal open, and gone after the accept before its write: the script is told sessionClosed for each, the accepted text shown again first', async () => {
    const tmp = makeTempDir();
    const { editor, ready } = await startScripted(tmp.path);
    try {
      const target = path.join(tmp.path, 'a.txt');
      fs.writeFileSync(target, 'on disk\n');
      const cli = await connectRecordingClient({ port: ready.port, token: ready.env.GEMINI_CLI_IDE_AUTH_TOKEN });
      // openDiff is answered once the script has shown the diff.
      const shown = await proposalShown(cli, editor, target, 'from the model\n');
      editor.send({ type: 'diffAccepted', diffId: shown.params.diffId, content: 'accepted by the user\n' });
      await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
      const other = path.join(tmp.path, 'b.txt');
      const open = await proposalShown(cli, editor, other, 'still open\n');
      // The CLI dies before it writes a.txt, with b.txt's proposal open: its connection drops, no DELETE (an orderly end keeps nothing).
      await cli.client.close();
      const closedOpen = await editor.request('closeDiff', (p) => p.diffId === open.params.diffId);
      assert.equal(closedOpen.params.reason, 'sessionClosed');
      editor.respond(closedOpen, { result: null });
      const again = await editor.request('showDiff', (p) => p.filePath === target && p.diffId !== shown.params.diffId);
      assert.equal(again.params.newContent, 'accepted by the user\n', 'the accepted text, shown again');
      assert.equal(again.params.originalContent, 'on disk\n');
      editor.respond(again, { result: null });
      const keep = await editor.request('closeDiff', (p) => p.diffId === again.params.diffId);
      assert.equal(keep.params.reason, 'sessionClosed', 'closed as its session ended: the script keeps it');
      editor.respond(keep, { result: null });
      assert.equal(fs.readFileSync(target, 'utf8'), 'on disk\n', 'the file untouched');
    } finally {
      editor.host.kill();
      tmp.cleanup();
    }
  });

  // Issue 21: the editor's accept is its last word (it is killed right after): the CLI must still hear it.
  test('the script accepts and its stdin closes at once (the editor killed): the CLI hears the accepted text, then the bridge exits and its files go', async () => {
    const tmp = makeTempDir();
    const { editor, ready } = await startScripted(tmp.path);
    try {
      const target = path.join(tmp.path, 'a.txt');
      fs.writeFileSync(target, 'on disk\n');
      const cli = await connectRecordingClient({ port: ready.port, token: ready.env.GEMINI_CLI_IDE_AUTH_TOKEN });
      const shown = await proposalShown(cli, editor, target, 'from the model\n');
      editor.send({ type: 'diffAccepted', diffId: shown.params.diffId, content: 'the last word ✓\r\n' });
      editor.host.stdin.end();
      const heard = await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told', 5_000);
      assert.equal(heard.params.content, 'the last word ✓\r\n');
      await waitFor(() => editor.host.exitCode !== null, 'the bridge to exit', 2_000);
      await waitFor(() => !fs.existsSync(ready.discoveryFile), 'its discovery file to go', 2_000);
      assert.equal(fs.readFileSync(target, 'utf8'), 'on disk\n', "writing is the CLI's");
      await cli.close().catch(() => undefined);
    } finally {
      editor.host.kill();
      tmp.cleanup();
    }
  });

  test('the bridge killed with SIGKILL: its discovery file, lock files and socket folder go within 2 s (its reaper)', async () => {
    const tmp = makeTempDir();
    const { editor, ready } = await startScripted(tmp.path);
    try {
      const files = [
        ready.discoveryFile,
        path.join(tmp.path, 'qwen', 'ide', `${ready.port}.lock`),
        path.join(tmp.path, 'claude', 'ide', `${ready.port}.lock`),
        path.dirname(ready.socketPath),
      ];
      for (const f of files) assert.ok(fs.existsSync(f), `${f} exists while the bridge runs`);
      editor.host.kill('SIGKILL');
      const killedAt = Date.now();
      await waitFor(() => files.every((f) => !fs.existsSync(f)), "the killed bridge's files gone", 5_000);
      assert.ok(Date.now() - killedAt < 2_000, `gone after ${Date.now() - killedAt} ms`);
    } finally {
      editor.host.kill();
      tmp.cleanup();
    }
  });
});
