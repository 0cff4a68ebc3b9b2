/**
 * GitHub Copilot CLI's face (issue 31) at the wire, as its shipped code
 * (1.0.102's cli-main.js) behaves: the lock file it reads, MCP Streamable
 * HTTP at http://localhost/mcp over the companion's Unix socket with the
 * lock file's headers, its four tools on the same diff coordinator, and its
 * notifications.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectCopilotClient, waitFor } from '@ide-companion/testkit';
import type { ActionParams, ActionResult } from '@ide-companion/protocol';
import { copilotIdeDir, parseAgents } from '@ide-companion/shared/agentPaths';
import { sweepStaleCopilotLockFiles } from '../src/faces/copilot.js';
import { RecordingEditor, rawRequest, startCompanion, type Harness } from './helpers.js';

async function withCopilot(t: import('node:test').TestContext): Promise<Harness> {
  const h = await startCompanion({ agents: ['gemini', 'copilot'] });
  t.after(() => h.cleanup());
  return h;
}

function lockOf(h: Harness): { socketPath: string; headers: Record<string, string>; [key: string]: unknown } {
  return JSON.parse(fs.readFileSync(h.companion.lockFilePath('copilot')!, 'utf8'));
}

test("the lock file Copilot CLI reads: private, the companion's socket and a header of its own; gone on stop", async (t) => {
  const h = await withCopilot(t);
  const file = h.companion.lockFilePath('copilot')!;
  assert.equal(path.dirname(file), path.join(h.tmp, 'copilot', 'ide'));
  assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
  assert.equal((fs.statSync(path.dirname(file)).mode & 0o777).toString(8), '700');
  const lock = lockOf(h);
  assert.deepEqual(Object.keys(lock).sort(), ['headers', 'ideName', 'pid', 'scheme', 'socketPath', 'timestamp', 'workspaceFolders']);
  assert.equal(lock['pid'], h.companion.idePid);
  assert.deepEqual(lock['workspaceFolders'], [h.workspace]);
  assert.ok(Math.abs(Date.now() - (lock['timestamp'] as number)) < 60_000);
  assert.equal((fs.statSync(lock.socketPath).mode & 0o777).toString(8), '600');
  assert.match(lock.headers['Authorization']!, /^Bearer [0-9a-f]{64}$/);
  assert.ok(!lock.headers['Authorization']!.includes(h.companion.authToken), 'a token of its own');
  assert.deepEqual(h.companion.agents, ['gemini', 'copilot']);
  await h.companion.stop();
  assert.equal(fs.existsSync(file), false);
  assert.equal(fs.existsSync(lock.socketPath), false);
});

test('requests without the header, with another face’s token, or with a foreign Host are refused', async (t) => {
  const h = await withCopilot(t);
  const lock = lockOf(h);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  });
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Host: 'localhost' };
  assert.equal((await rawRequest({ socketPath: lock.socketPath }, { headers, body })).status, 401);
  assert.equal(
    (await rawRequest({ socketPath: lock.socketPath }, { headers: { ...headers, Authorization: `Bearer ${h.companion.authToken}` }, body })).status,
    401,
  );
  assert.equal((await rawRequest({ socketPath: lock.socketPath }, { headers: { ...headers, ...lock.headers, Host: 'evil.example' }, body })).status, 403);
  assert.equal(h.companion.sessionList.length, 0);
});

test("Copilot's tools over the same core: selection_changed on connect and as it moves; open_diff blocks until the user decides (SAVED, REJECTED); close_diff by tab name", async (t) => {
  const h = await withCopilot(t);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\ntwo\n');
  h.companion.context.focus(file, { cursor: { line: 1, character: 1 } });
  const copilot = await connectCopilotClient(lockOf(h));
  t.after(() => copilot.close());
  await waitFor(() => h.companion.sessionList.some((s) => s.agent === 'copilot'), 'the session listed as Copilot CLI');
  const { tools } = await copilot.client.listTools();
  assert.deepEqual(tools.map((x) => x.name).sort(), ['close_diff', 'get_selection', 'open_diff', 'update_session_name']);
  // What was selected before the CLI connected (no Copilot session then) comes as its stream opens.
  const onConnect = await waitFor(() => copilot.notifications.find((n) => n.method === 'selection_changed'), 'selection_changed on connect');
  assert.equal(onConnect.params.filePath, file);
  assert.deepEqual(onConnect.params.selection.start, { line: 0, character: 0 });

  h.companion.context.setCursor(file, { line: 2, character: 3 }, 'two');
  const moved = await waitFor(() => copilot.notifications.find((n) => n.method === 'selection_changed' && n.params.text === 'two'), 'selection_changed');
  assert.equal(moved.params.filePath, file);
  assert.deepEqual(moved.params.selection.start, { line: 1, character: 0 });
  const selection = JSON.parse(((await copilot.client.callTool({ name: 'get_selection', arguments: {} })) as any).content[0].text);
  assert.equal(selection.text, 'two');

  const open = (tab: string, contents: string) =>
    copilot.client.callTool({ name: 'open_diff', arguments: { original_file_path: file, new_file_contents: contents, tab_name: tab } }) as Promise<any>;
  const accepted = open('[Copilot CLI] - a.txt (1)', 'from the model\n');
  const shown = await waitFor(() => h.view.shown[0], 'the diff shown');
  assert.equal(shown.agent, 'GitHub Copilot CLI');
  h.companion.diffs.accept(shown.id, 'from the model\n');
  assert.deepEqual(JSON.parse((await accepted).content[0].text), {
    success: true,
    result: 'SAVED',
    trigger: 'accepted_in_ide',
    message: `The user accepted the changes to ${file}`,
  });

  const rejected = open('[Copilot CLI] - a.txt (2)', 'no\n');
  const second = await waitFor(() => h.view.shown[1], 'the second diff');
  h.companion.diffs.reject(second.id);
  assert.equal(JSON.parse((await rejected).content[0].text).result, 'REJECTED');
  assert.equal(fs.readFileSync(file, 'utf8'), 'one\ntwo\n', 'the companion never writes');

  const closed = open('[Copilot CLI] - a.txt (3)', 'closed\n');
  await waitFor(() => h.view.shown.length === 3, 'the third diff');
  const answer = JSON.parse(
    ((await copilot.client.callTool({ name: 'close_diff', arguments: { tab_name: '[Copilot CLI] - a.txt (3)' } })) as any).content[0].text,
  );
  assert.deepEqual(answer, { success: true, already_closed: false, tab_name: '[Copilot CLI] - a.txt (3)', message: 'Closed [Copilot CLI] - a.txt (3)' });
  assert.equal(JSON.parse((await closed).content[0].text).result, 'REJECTED');
  assert.equal(h.companion.diffs.list().length, 0);
  const again = JSON.parse(
    ((await copilot.client.callTool({ name: 'close_diff', arguments: { tab_name: '[Copilot CLI] - a.txt (3)' } })) as any).content[0].text,
  );
  assert.equal(again.already_closed, true);

  // "Send to agent": lines as add_selection, a whole file as add_file_reference.
  assert.equal(h.companion.mention(file, 1, 2), 1);
  const added = await waitFor(() => copilot.notifications.find((n) => n.method === 'add_selection'), 'add_selection');
  assert.deepEqual(added.params, {
    filePath: file,
    fileUrl: `file://${file}`,
    selection: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } },
    selectedText: null,
  });
  h.companion.mention(file);
  await waitFor(() => copilot.notifications.find((n) => n.method === 'add_file_reference'), 'add_file_reference');
});

test("Copilot CLI's reconnect (1.0.102 reloads its MCP host and connects again: the old session ended with DELETE, a new one made) hears the selection again as the new stream opens, though the old session heard it already: the new connection starts with none", async (t) => {
  const h = await withCopilot(t);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\ntwo\n');
  h.companion.context.focus(file, { cursor: { line: 1, character: 1 } });
  const first = await connectCopilotClient(lockOf(h));
  t.after(() => first.close());
  h.companion.context.setCursor(file, { line: 2, character: 3 }, 'two');
  await waitFor(() => first.notifications.find((n) => n.method === 'selection_changed' && n.params.text === 'two'), 'the selection on the first connection');
  // As its disconnectFromIdeInternal does: terminateSession (DELETE), then close.
  await (first.client.transport as StreamableHTTPClientTransport).terminateSession();
  await first.close();
  await waitFor(() => !h.companion.sessionList.some((s) => s.agent === 'copilot'), 'the first session gone');

  const second = await connectCopilotClient(lockOf(h));
  t.after(() => second.close());
  const heard = await waitFor(() => second.notifications.find((n) => n.method === 'selection_changed'), 'selection_changed on the new stream');
  assert.equal(heard.params.text, 'two');
  assert.equal(heard.params.filePath, file);
  assert.deepEqual(heard.params.selection, { start: { line: 1, character: 0 }, end: { line: 1, character: 2 }, isEmpty: false });
});

test("an edited accept is not lost to Copilot CLI's own write: once it writes its proposal (its SAVED carries no text), the user's bytes take its place; an unedited accept and another write are left alone", async (t) => {
  const h = await withCopilot(t);
  const file = path.join(h.workspace, 'a.txt');
  fs.writeFileSync(file, 'one\ntwo\n', { mode: 0o640 });
  const copilot = await connectCopilotClient(lockOf(h));
  t.after(() => copilot.close());
  const proposeAndAccept = async (tab: string, proposal: string, userText: string | undefined): Promise<void> => {
    const answer = copilot.client.callTool({
      name: 'open_diff',
      arguments: { original_file_path: file, new_file_contents: proposal, tab_name: tab },
    }) as Promise<any>;
    const shown = await waitFor(() => h.view.shown.find((d) => d.newContent === proposal), 'the diff shown');
    h.companion.diffs.accept(shown.id, userText);
    assert.equal(JSON.parse((await answer).content[0].text).result, 'SAVED');
    // As Copilot CLI 1.0.102 does on SAVED: it writes its own proposal.
    fs.writeFileSync(file, proposal);
  };
  const userText = 'the user’s line 😀\nno final newline';
  await proposeAndAccept('[Copilot CLI] - a.txt (1)', 'from the model\n', userText);
  await waitFor(() => fs.readFileSync(file, 'utf8') === userText, "the user's text in place of the CLI's write", 5_000).catch((err: Error) => {
    throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}`);
  });
  assert.equal(fs.statSync(file).mode & 0o777, 0o640, 'the file keeps its mode');
  assert.deepEqual(
    fs.readdirSync(h.workspace).filter((name) => name.includes('ide-companion')),
    [],
    'no temporary file left',
  );

  // Unedited: the CLI's write stands, and nothing else is written.
  await proposeAndAccept('[Copilot CLI] - a.txt (2)', 'second\n', undefined);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(fs.readFileSync(file, 'utf8'), 'second\n');
  // Edited, but the file then holds something else than the proposal (the user's own save): left as it is.
  const answer = copilot.client.callTool({
    name: 'open_diff',
    arguments: { original_file_path: file, new_file_contents: 'third\n', tab_name: '[Copilot CLI] - a.txt (3)' },
  }) as Promise<any>;
  const shown = await waitFor(() => h.view.shown.find((d) => d.newContent === 'third\n'), 'the third diff');
  h.companion.diffs.accept(shown.id, 'third, edited\n');
  await answer;
  fs.writeFileSync(file, 'something else\n');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(fs.readFileSync(file, 'utf8'), 'something else\n');
});

test('Copilot CLI is served when the user has it or names it; its folder and the dead lock files swept', (t) => {
  assert.deepEqual(parseAgents('copilot'), ['gemini', 'copilot']);
  assert.deepEqual(parseAgents('opencode'), ['gemini', 'claude']);
  assert.equal(copilotIdeDir({ COPILOT_HOME: '/x/cp' }), path.join('/x/cp', 'ide'));
  assert.match(copilotIdeDir({}), /[\\/]\.copilot[\\/]ide$/);
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env['TMPDIR'] ?? '/tmp'), 'ide-companion-copilot-sweep-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, '1111.lock'), JSON.stringify({ pid: 999_999_999 }));
  fs.writeFileSync(path.join(dir, '2222.lock'), JSON.stringify({ pid: process.pid }));
  assert.deepEqual(sweepStaleCopilotLockFiles(dir), ['1111.lock']);
});

test("Copilot's path arguments are checked as Claude Code's are: a file:// URI names the decoded path, a control character is refused before the editor or the diff view sees it", async (t) => {
  // Before: Copilot's tools took a URI's pathname still percent-encoded (`a%20b.txt` asked the editor for a file
  // nobody has), and open_diff showed a proposal for a name holding ESC; Claude's face had its own copy of both rules.
  const asked: Array<ActionParams<'getDiagnostics'>> = [];
  const editor = new (class extends RecordingEditor {
    getDiagnostics(params: ActionParams<'getDiagnostics'>): ActionResult<'getDiagnostics'> {
      asked.push(params);
      return { diagnostics: [] };
    }
  })();
  const h = await startCompanion({ agents: ['gemini', 'copilot'], editor });
  t.after(() => h.cleanup());
  const copilot = await connectCopilotClient(lockOf(h));
  t.after(() => copilot.close());
  const spaced = path.join(h.workspace, 'a b.txt');
  fs.writeFileSync(spaced, 'x\n');
  const listed: any = await copilot.client.callTool({ name: 'get_diagnostics', arguments: { uri: `file://${h.workspace}/a%20b.txt` } });
  assert.notEqual(listed.isError, true, listed.content[0].text);
  assert.deepEqual(asked, [{ path: spaced }]);

  const hostile = path.join(h.workspace, 'a\u001b]52;c;eA==\u0007.txt');
  fs.writeFileSync(hostile, 'x\n');
  for (const [tool, args] of [
    ['open_diff', { original_file_path: hostile, new_file_contents: 'y\n', tab_name: 't' }],
    ['get_diagnostics', { uri: `file://${h.workspace}/a%0Ab.txt` }],
  ] as const) {
    const r: any = await copilot.client.callTool({ name: tool, arguments: args });
    assert.equal(r.isError, true, `${tool}: ${r.content[0].text}`);
    assert.match(r.content[0].text, /^\S+ refused ".*": it holds a control character \(U\+00(1B|0A) at \d+\)\.$/, tool);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(r.content[0].text, /[\u0000-\u001f\u007f-\u009f]/, tool);
  }
  assert.equal(asked.length, 1, 'the editor was not asked again');
  assert.deepEqual(h.view.shown, [], 'no diff shown');
});
