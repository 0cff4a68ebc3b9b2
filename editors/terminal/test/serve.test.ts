/**
 * `ide-companion serve` run for real in a tmux terminal, with a real MCP client
 * playing the CLI: discovery, context from saved files, diff review keys,
 * $EDITOR edits, Ctrl+C cleanup.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connectRecordingClient, makeTempDir, repoRoot, skipUnless, Tmux, waitFor, which, type RecordingClient } from '@ide-companion/testkit';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');
const skip = skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install tmux');

type Peer = RecordingClient;

/** Connects like the CLI, with what the discovery file in `discoveryDir` says. */
function connect(discoveryDir: string): Promise<Peer> {
  const name = fs.readdirSync(discoveryDir).find((n) => n.startsWith('gemini-ide-server-'))!;
  const d = JSON.parse(fs.readFileSync(path.join(discoveryDir, name), 'utf8'));
  return connectRecordingClient({ port: d.port, token: d.authToken });
}

describe('ide-companion serve', { skip }, () => {
  let tmp: { path: string; cleanup: () => void };
  let workspace: string;
  let discoveryDir: string;
  let tmux: Tmux;
  let peer: Peer;
  const outcome = (filePath: string) =>
    waitFor(() => peer.notifications.find((n) => n.method !== 'ide/contextUpdate' && n.params.filePath === filePath), `outcome for ${filePath}`, 15_000);

  before(async () => {
    tmp = makeTempDir();
    workspace = path.join(tmp.path, 'my project');
    fs.mkdirSync(path.join(workspace, 'ignored'), { recursive: true });
    fs.mkdirSync(path.join(workspace, 'node_modules'));
    execFileSync('git', ['init', '-q', workspace]);
    fs.writeFileSync(path.join(workspace, '.gitignore'), 'ignored/\n');
    const editor = path.join(tmp.path, 'editor.sh');
    // The "user" appends a line in the editor.
    fs.writeFileSync(editor, '#!/bin/sh\nprintf "added in the editor\\n" >> "$1"\n', { mode: 0o755 });
    tmux = new Tmux(160, 50);
    tmux.start(`node ${JSON.stringify(bin)} serve --workspace ${JSON.stringify(workspace)}`, {
      cwd: tmp.path,
      env: { TMPDIR: tmp.path, EDITOR: editor, NO_COLOR: '1' },
    });
    await tmux.waitForText('&& gemini', 20_000);
    discoveryDir = path.join(tmp.path, 'gemini', 'ide');
    peer = await connect(discoveryDir);
  });
  after(async () => {
    await tmux?.stop();
    tmp?.cleanup();
  });

  test('it prints how to connect and writes a discovery file naming the workspace', async () => {
    const screen = tmux.screen();
    assert.match(screen, new RegExp(`cd ${workspace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} && gemini`));
    const name = fs.readdirSync(discoveryDir).find((n) => n.startsWith('gemini-ide-server-'))!;
    const d = JSON.parse(fs.readFileSync(path.join(discoveryDir, name), 'utf8'));
    assert.equal(d.workspacePath, workspace);
    assert.deepEqual(d.ideInfo, { name: 'ide-companion', displayName: 'IDE Companion (terminal)' });
  });

  test('the status line shows the connected CLI session', async () => {
    await tmux.waitForText('1 CLI session connected');
  });

  test('saved files become context, newest first; .git, node_modules and git-ignored files do not', async () => {
    const a = path.join(workspace, 'a.ts');
    const b = path.join(workspace, 'b.ts');
    fs.writeFileSync(a, '1');
    await waitFor(() => peer.notifications.some((n) => n.params.workspaceState?.openFiles?.[0]?.path === a), 'a.ts in context');
    fs.writeFileSync(path.join(workspace, 'ignored', 'x.ts'), 'x');
    fs.writeFileSync(path.join(workspace, 'node_modules', 'y.js'), 'y');
    fs.writeFileSync(b, '2');
    const ctx = await waitFor(
      () => peer.notifications.findLast((n) => n.params.workspaceState?.openFiles?.[0]?.path === b),
      'b.ts in context',
    );
    const paths = ctx.params.workspaceState.openFiles.map((f: any) => f.path);
    assert.deepEqual(paths, [b, a]);
  });

  test('a proposal is shown as a unified diff; "a" accepts it unchanged', async () => {
    const f = path.join(workspace, 'accept.txt');
    fs.writeFileSync(f, 'line one\n');
    await peer.client.callTool({ name: 'openDiff', arguments: { filePath: f, newContent: 'line one\nline two\n' } });
    await tmux.waitForText('+line two');
    await tmux.waitForText('[a]ccept');
    tmux.type('a');
    tmux.keys('Enter');
    assert.deepEqual((await outcome(f)).params, { filePath: f, content: 'line one\nline two\n' });
  });

  test('"r" rejects', async () => {
    const f = path.join(workspace, 'reject.txt');
    await peer.client.callTool({ name: 'openDiff', arguments: { filePath: f, newContent: 'new file\n' } });
    await tmux.waitForText('+new file');
    tmux.type('r');
    tmux.keys('Enter');
    assert.deepEqual(await outcome(f), { method: 'ide/diffRejected', params: { filePath: f } });
  });

  test('"e" edits the proposal in $EDITOR; accepting sends the edited text byte for byte', async () => {
    const f = path.join(workspace, 'edit.txt');
    const proposal = 'crlf line\r\nno final newline';
    await peer.client.callTool({ name: 'openDiff', arguments: { filePath: f, newContent: proposal } });
    await tmux.waitForText('+crlf line');
    tmux.type('e');
    tmux.keys('Enter');
    await tmux.waitForText('(with your edits)');
    tmux.type('a');
    tmux.keys('Enter');
    assert.equal((await outcome(f)).params.content, proposal + 'added in the editor\n');
  });

  test('closeDiff from the CLI (answered in its terminal) closes the review and returns the edits', async () => {
    const f = path.join(workspace, 'closed.txt');
    await peer.client.callTool({ name: 'openDiff', arguments: { filePath: f, newContent: 'model\n' } });
    await tmux.waitForText('+model');
    tmux.type('e');
    tmux.keys('Enter');
    await waitFor(() => tmux.screen().split('(with your edits)').length > 2, 'edited proposal shown again');
    const r: any = await peer.client.callTool({ name: 'closeDiff', arguments: { filePath: f, suppressNotification: true } });
    assert.deepEqual(JSON.parse(r.content[0].text), { content: 'model\nadded in the editor\n' });
    await tmux.waitForText('answered in the Gemini CLI terminal');
  });

  test('Ctrl+C stops it and removes the discovery file', async () => {
    tmux.keys('C-c');
    await waitFor(() => fs.readdirSync(discoveryDir).filter((n) => n.startsWith('gemini-ide-server-')).length === 0, 'discovery file removed');
  });
});

test('serve --json logs events as JSON lines for scripts, without the token', async () => {
  const tmp = makeTempDir();
  const { spawn } = await import('node:child_process');
  const readline = await import('node:readline');
  const child = spawn(process.execPath, [bin, 'serve', '--json', '--workspace', tmp.path], { env: { ...process.env, TMPDIR: tmp.path } });
  const events: any[] = [];
  const raw: string[] = [];
  readline.createInterface({ input: child.stdout }).on('line', (l) => {
    raw.push(l);
    events.push(JSON.parse(l));
  });
  try {
    const listening = await waitFor(() => events.find((e) => e.event === 'listening'), 'listening event', 20_000);
    assert.equal(typeof listening.port, 'number');
    assert.deepEqual(listening.workspace, [tmp.path]);
    const peer = await connect(path.join(tmp.path, 'gemini', 'ide'));
    await waitFor(() => events.find((e) => e.event === 'sessions' && e.count === 1), 'sessions event');
    const token = JSON.parse(fs.readFileSync(listening.discoveryFile, 'utf8')).authToken;
    assert.ok(!raw.join('\n').includes(token));
    await peer.client.close();
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    tmp.cleanup();
  }
});

test('serve starts the context with the most recently modified tracked files, newest first', async () => {
  const tmp = makeTempDir();
  const { spawn } = await import('node:child_process');
  const files: string[] = [];
  for (let i = 0; i < 12; i++) {
    const f = path.join(tmp.path, `f${i}.txt`);
    fs.writeFileSync(f, String(i));
    const t = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
    fs.utimesSync(f, t, t);
    files.push(f);
  }
  execFileSync('git', ['init', '-q', tmp.path]);
  execFileSync('git', ['-C', tmp.path, 'add', '.']);
  const child = spawn(process.execPath, [bin, 'serve', '--json', '--workspace', tmp.path], { env: { ...process.env, TMPDIR: tmp.path } });
  try {
    const dir = path.join(tmp.path, 'gemini', 'ide');
    await waitFor(() => fs.existsSync(dir) && fs.readdirSync(dir).some((n) => n.startsWith('gemini-ide-server-')), 'discovery file', 20_000);
    const peer = await connect(dir);
    const first = await waitFor(() => peer.notifications.find((n) => n.method === 'ide/contextUpdate'), 'initial context');
    const open = first.params.workspaceState.openFiles;
    assert.deepEqual(
      open.map((f: any) => f.path),
      files.slice(2).reverse(),
    );
    assert.equal(open[0].timestamp, Date.UTC(2026, 0, 1, 0, 0, 11));
    await peer.close();
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    tmp.cleanup();
  }
});
