/**
 * Interop with the real client: `IdeClient` from the pinned
 * @google/gemini-cli-core (the code inside `gemini`) connects to our Companion.
 * IdeClient is a singleton that reads cwd, os.tmpdir() and env on first use,
 * so each scenario runs it in its own child process (testkit's RealIdeClient)
 * and talks to it over JSON lines.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { discoveryFileName } from '@ide-companion/protocol';
import { findGeminiCli, ideTerminalEnv, makeTempDir, RealIdeClient, skipUnless, waitFor } from '@ide-companion/testkit';
import { RecordingEditor, startCompanion, type Harness } from './helpers.js';

const cli = findGeminiCli();
const skip = skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');
/** Generous: the machine is shared and slow; nothing here measures speed. */
const TIMEOUT_MS = 60_000;

/** One real IdeClient in a child process, in `cwd` as if run in the companion's IDE terminal. */
function startIdeClient(options: { cwd: string; tmpdir: string; idePid: number }): Promise<RealIdeClient> {
  return RealIdeClient.start(cli!, { cwd: options.cwd, env: ideTerminalEnv(options), timeoutMs: TIMEOUT_MS });
}

/** A companion with a recording diff view and a connected real client in its workspace. */
async function connectedPair(): Promise<{ h: Harness; view: RecordingEditor; client: RealIdeClient; done: () => Promise<void> }> {
  const view = new RecordingEditor();
  const h = await startCompanion({ editor: view, ideInfo: { name: 'interop-ide', displayName: 'Interop Test IDE' } });
  const client = await startIdeClient({ cwd: h.workspace, tmpdir: h.tmp, idePid: h.companion.idePid });
  const status = await client.connect();
  assert.equal(status['status'], 'connected', `connect failed: ${String(status['details'])}`);
  return {
    h,
    view,
    client,
    done: async () => {
      await client.stop();
      await h.cleanup();
    },
  };
}

function writeWorkspaceFile(h: Harness, name: string, text: string): string {
  const file = path.join(h.workspace, name);
  fs.writeFileSync(file, text);
  return file;
}

test('the real CLI client connects by the discovery file, names our IDE and enables diffing', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  const { h, client, done } = await connectedPair();
  try {
    const status = client.events.findLast((e) => e.event === 'status')!;
    assert.equal(status['ide'], 'Interop Test IDE');
    assert.equal(status['diffing'], true, 'tools/list must name openDiff and closeDiff');
    assert.equal(h.companion.sessionList.length, 1);
  } finally {
    await done();
  }
});

test('context set before the CLI connects reaches its store once the stream opens', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  const view = new RecordingEditor();
  const h = await startCompanion({ editor: view });
  const file = writeWorkspaceFile(h, 'before.ts', 'const a = 1;\n');
  h.companion.context.focus(file, { cursor: { line: 1, character: 7 }, selectedText: 'a = 1' });
  const client = await startIdeClient({ cwd: h.workspace, tmpdir: h.tmp, idePid: h.companion.idePid });
  try {
    assert.equal((await client.connect())['status'], 'connected');
    await client.waitFor(
      (e) => e.event === 'context' && e['source'] === 'push' && e['context']?.workspaceState?.openFiles?.length > 0,
      'the first context push',
    );
    client.send({ cmd: 'getContext' });
    const got = await client.waitFor((e) => e.event === 'context' && e['source'] === 'get', 'ideContextStore.get()');
    const [active] = got['context'].workspaceState.openFiles;
    assert.equal(active.path, file);
    assert.equal(active.isActive, true);
    assert.deepEqual(active.cursor, { line: 1, character: 7 });
    assert.equal(active.selectedText, 'a = 1');
    assert.equal(typeof active.timestamp, 'number');
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('context changed after the CLI connected is pushed into its store, newest file active', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  const { h, client, done } = await connectedPair();
  try {
    const first = writeWorkspaceFile(h, 'first.ts', 'one\n');
    const second = writeWorkspaceFile(h, 'second.ts', 'two\nlines\n');
    h.companion.context.focus(first);
    h.companion.context.focus(second, { cursor: { line: 2, character: 3 } });
    const pushed = await client.waitFor(
      (e) => e.event === 'context' && e['source'] === 'push' && e['context']?.workspaceState?.openFiles?.[0]?.path === second,
      'a push naming second.ts first',
    );
    const files = pushed['context'].workspaceState.openFiles;
    assert.deepEqual(
      files.map((f: { path: string }) => f.path),
      [second, first],
    );
    assert.equal(files[0].isActive, true);
    assert.deepEqual(files[0].cursor, { line: 2, character: 3 });
    assert.notEqual(files[1].isActive, true);
  } finally {
    await done();
  }
});

test("a diff accepted in the editor with the user's edits gives the CLI the edited text", { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  const { h, view, client, done } = await connectedPair();
  try {
    const file = writeWorkspaceFile(h, 'accept.txt', 'old\n');
    client.send({ cmd: 'openDiff', filePath: file, newContent: 'model text\n' });
    const diff = await waitFor(() => view.shown.find((d) => d.filePath === file), 'the diff view to show', TIMEOUT_MS);
    assert.equal(diff.newContent, 'model text\n');
    assert.ok(h.companion.diffs.accept(diff.id, 'model text\nplus a user line\n'));
    const outcome = await client.diffResult(file);
    assert.deepEqual(outcome['result'], { status: 'accepted', content: 'model text\nplus a user line\n' });
    // The CLI writes the file itself, not the companion.
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n');
  } finally {
    await done();
  }
});

test('a diff rejected in the editor settles the CLI as rejected', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  const { h, view, client, done } = await connectedPair();
  try {
    const file = writeWorkspaceFile(h, 'reject.txt', 'keep me\n');
    client.send({ cmd: 'openDiff', filePath: file, newContent: 'unwanted\n' });
    const diff = await waitFor(() => view.shown.find((d) => d.filePath === file), 'the diff view to show', TIMEOUT_MS);
    assert.ok(h.companion.diffs.reject(diff.id));
    const outcome = await client.diffResult(file);
    assert.equal(outcome['result'].status, 'rejected');
    assert.equal(outcome['result'].content, undefined);
  } finally {
    await done();
  }
});

test('accepting in the terminal (closeDiff) gives the CLI the text as edited in the diff view', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  // The CLI parses closeDiff's text as JSON {"content": ...}; raw text would make it
  // fall back to the model's proposal and lose the user's edits.
  const { h, view, client, done } = await connectedPair();
  try {
    const file = writeWorkspaceFile(h, 'terminal.txt', 'old\n');
    client.send({ cmd: 'openDiff', filePath: file, newContent: 'proposal\n' });
    const diff = await waitFor(() => view.shown.find((d) => d.filePath === file), 'the diff view to show', TIMEOUT_MS);
    view.edits.set(diff.id, 'proposal\nedited in the view\n');
    client.send({ cmd: 'resolveDiffFromCli', filePath: file, outcome: 'accepted' });
    const outcome = await client.diffResult(file);
    assert.deepEqual(outcome['result'], { status: 'accepted', content: 'proposal\nedited in the view\n' });
    await waitFor(() => view.closed.find((c) => c.diff.id === diff.id), 'the view to close', TIMEOUT_MS);
    assert.equal(view.closed.find((c) => c.diff.id === diff.id)!.reason, 'closedByCli');
    assert.deepEqual(h.companion.diffs.list(), []);
  } finally {
    await done();
  }
});

test('rejecting in the terminal (closeDiff) closes the view and the CLI keeps the file', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  const { h, view, client, done } = await connectedPair();
  try {
    const file = writeWorkspaceFile(h, 'terminal-no.txt', 'old\n');
    client.send({ cmd: 'openDiff', filePath: file, newContent: 'proposal\n' });
    const diff = await waitFor(() => view.shown.find((d) => d.filePath === file), 'the diff view to show', TIMEOUT_MS);
    client.send({ cmd: 'resolveDiffFromCli', filePath: file, outcome: 'rejected' });
    const outcome = await client.diffResult(file);
    assert.equal(outcome['result'].status, 'rejected');
    await waitFor(() => view.closed.find((c) => c.diff.id === diff.id), 'the view to close', TIMEOUT_MS);
    // suppressNotification: a late user click finds nothing pending and sends nothing.
    assert.equal(h.companion.diffs.accept(diff.id, 'too late\n'), false);
  } finally {
    await done();
  }
});

test('a discovery file with the wrong token leaves the CLI disconnected, and the companion unharmed', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  const refusals: Array<Record<string, unknown>> = [];
  const logger = {
    debug() {},
    info() {},
    warn(message: string, fields?: Record<string, unknown>) {
      if (message === 'request refused') refusals.push(fields ?? {});
    },
    error() {},
  };
  const h = await startCompanion({ editor: new RecordingEditor(), logger });
  // The same companion, advertised with a token that is not its own, in a tmpdir of its own.
  const forged = makeTempDir();
  try {
    const dir = path.join(forged.path, 'gemini', 'ide');
    fs.mkdirSync(dir, { recursive: true });
    const real = JSON.parse(fs.readFileSync(h.companion.discoveryFilePath!, 'utf8'));
    fs.writeFileSync(path.join(dir, discoveryFileName(h.companion.idePid, h.companion.port)), JSON.stringify({ ...real, authToken: 'not-the-token' }), {
      mode: 0o600,
    });
    const client = await startIdeClient({ cwd: h.workspace, tmpdir: forged.path, idePid: h.companion.idePid });
    try {
      const status = await client.connect();
      assert.equal(status['status'], 'disconnected');
      // Naming our IDE shows the client read the forged file; the 401 shows it reached us.
      assert.match(String(status['details']), /Failed to connect to IDE companion extension in Test IDE/);
      assert.deepEqual(
        refusals.map((r) => r['status']),
        [401],
      );
      assert.equal(h.companion.sessionList.length, 0);
    } finally {
      await client.stop();
    }
    // The companion still serves a client holding the right token.
    const good = await startIdeClient({ cwd: h.workspace, tmpdir: h.tmp, idePid: h.companion.idePid });
    try {
      assert.equal((await good.connect())['status'], 'connected');
    } finally {
      await good.stop();
    }
  } finally {
    forged.cleanup();
    await h.cleanup();
  }
});

test('two CLI sessions on one companion each get the outcome of their own diff', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  // With one McpServer shared by all sessions, replies went through the most
  // recently connected session and the first CLI's openDiff hung (seen in the
  // official VS Code companion); the companion keeps one McpServer per session.
  const { h, view, client: first, done } = await connectedPair();
  const second = await startIdeClient({ cwd: h.workspace, tmpdir: h.tmp, idePid: h.companion.idePid });
  try {
    assert.equal((await second.connect())['status'], 'connected');
    assert.equal(h.companion.sessionList.length, 2);
    const a = writeWorkspaceFile(h, 'first.txt', 'a\n');
    const b = writeWorkspaceFile(h, 'second.txt', 'b\n');
    first.send({ cmd: 'openDiff', filePath: a, newContent: 'from the first CLI\n' });
    second.send({ cmd: 'openDiff', filePath: b, newContent: 'from the second CLI\n' });
    const diffA = await waitFor(() => view.shown.find((d) => d.filePath === a), 'the first diff', TIMEOUT_MS);
    const diffB = await waitFor(() => view.shown.find((d) => d.filePath === b), 'the second diff', TIMEOUT_MS);
    assert.notEqual(diffA.sessionId, diffB.sessionId);
    assert.ok(h.companion.diffs.accept(diffA.id, 'first, edited\n'));
    assert.ok(h.companion.diffs.reject(diffB.id));
    assert.deepEqual((await first.diffResult(a))['result'], { status: 'accepted', content: 'first, edited\n' });
    assert.equal((await second.diffResult(b))['result'].status, 'rejected');
    // Neither heard the other's outcome.
    assert.equal(
      first.events.some((e) => e.event === 'diffResult' && e['filePath'] === b),
      false,
    );
    assert.equal(
      second.events.some((e) => e.event === 'diffResult' && e['filePath'] === a),
      false,
    );
  } finally {
    await second.stop();
    await done();
  }
});

test('an 11 MiB proposal round-trips to the real client (no 10 MB body cap)', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  // A 10 MB request-body cap (seen in the official companion) answers an 11 MiB
  // openDiff with 413 and the CLI gets an unhandled error.
  const { h, view, client, done } = await connectedPair();
  try {
    const file = writeWorkspaceFile(h, 'big.txt', 'small\n');
    const line = 'x'.repeat(1023) + '\n';
    const big = line.repeat(11 * 1024);
    client.send({ cmd: 'openDiff', filePath: file, newContent: big });
    const diff = await waitFor(() => view.shown.find((d) => d.filePath === file), 'the big diff to show', TIMEOUT_MS);
    assert.equal(diff.newContent.length, big.length);
    assert.ok(h.companion.diffs.accept(diff.id, big + 'one more line\n'));
    const outcome = await client.diffResult(file);
    assert.equal(outcome['result'].status, 'accepted');
    assert.equal(outcome['result'].content, big + 'one more line\n');
  } finally {
    await done();
  }
});

test('when the companion stops, the real client goes Disconnected and clears its context', { skip, timeout: 3 * TIMEOUT_MS }, async () => {
  const { h, client, done } = await connectedPair();
  try {
    const file = writeWorkspaceFile(h, 'ctx.ts', 'x\n');
    h.companion.context.focus(file);
    await client.waitFor((e) => e.event === 'context' && e['context']?.workspaceState?.openFiles?.[0]?.path === file, 'context before the stop');
    const seen = client.events.length;
    await h.companion.stop();
    await client.waitFor(
      (e) => client.events.indexOf(e) >= seen && e.event === 'status' && e['status'] === 'disconnected',
      'the client to see the companion go',
    );
    client.send({ cmd: 'getContext' });
    const got = await client.waitFor((e) => client.events.indexOf(e) >= seen && e.event === 'context' && e['source'] === 'get', 'ideContextStore.get()');
    assert.equal(got['context'], null);
  } finally {
    await done();
  }
});
