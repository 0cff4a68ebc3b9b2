/**
 * `ide-companion bridge`, the host for script-based editor plugins, driven the
 * way a Vim or Emacs script would: JSON lines on the real bin's stdin/stdout,
 * with a real MCP client as the CLI.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { connectRecordingClient, makeTempDir, repoRoot, waitFor, type RecordingClient } from '@ide-companion/testkit';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

describe('ide-companion bridge (JSON lines)', () => {
  let tmp: { path: string; cleanup: () => void };
  let host: ChildProcessWithoutNullStreams;
  const fromHost: any[] = [];
  let peer: RecordingClient;
  const send = (m: unknown) => host.stdin.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`);
  const file = (n: string) => path.join(tmp.path, n);

  before(async () => {
    tmp = makeTempDir();
    host = spawn(process.execPath, [bin, 'bridge', '--name', 'scripted', '--display-name', 'Scripted Editor', '--ide-pid', String(process.pid), '--workspace', tmp.path], {
      env: { ...process.env, TMPDIR: tmp.path },
    });
    readline.createInterface({ input: host.stdout }).on('line', (l) => fromHost.push(JSON.parse(l)));
    const ready = await waitFor(() => fromHost.find((m) => m.type === 'ready'), 'ready', 15_000);
    assert.equal(ready.env.GEMINI_CLI_IDE_PID, String(process.pid));
    assert.match(ready.discoveryFile, new RegExp(`gemini-ide-server-${process.pid}-${ready.port}\\.json$`));
    peer = await connectRecordingClient({ port: ready.port, token: ready.env.GEMINI_CLI_IDE_AUTH_TOKEN });
  });
  after(async () => {
    await peer?.close();
    host?.kill();
    tmp?.cleanup();
  });

  test('editor events become context for the CLI', async () => {
    fs.writeFileSync(file('a.vim'), 'x');
    send({ type: 'focus', path: file('a.vim'), cursor: { line: 3, character: 7 }, selectedText: 'sel' });
    const n = await waitFor(() => peer.notifications.find((x) => x.params.workspaceState?.openFiles?.[0]?.path === file('a.vim')), 'context');
    assert.deepEqual(n.params.workspaceState.openFiles[0].cursor, { line: 3, character: 7 });
    assert.equal(n.params.workspaceState.openFiles[0].selectedText, 'sel');
  });

  test('bad lines get an error and change nothing', async () => {
    const before = fromHost.filter((m) => m.type === 'error').length;
    send('not json');
    send({ type: 'focus', path: 'relative.txt' });
    send({ type: 'cursor', path: file('a.vim'), cursor: { line: 0, character: 1 } });
    send({ type: 'nonsense' });
    await waitFor(() => fromHost.filter((m) => m.type === 'error').length === before + 4, 'four errors');
    assert.ok((await peer.client.listTools()).tools.length >= 3, 'still serving');
  });

  test('a diff is shown by the script and accepted with its edited text', async () => {
    await peer.client.callTool({ name: 'openDiff', arguments: { filePath: file('d.txt'), newContent: 'proposal\n' } });
    const show = await waitFor(() => fromHost.find((m) => m.type === 'showDiff' && m.filePath === file('d.txt')), 'showDiff');
    assert.equal(show.newContent, 'proposal\n');
    send({ type: 'diffAccepted', id: show.id, content: 'proposal\nedited\n' });
    const n = await waitFor(() => peer.notifications.find((x) => x.method === 'ide/diffAccepted'), 'accepted');
    assert.deepEqual(n.params, { filePath: file('d.txt'), content: 'proposal\nedited\n' });
  });

  test('closeDiff asks the script for the edited text and closes its view', async () => {
    await peer.client.callTool({ name: 'openDiff', arguments: { filePath: file('c.txt'), newContent: 'model\n' } });
    const show = await waitFor(() => fromHost.find((m) => m.type === 'showDiff' && m.filePath === file('c.txt')), 'showDiff');
    const closing = peer.client.callTool({ name: 'closeDiff', arguments: { filePath: file('c.txt') } });
    const ask = await waitFor(() => fromHost.find((m) => m.type === 'currentText' && m.id === show.id), 'currentText request');
    send({ type: 'currentText', requestId: ask.requestId, text: 'model\nuser edit\n' });
    const r: any = await closing;
    assert.deepEqual(JSON.parse(r.content[0].text), { content: 'model\nuser edit\n' });
    assert.ok(fromHost.find((m) => m.type === 'closeDiff' && m.id === show.id && m.reason === 'closedByCli'));
  });

  test('closing stdin stops the host and removes its discovery file', async () => {
    const ready = fromHost.find((m) => m.type === 'ready');
    host.stdin.end();
    await new Promise((r) => host.once('exit', r));
    assert.equal(fs.existsSync(ready.discoveryFile), false);
  });
});
