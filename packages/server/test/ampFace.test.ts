/**
 * Amp's face (issue 31) at the wire, as amp.nvim serves `amp --ide`: the
 * lock file `<data>/amp/ide/<PORT>.json`, the WebSocket on the companion's
 * port with `?auth=`, each request answered from the core (path checks, the
 * diff view for editFile), and the notifications.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { connectAmpClient, waitFor, type AmpClient } from '@ide-companion/testkit';
import type { ActionParams, ActionResult } from '@ide-companion/protocol';
import { ampIdeDir, parseAgents } from '@ide-companion/shared/agentPaths';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { ampReference } from '../src/faces/amp/ampContext.js';
import { ampLockFile, sweepStaleAmpLockFiles } from '../src/faces/amp/ampLockFile.js';
import { RecordingEditor, startCompanion, type Harness } from './helpers.js';

test("the lock file's ideName is one the CLI keeps: it skips and deletes WebSocket lock files naming VS Code, Cursor or Windsurf", () => {
  // The CLI's list of IDEs it reads through their state files instead (read from its binary).
  const skipped = (name: string) => ['vscode', 'vs code', 'cursor', 'windsurf'].some((n) => name.toLowerCase().includes(n));
  for (const ideName of ['VS Code', 'Cursor', 'Windsurf', 'vscode-insiders']) {
    const lock = ampLockFile({ port: 1, token: 't', idePid: 2, roots: ['/w'], ideName });
    assert.equal(skipped(lock.ideName), false, `${ideName} became ${lock.ideName}`);
    assert.equal(lock.ideName, 'IDE Companion');
  }
  assert.equal(ampLockFile({ port: 1, token: 't', idePid: 2, roots: ['/w'], ideName: 'Neovim' }).ideName, 'Neovim');
});

async function withAmp(t: import('node:test').TestContext, options: Parameters<typeof startCompanion>[0] = {}): Promise<Harness> {
  const h = await startCompanion({ agents: ['gemini', 'claude', 'amp'], ...options });
  t.after(() => h.cleanup());
  return h;
}

function lockOf(h: Harness): { port: number; authToken: string; pid: number; workspaceFolders: string[]; ideName: string } {
  return JSON.parse(fs.readFileSync(h.companion.lockFilePath('amp')!, 'utf8'));
}

async function connect(t: import('node:test').TestContext, h: Harness): Promise<AmpClient> {
  const amp = await connectAmpClient(lockOf(h));
  t.after(() => amp.close());
  await waitFor(() => h.companion.sessionList.some((s) => s.agent === 'amp'), 'the session listed as Amp');
  return amp;
}

/** The status of an upgrade to the companion's port (101 when accepted); `query` may start with a path of its own. */
function upgradeStatus(port: number, query: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${query.startsWith('/') ? '' : '/'}${query}`, { headers });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    ws.once('error', reject);
  });
}

test("the lock file Amp reads: private, the companion's port and a token of its own; gone on stop", async (t) => {
  const h = await withAmp(t);
  const file = h.companion.lockFilePath('amp')!;
  assert.equal(file, path.join(h.tmp, 'amp', 'ide', `${h.companion.port}.json`));
  assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
  assert.equal((fs.statSync(path.dirname(file)).mode & 0o777).toString(8), '700');
  const lock = lockOf(h);
  assert.deepEqual(Object.keys(lock).sort(), ['authToken', 'ideName', 'pid', 'port', 'workspaceFolders']);
  assert.equal(lock.port, h.companion.port);
  assert.equal(lock.pid, h.companion.idePid);
  assert.deepEqual(lock.workspaceFolders, [h.workspace]);
  assert.equal(lock.ideName, 'Test IDE');
  assert.match(lock.authToken, /^[0-9a-f]{64}$/);
  assert.notEqual(lock.authToken, h.companion.authToken, 'a token of its own');
  assert.deepEqual(h.companion.agents, ['gemini', 'claude', 'amp']);
  await h.companion.stop();
  assert.equal(fs.existsSync(file), false);
});

test('the upgrade is refused without the token, with a wrong one or another face’s, twice given, with any Origin or a foreign Host', async (t) => {
  const h = await withAmp(t);
  const { port, authToken } = lockOf(h);
  const wrong = authToken.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
  assert.equal(await upgradeStatus(port, `?auth=${wrong}`), 401);
  assert.equal(await upgradeStatus(port, `?auth=${h.companion.authToken}`), 401);
  assert.equal(await upgradeStatus(port, '?auth='), 401);
  assert.equal(await upgradeStatus(port, `?auth=${'x'.repeat(501)}`), 401);
  assert.equal(await upgradeStatus(port, `?auth=${authToken}&auth=${authToken}`), 401);
  assert.equal(await upgradeStatus(port, `?auth=${authToken}`, { Origin: 'https://example.com' }), 403);
  assert.equal(await upgradeStatus(port, `?auth=${authToken}`, { Origin: `http://127.0.0.1:${port}` }), 403);
  assert.equal(await upgradeStatus(port, `?auth=${authToken}`, { Host: `evil.example:${port}` }), 403);
  assert.equal(h.companion.sessionList.length, 0);
  assert.equal(await upgradeStatus(port, `?auth=${authToken}`, { Host: `localhost:${port}` }), 101);
});

test('the upgrade is accepted only on the path the CLI dials (`ws://localhost:PORT?auth=`), refused on any other', async (t) => {
  const h = await withAmp(t);
  const { port, authToken } = lockOf(h);
  for (const target of ['/ws', '/amp', '/%2F', '/index.html', '/.well-known/x', '/ws/..%2F']) {
    assert.equal(await upgradeStatus(port, `${target}?auth=${authToken}`), 404, target);
  }
  assert.equal(h.companion.sessionList.length, 0, 'no session from any of them');
  // The CLI's own URL, as testkit's client dials it.
  const amp = await connect(t, h);
  assert.deepEqual(await amp.request('ping', { message: 'here' }), { id: '1', ping: { message: 'here' } });
});

test('the token is compared in constant time (the shared checker), never with ===', () => {
  const source = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/http/requestGuard.ts'), 'utf8');
  const guard = /export function queryTokenGuard[\s\S]*?\n}\n/.exec(source)?.[0] ?? '';
  assert.match(guard, /tokenChecker\(token\)/);
  assert.doesNotMatch(guard, /===\s*token|token\s*===/);
});

test('bad envelopes get a clear error answer and change nothing; the connection stays', async (t) => {
  const h = await withAmp(t);
  const amp = await connect(t, h);
  assert.deepEqual(await amp.raw('not json'), { error: { code: -32700, message: 'Parse error: the frame is not JSON' } });
  assert.equal((await amp.raw('{"hello":1}')).error.code, -32600);
  assert.equal((await amp.raw('{"clientRequest":{"ping":{}}}')).error.code, -32600);
  assert.equal((await amp.raw('{"clientRequest":{"id":"a","ping":{},"readFile":{}}}')).error.code, -32600);
  assert.deepEqual(await amp.request('launchMissiles', {}), {
    id: '1',
    error: { code: -32601, message: 'Method not found: launchMissiles', data: 'Unknown IDE request method' },
  });
  const bad = await amp.request('readFile', { path: 7 });
  assert.equal(bad.error.code, -32602);
  assert.deepEqual(await amp.request('ping', { message: 'hi' }), { id: '3', ping: { message: 'hi' } });
  assert.deepEqual(await amp.request('authenticate', {}), { id: '4', authenticate: { authenticated: true } });
});

test('a frame over the size cap closes that connection alone', async (t) => {
  const h = await withAmp(t, { maxBodyBytes: 64 * 1024 });
  const amp = await connect(t, h);
  const closed = new Promise<number>((resolve) => amp.socket.once('close', (code) => resolve(code)));
  amp.socket.send(JSON.stringify({ clientRequest: { id: 1, readFile: { path: 'x'.repeat(100 * 1024) } } }));
  assert.equal(await closed, 1009);
  const again = await connect(t, h);
  assert.deepEqual(await again.request('ping', { message: 'still here' }), { id: '1', ping: { message: 'still here' } });
});

test('readFile: a regular file inside the roots; outside, a FIFO, a folder, oversized or missing → success false with the reason', async (t) => {
  const h = await withAmp(t, { maxBodyBytes: 64 * 1024 });
  const amp = await connect(t, h);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'héllo\nworld\n');
  assert.deepEqual((await amp.request('readFile', { path: file })).readFile, { success: true, content: 'héllo\nworld\n', encoding: 'utf-8' });
  assert.equal((await amp.request('readFile', { path: `file://${file}` })).readFile.content, 'héllo\nworld\n');
  const outside = path.join(h.tmp, 'secret.txt');
  fs.writeFileSync(outside, 'secret\n');
  const cases: Array<[string, RegExp]> = [[outside, /outside the workspace folders/]];
  const fifo = path.join(h.workspace, 'pipe');
  execFileSync('mkfifo', [fifo]);
  cases.push([fifo, /not a regular file/]);
  cases.push([h.workspace, /not a regular file/]);
  const big = path.join(h.workspace, 'big.txt');
  fs.writeFileSync(big, 'x'.repeat(65 * 1024));
  cases.push([big, /limit/]);
  cases.push([path.join(h.workspace, 'missing.txt'), /does not exist/]);
  cases.push([path.join(h.workspace, 'a\u001b.txt'), /control character/]);
  fs.symlinkSync(outside, path.join(h.workspace, 'link.txt'));
  cases.push([path.join(h.workspace, 'link.txt'), /outside the workspace folders/]);
  for (const [p, reason] of cases) {
    const answer = (await amp.request('readFile', { path: p })).readFile;
    assert.equal(answer.success, false, p);
    assert.equal(answer.content, undefined, p);
    assert.match(answer.message, reason, p);
  }
});

test('editFile goes through the diff view: accepted with the user’s edits, those bytes land; rejected, the file is unchanged; outside the roots, refused', async (t) => {
  const h = await withAmp(t);
  const amp = await connect(t, h);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\ntwo\n');

  const accepted = amp.request('editFile', { path: file, fullContent: 'from the model\n' });
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  assert.equal(shown.agent, 'Amp');
  assert.equal(shown.newContent, 'from the model\n');
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\ntwo\n', 'nothing written before the user decides');
  const edited = 'from the model\nand the user\u00a0— no trailing newline';
  h.companion.diffs.accept(shown.id, edited);
  const answer = (await accepted).editFile;
  assert.equal(answer.success, true);
  assert.equal(answer.appliedChanges, true);
  assert.match(answer.message, /edited and accepted/);
  assert.deepEqual(fs.readFileSync(file), Buffer.from(edited), 'the user’s bytes, exactly');

  const rejected = amp.request('editFile', { path: file, fullContent: 'no\n' });
  const second = await waitFor(() => h.view.shown[1], 'the second diff');
  h.companion.diffs.reject(second.id);
  assert.deepEqual((await rejected).editFile, {
    success: false,
    message: `The user rejected the changes to ${file}; the file is unchanged`,
    appliedChanges: false,
  });
  assert.deepEqual(fs.readFileSync(file), Buffer.from(edited));

  const created = path.join(h.workspace, 'sub', 'new.txt');
  fs.mkdirSync(path.dirname(created));
  const creating = amp.request('editFile', { path: created, fullContent: 'new\n' });
  const third = await waitFor(() => h.view.shown[2], 'the new file’s diff');
  h.companion.diffs.accept(third.id);
  assert.equal((await creating).editFile.success, true);
  assert.equal(fs.readFileSync(created, 'utf8'), 'new\n');

  const outside = path.join(h.tmp, 'outside.txt');
  fs.writeFileSync(outside, 'keep\n');
  for (const p of [outside, path.join(h.tmp, 'new-outside.txt'), 'relative.txt', path.join(h.workspace, 'nofolder', 'x.txt')]) {
    const refused = (await amp.request('editFile', { path: p, fullContent: 'x\n' })).editFile;
    assert.equal(refused.success, false, p);
    assert.match(refused.message, /^editFile refused /, p);
  }
  assert.equal(fs.readFileSync(outside, 'utf8'), 'keep\n');
  assert.equal(fs.existsSync(path.join(h.tmp, 'new-outside.txt')), false);
  assert.equal(h.view.shown.length, 3, 'no diff shown for a refused path');
});

test('an editFile waiting for the user is answered rejected when Amp goes away, and its diff closes', async (t) => {
  const h = await withAmp(t);
  const amp = await connect(t, h);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\n');
  void amp.request('editFile', { path: file, fullContent: 'two\n' });
  await waitFor(() => h.view.shown[0], 'the diff shown');
  await amp.close();
  await waitFor(() => h.companion.diffs.list().length === 0, 'the diff closed with its session');
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\n');
});

test('a second editFile of the same file replaces the first: the first is answered rejected, the second waits for the user and lands', async (t) => {
  const h = await withAmp(t);
  const amp = await connect(t, h);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\n');
  const first = amp.request('editFile', { path: file, fullContent: 'first\n' });
  await waitFor(() => h.view.shown[0], 'the first diff');
  const second = amp.request('editFile', { path: file, fullContent: 'second\n' });
  const firstAnswer = (await first).editFile;
  assert.equal(firstAnswer.success, false);
  assert.equal(firstAnswer.appliedChanges, false);
  const shown = await waitFor(() => h.view.shown[1], 'the second diff');
  assert.equal(shown.newContent, 'second\n');
  assert.deepEqual(
    h.companion.diffs.list().map((d) => d.id),
    [shown.id],
    'one diff open, the second',
  );
  h.companion.diffs.accept(shown.id);
  const answer = (await second).editFile;
  assert.equal(answer.success, true, answer.message);
  assert.equal(fs.readFileSync(file, 'utf8'), 'second\n');
});

/** An end as the script ends are for buffer writes: it tells whether a buffer is dirty and rereads one (RecordingEditor's reload). */
class BufferEditor extends RecordingEditor {
  /** Each path's buffer, as the end would answer for it; absent: no buffer shows it. */
  buffers = new Map<string, Partial<ActionResult<'checkDocumentDirty'>>>();
  asked: string[] = [];
  checkDocumentDirty(params: ActionParams<'checkDocumentDirty'>): ActionResult<'checkDocumentDirty'> {
    this.asked.push(params.path);
    const buffer = this.buffers.get(params.path);
    return { isOpen: buffer !== undefined, isDirty: false, ...buffer };
  }
}

test('editFile in `buffer` mode: the companion writes under the buffer (bytes exact) and asks the end to reread it; unshown and new files just written', async (t) => {
  const editor = new BufferEditor();
  const h = await withAmp(t, { editor, faceSettings: { amp: { editFile: 'buffer' } } });
  const amp = await connect(t, h);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\n');
  editor.buffers.set(file, {});
  const text = 'alpha\r\nBETA ✓ é\r\ngamma';
  const answer = (await amp.request('editFile', { path: file, fullContent: text })).editFile;
  assert.deepEqual(answer, { success: true, message: `Written to ${file} under the editor's buffer; the user can undo it there`, appliedChanges: true });
  assert.deepEqual(fs.readFileSync(file), Buffer.from(text, 'utf8'), 'CRLF, non-ASCII, no final newline: the bytes exactly');
  assert.deepEqual(editor.reloads, [
    {
      path: file,
      unsavedWarning: `a.txt was written by Amp but was not reloaded: it has unsaved changes (reloading from disk would drop them)`,
    },
  ]);
  assert.equal(editor.shown.length, 0, 'no review in buffer mode');

  const unshown = path.join(h.workspace, 'b.txt');
  fs.writeFileSync(unshown, 'keep\n', { mode: 0o640 });
  fs.chmodSync(unshown, 0o640);
  assert.equal((await amp.request('editFile', { path: unshown, fullContent: 'changed\n' })).editFile.success, true);
  assert.equal(fs.readFileSync(unshown, 'utf8'), 'changed\n');
  assert.equal(fs.statSync(unshown).mode & 0o777, 0o640, 'its mode kept');
  const fresh = path.join(h.workspace, 'new.txt');
  assert.equal((await amp.request('editFile', { path: fresh, fullContent: 'new\n' })).editFile.success, true);
  assert.equal(fs.readFileSync(fresh, 'utf8'), 'new\n');
  assert.equal(editor.reloads.length, 1, 'no buffer shows them: nothing to reread');
});

test('editFile in `buffer` mode: an end that fails to reread its buffer is named in the answer; the file is written all the same', async (t) => {
  const editor = new (class extends BufferEditor {
    override reload(): void {
      throw new Error('no window');
    }
  })();
  const h = await withAmp(t, { editor, faceSettings: { amp: { editFile: 'buffer' } } });
  const amp = await connect(t, h);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\n');
  editor.buffers.set(file, {});
  const answer = (await amp.request('editFile', { path: file, fullContent: 'two\n' })).editFile;
  assert.equal(answer.success, true);
  assert.match(answer.message, /but Test IDE did not reread its buffer of it \(no window\): reload it there$/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'two\n');
});

test('editFile in `buffer` mode refuses a buffer with unsaved changes, a read-only one, one changed on disk, a read-only file: clear words, nothing written', async (t) => {
  const editor = new BufferEditor();
  const h = await withAmp(t, { editor, faceSettings: { amp: { editFile: 'buffer' } } });
  const amp = await connect(t, h);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\n');
  for (const [state, words] of [
    [{ isDirty: true }, 'a.txt has unsaved changes in Test IDE; save or undo them first'],
    [{ readOnly: true }, 'a.txt is read-only in Test IDE; nothing was written'],
    [{ changedOnDisk: true }, 'a.txt changed on disk since Test IDE read it; revert its buffer first'],
  ] as const) {
    editor.buffers.set(file, state);
    const refused = (await amp.request('editFile', { path: file, fullContent: 'two\n' })).editFile;
    assert.deepEqual(refused, { success: false, message: `editFile refused ${file}: ${words}`, appliedChanges: false });
    assert.equal(fs.readFileSync(file, 'utf8'), 'one\n', 'the file is left');
  }
  editor.buffers.set(file, {});
  fs.chmodSync(file, 0o444);
  const readOnly = (await amp.request('editFile', { path: file, fullContent: 'two\n' })).editFile;
  assert.deepEqual(readOnly, { success: false, message: `editFile refused ${file}: a.txt is read-only; nothing was written`, appliedChanges: false });
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\n');
  assert.equal(editor.reloads.length, 0, 'nothing reread');

  const outside = path.join(h.tmp, 'outside.txt');
  fs.writeFileSync(outside, 'keep\n');
  const asked = editor.asked.length;
  assert.equal((await amp.request('editFile', { path: outside, fullContent: 'x\n' })).editFile.success, false);
  assert.equal(editor.asked.length, asked, 'the editor was not asked for a path outside the roots');
  assert.equal(fs.readFileSync(outside, 'utf8'), 'keep\n');
});

test('editFile in `buffer` mode: an in-process end writes its own document after the same checks; an end that cannot, reviews', async (t) => {
  const written: Array<ActionParams<'writeBuffer'>> = [];
  const editor = new (class extends BufferEditor {
    override reload = undefined as never;
    writeBuffer(params: ActionParams<'writeBuffer'>): void {
      written.push(params);
      fs.writeFileSync(params.path, params.content);
    }
  })();
  const h = await withAmp(t, { editor, faceSettings: { amp: { editFile: 'buffer' } } });
  const amp = await connect(t, h);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\n');
  editor.buffers.set(file, { isDirty: true });
  assert.match((await amp.request('editFile', { path: file, fullContent: 'two\n' })).editFile.message, /unsaved changes in Test IDE/);
  assert.deepEqual(written, [], 'not asked past the check');
  editor.buffers.set(file, {});
  assert.equal((await amp.request('editFile', { path: file, fullContent: 'two\n' })).editFile.success, true);
  assert.deepEqual(written, [{ path: file, content: 'two\n' }]);

  // An editor that cannot tell a dirty buffer: the same setting reviews.
  const plain = await withAmp(t, { faceSettings: { amp: { editFile: 'buffer' } } });
  const amp2 = await connect(t, plain);
  const other = path.join(plain.workspace, 'b.txt');
  fs.writeFileSync(other, 'one\n');
  const reviewed = amp2.request('editFile', { path: other, fullContent: 'two\n' });
  const shown = await waitFor(() => plain.view.shown[0], 'reviewed where the editor cannot write under its buffer');
  plain.companion.diffs.accept(shown.id);
  assert.equal((await reviewed).editFile.success, true);
  assert.equal(fs.readFileSync(other, 'utf8'), 'two\n');
});

test('IDE_COMPANION_AMP_EDIT chooses the mode when no option does; an unknown value reviews', async (t) => {
  const saved = process.env['IDE_COMPANION_AMP_EDIT'];
  t.after(() => (saved === undefined ? delete process.env['IDE_COMPANION_AMP_EDIT'] : (process.env['IDE_COMPANION_AMP_EDIT'] = saved)));
  for (const [value, buffered] of [
    ['buffer', true],
    ['Buffer ', true],
    ['review', false],
    ['diff', false],
  ] as const) {
    process.env['IDE_COMPANION_AMP_EDIT'] = value;
    const editor = new BufferEditor();
    const h = await withAmp(t, { editor });
    const amp = await connect(t, h);
    const file = path.join(h.workspace, 'a.txt');
    fs.writeFileSync(file, 'one\n');
    const answer = amp.request('editFile', { path: file, fullContent: 'two\n' });
    if (!buffered) h.companion.diffs.accept((await waitFor(() => editor.shown[0], `reviewed with ${value}`)).id);
    assert.equal((await answer).editFile.success, true, value);
    assert.deepEqual(editor.asked, buffered ? [file] : [], value);
    assert.equal(fs.readFileSync(file, 'utf8'), 'two\n', value);
    assert.equal(editor.shown.length, buffered ? 0 : 1, value);
  }
});

test('hostile paths and params on every request: each answered (refused), nothing outside the roots read or changed, the face alive', async (t) => {
  const h = await withAmp(t, { maxBodyBytes: 256 * 1024 });
  const amp = await connect(t, h);
  const outside = path.join(h.tmp, 'outside.txt');
  fs.writeFileSync(outside, 'secret\n');
  fs.symlinkSync(outside, path.join(h.workspace, 'link.txt'));
  const fifo = path.join(h.workspace, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const paths = [
    outside,
    path.join(h.workspace, '..', 'outside.txt'),
    path.join(h.workspace, 'link.txt'),
    fifo,
    '/dev/zero',
    '/',
    h.workspace,
    '',
    'relative.txt',
    path.join(h.workspace, 'a\u0000b'),
    path.join(h.workspace, 'lone\ud800.txt'),
    path.join(h.workspace, 'x'.repeat(5000)),
    `file://${outside}`,
    `file://${h.workspace}/%2e%2e/outside.txt`,
    'file://remote.example/etc/passwd',
  ];
  const paramsOf = (p: string) =>
    [
      ['readFile', { path: p }],
      ['editFile', { path: p, fullContent: 'pwned\n' }],
      ['getDiagnostics', { path: p }],
      ['openURI', { uri: p }],
    ] as const;
  for (const p of paths) {
    for (const [method, params] of paramsOf(p)) {
      const answer = await amp.request(method, params);
      const result = answer[method];
      assert.ok(answer.error !== undefined || result !== undefined, `${method} ${JSON.stringify(p)} answered`);
      if (method === 'readFile' && result) assert.ok(result.success === false || !result.content?.includes('secret'), `${method} ${JSON.stringify(p)}`);
      if (method === 'editFile' && result) assert.equal(result.success, false, `${method} ${JSON.stringify(p)}`);
    }
  }
  for (const params of [null, 7, 'x', [], { path: ['a'] }, { __proto__: { path: outside } }, { path: outside, fullContent: 7 }]) {
    for (const method of ['readFile', 'editFile', 'getDiagnostics', 'openURI']) {
      const answer = await amp.request(method, params);
      assert.ok(
        answer.error !== undefined || answer[method]?.success === false || Array.isArray(answer[method]?.entries),
        `${method} ${JSON.stringify(params)}`,
      );
    }
  }
  assert.equal(fs.readFileSync(outside, 'utf8'), 'secret\n', 'nothing outside changed');
  assert.equal(h.view.shown.length, 0, 'no diff shown for any of them');
  assert.deepEqual((await amp.request('ping', { message: 'alive' })).ping, { message: 'alive' });
});

test('getDiagnostics (a file, or a folder by prefix) through the editor; openURI opens file:// inside the roots and refuses the rest', async (t) => {
  const asked: Array<ActionParams<'getDiagnostics'>> = [];
  const opened: Array<ActionParams<'openFile'>> = [];
  const editor = new (class extends RecordingEditor {
    getDiagnostics(params: ActionParams<'getDiagnostics'>): ActionResult<'getDiagnostics'> {
      asked.push(params);
      const file = path.join(h.workspace, 'a.ts');
      return {
        diagnostics: [
          { path: file, range: { start: { line: 2, character: 5 }, end: { line: 2, character: 8 } }, severity: 'information', message: 'maybe' },
          {
            path: path.join(h.tmp, 'elsewhere.ts'),
            range: { start: { line: 1, character: 1 }, end: { line: 1, character: 2 } },
            severity: 'error',
            message: 'x',
          },
        ],
      };
    }
    openFile(params: ActionParams<'openFile'>): void {
      opened.push(params);
    }
  })();
  const h: Harness = await withAmp(t, { editor });
  const amp = await connect(t, h);
  const file = path.join(h.workspace, 'a.ts');
  fs.writeFileSync(file, 'line one\nconst bad = 1;\n');

  const one = (await amp.request('getDiagnostics', { path: file })).getDiagnostics;
  assert.deepEqual(asked.at(-1), { path: file });
  assert.deepEqual(one.entries, [
    {
      uri: `file://${file}`,
      diagnostics: [
        {
          range: { startLine: 1, startCharacter: 4, endLine: 1, endCharacter: 7 },
          severity: 'info',
          description: 'maybe',
          lineContent: 'const bad = 1;',
          startOffset: 4,
          endOffset: 7,
        },
      ],
    },
  ]);
  const folder = (await amp.request('getDiagnostics', { path: h.workspace })).getDiagnostics;
  assert.deepEqual(asked.at(-1), {}, 'a folder asks for the workspace');
  assert.deepEqual(
    folder.entries.map((e: { uri: string }) => e.uri),
    [`file://${file}`],
    'only what lies under the folder',
  );

  assert.deepEqual((await amp.request('openURI', { uri: `file://${file}` })).openURI, { success: true, message: `Opened file://${file}` });
  assert.equal(opened.at(-1)?.path, file);
  for (const uri of ['https://example.com/', `file://${h.tmp}/elsewhere.ts`, 'javascript:alert(1)', `file://${h.workspace}/a%0A.ts`]) {
    const answer = (await amp.request('openURI', { uri })).openURI;
    assert.equal(answer.success, false, uri);
  }
  assert.equal(opened.length, 1, 'the editor opened nothing else');
});

test('getDiagnostics gives no line of a file outside the roots (asked by path, through a link, or named by the editor): its diagnostics, lineContent empty', async (t) => {
  let named: string[] = [];
  const editor = new (class extends RecordingEditor {
    getDiagnostics(): ActionResult<'getDiagnostics'> {
      return {
        diagnostics: named.map((file) => ({
          path: file,
          range: { start: { line: 1, character: 1 }, end: { line: 1, character: 4 } },
          severity: 'error' as const,
          message: 'm',
        })),
      };
    }
  })();
  const h: Harness = await withAmp(t, { editor });
  const amp = await connect(t, h);
  const outside = path.join(h.tmp, 'secret.txt');
  fs.writeFileSync(outside, 'the secret line\n');
  const link = path.join(h.workspace, 'link.txt');
  fs.symlinkSync(outside, link);
  const inside = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(inside, 'shown line\n');
  for (const file of [outside, link, '/etc/passwd']) {
    named = [file];
    const entries = (await amp.call('getDiagnostics', { path: file })).entries as Array<{ uri: string; diagnostics: Array<{ lineContent: string }> }>;
    assert.equal(entries.length, 1, file);
    assert.deepEqual(
      entries[0]!.diagnostics.map((d) => d.lineContent),
      [''],
      `${file}: no line of it`,
    );
  }
  // The folder asked for holds the link: the editor names it, its line stays unread.
  named = [link, inside];
  const folder = (await amp.call('getDiagnostics', { path: h.workspace })).entries as Array<{ uri: string; diagnostics: Array<{ lineContent: string }> }>;
  assert.deepEqual(
    folder.map((e) => [e.uri, e.diagnostics[0]!.lineContent]),
    [
      [`file://${link}`, ''],
      [`file://${inside}`, 'shown line'],
    ],
  );
  assert.deepEqual(amp.dropped, []);
});

test('selectionDidChange and visibleFilesDidChange on connect and as the user moves; appendToPrompt on "send to agent"', async (t) => {
  const h = await withAmp(t);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\ntwo\n');
  h.companion.context.focus(file, { cursor: { line: 1, character: 1 } });
  const amp = await connect(t, h);
  const onConnect = await waitFor(() => amp.notifications.find((n) => n.name === 'selectionDidChange'), 'selectionDidChange on connect');
  assert.deepEqual(onConnect.params, {
    uri: `file://${file}`,
    selections: [{ range: { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 0 }, content: '' }],
  });
  const visible = await waitFor(() => amp.notifications.find((n) => n.name === 'visibleFilesDidChange'), 'visibleFilesDidChange on connect');
  assert.deepEqual(visible.params, { uris: [`file://${file}`] });

  h.companion.context.setCursor(file, { line: 2, character: 3 }, 'two');
  const moved = await waitFor(() => amp.notifications.find((n) => n.name === 'selectionDidChange' && n.params.selections[0].content === 'two'), 'moved');
  assert.deepEqual(moved.params.selections[0].range, { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 2 });
  assert.equal(amp.notifications.filter((n) => n.name === 'visibleFilesDidChange').length, 1, 'the same files are not told twice');

  assert.equal(h.companion.mention(file, 1, 2), 1);
  const appended = await waitFor(() => amp.notifications.find((n) => n.name === 'appendToPrompt'), 'appendToPrompt');
  assert.deepEqual(appended.params, { message: '@a.txt#L1-2' });
  h.companion.mention(file);
  await waitFor(() => amp.notifications.some((n) => n.name === 'appendToPrompt' && n.params.message === '@a.txt'), 'a whole file');

  // What the CLI made of it all: every frame parsed by its schemas, its status the active file and selection.
  assert.deepEqual(amp.dropped, []);
  assert.deepEqual(amp.status, {
    pluginVersion: COMPANION_VERSION,
    pluginDirectory: undefined,
    openFile: `file://${file}`,
    selections: [{ range: { startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 2 }, content: 'two' }],
    visibleFiles: [`file://${file}`],
  });
});

test('as the CLI uses the face: its liveness ping, pluginMetadata on connect, getDiagnostics and openURI through its sendRequest', async (t) => {
  const editor = new (class extends RecordingEditor {
    getDiagnostics(): ActionResult<'getDiagnostics'> {
      return { diagnostics: [{ path: file, range: { start: { line: 1, character: 1 }, end: { line: 1, character: 4 } }, severity: 'warning', message: 'w' }] };
    }
    openFile(): void {}
  })();
  const h: Harness = await withAmp(t, { editor });
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\n');
  const amp = await connect(t, h);
  assert.equal(await amp.isConnected(), true);
  await waitFor(() => amp.status.pluginVersion === COMPANION_VERSION, 'pluginMetadata with the companion version');
  assert.deepEqual(amp.notifications.find((n) => n.name === 'pluginMetadata')?.params, { version: COMPANION_VERSION });
  assert.deepEqual(await amp.call('getDiagnostics', { path: file }), {
    entries: [
      {
        uri: `file://${file}`,
        diagnostics: [
          {
            range: { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 3 },
            severity: 'warning',
            description: 'w',
            lineContent: 'one',
            startOffset: 0,
            endOffset: 3,
          },
        ],
      },
    ],
  });
  const opened = await amp.call('openURI', { uri: `file://${file}` });
  assert.equal(opened.success, true);
  await assert.rejects(amp.call('openURI', { uri: '' }), /"code":-32602/);
  assert.deepEqual(amp.dropped, []);
});

test('Amp is served when the user has it or names it; its folder; dead lock files swept; references', (t) => {
  assert.deepEqual(parseAgents('amp'), ['gemini', 'amp']);
  assert.equal(ampIdeDir({ AMP_DATA_HOME: '/x/d' }), path.join('/x/d', 'amp', 'ide'));
  // The CLI reads XDG_DATA_HOME on every platform.
  assert.equal(ampIdeDir({ XDG_DATA_HOME: '/x/xdg' }), path.join('/x/xdg', 'amp', 'ide'));
  assert.match(ampIdeDir({}), /[\\/]\.local[\\/]share[\\/]amp[\\/]ide$/);
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env['TMPDIR'] ?? '/tmp'), 'ide-companion-amp-sweep-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, '1111.json'), JSON.stringify({ pid: 999_999_999 }));
  fs.writeFileSync(path.join(dir, '2222.json'), JSON.stringify({ pid: process.pid }));
  fs.writeFileSync(path.join(dir, '3333.lock'), JSON.stringify({ pid: 999_999_999 }));
  assert.deepEqual(sweepStaleAmpLockFiles(dir), ['1111.json']);
  assert.equal(ampReference('/w/src/a.ts', ['/w'], 3), '@src/a.ts#L3');
  assert.equal(ampReference('/elsewhere/a.ts', ['/w'], 3, 5), '@/elsewhere/a.ts#L3-5');
});

test('Claude Code’s WebSocket on the same port is untouched by Amp’s', async (t) => {
  const h = await withAmp(t);
  const port = h.companion.port;
  // Claude Code's upgrade (no ?auth=) still reaches Claude's face and its checks.
  assert.equal(await upgradeStatus(port, ''), 401);
  const amp = await connect(t, h);
  assert.deepEqual(await amp.request('ping', {}), { id: '1', ping: {} });
});

test('one port, each WebSocket face takes its own upgrades (faces/sessionFace.ts): Amp alone 404s a plain one, Claude Code alone takes a marked one to its own checks', async (t) => {
  const ampAlone = await withAmp(t, { agents: ['gemini', 'amp'] });
  assert.equal(await upgradeStatus(ampAlone.companion.port, ''), 404, 'a plain upgrade with no face that takes plain ones');
  assert.equal(await upgradeStatus(ampAlone.companion.port, '?auth=wrong'), 401, "Amp's own checks refuse a wrong token");
  const claudeAlone = await withAmp(t, { agents: ['gemini', 'claude'] });
  assert.equal(await upgradeStatus(claudeAlone.companion.port, '?auth=wrong'), 401, "Claude Code's checks refuse it (no header token)");
  assert.equal(await upgradeStatus(claudeAlone.companion.port, ''), 401);
});
