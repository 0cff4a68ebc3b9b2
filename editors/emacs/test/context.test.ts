/**
 * What a real Emacs (emacs -nw in tmux, typed into like a user) reports as
 * context, seen by a real MCP client of the companion the package started:
 * open files, focus order with real timestamps, point as line and character,
 * the region's text. Plus M-x ide-companion-doctor on a working setup.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { IdeContext } from '@ide-companion/protocol';
import { assertServesSocket, skipUnless, which } from '@ide-companion/testkit';
import { hasEmacs, emacsclientPath } from './emacs.js';
import { connectFromDiscovery, startEmacs } from './harness.js';

const skip =
  skipUnless(hasEmacs && emacsclientPath !== undefined, 'emacs and emacsclient', 'apt-get install -y emacs-nox') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

const openFiles = (context: IdeContext) => context.workspaceState?.openFiles ?? [];

describe('Emacs context', { skip, timeout: 180_000 }, () => {
  test('open files, focus order, point and region reach an MCP client', async (t) => {
    const before = Date.now();
    const emacs = await startEmacs({ files: { 'a.txt': 'alpha\nbéta line 😀x\n', 'b.txt': 'bee\n' }, open: ['b.txt', 'a.txt'] });
    t.after(() => emacs.close());
    const { content, path: discoveryFile } = await emacs.discovery();
    await assertServesSocket(discoveryFile);
    assert.equal(content.ideInfo.name, 'emacs');
    assert.equal(content.ideInfo.displayName, 'Emacs');
    assert.equal(content.workspacePath, emacs.workspace);
    const client = await connectFromDiscovery(content);
    t.after(() => client.close());
    const a = path.join(emacs.workspace, 'a.txt');
    const b = path.join(emacs.workspace, 'b.txt');

    // a.txt is shown (the last file on the command line), b.txt is open behind it.
    let files = await client.waitForContext((c) => {
      const list = openFiles(c);
      return list[0]?.path === a && list.some((f) => f.path === b) ? list : undefined;
    }, 'a.txt active, b.txt open');
    assert.equal(files[0]!.isActive, true);
    assert.deepEqual(files[0]!.cursor, { line: 1, character: 1 });

    // Down one line, then past "béta line 😀": characters, not bytes (é is 2 bytes, 😀 4).
    emacs.tmux.keys('C-n', 'C-e', 'C-b');
    files = await client.waitForContext(
      (c) => (openFiles(c)[0]?.cursor?.line === 2 && openFiles(c)[0]?.cursor?.character === 12 ? openFiles(c) : undefined),
      'point before x',
    );
    assert.equal(files[0]!.path, a);

    // The region's text.
    emacs.tmux.keys('C-a', 'C-Space', 'C-e');
    files = await client.waitForContext((c) => (openFiles(c)[0]?.selectedText === 'béta line 😀x' ? openFiles(c) : undefined), 'the region');
    emacs.tmux.keys('C-g');
    await client.waitForContext((c) => openFiles(c)[0]?.selectedText === undefined, 'the region cleared');

    // Switching buffers moves focus; timestamps are real and ordered.
    emacs.tmux.keys('C-x', 'b');
    emacs.tmux.type('b.txt');
    emacs.tmux.keys('Enter');
    files = await client.waitForContext((c) => (openFiles(c)[0]?.path === b ? openFiles(c) : undefined), 'b.txt focused');
    assert.equal(files[0]!.isActive, true);
    const older = files.find((f) => f.path === a)!;
    assert.equal(older.isActive, undefined);
    assert.ok(files[0]!.timestamp > older.timestamp, 'the newest focus first');
    for (const f of files) assert.ok(f.timestamp >= before - 1000 && f.timestamp <= Date.now(), `real timestamp: ${f.timestamp}`);

    // The terminal reports focus lost, then regained (xterm focus events): the focused file's timestamp moves on.
    const focusedAt = files[0]!.timestamp;
    emacs.tmux.keys('-H', '1b', '5b', '4f');
    emacs.tmux.keys('-H', '1b', '5b', '49');
    await client.waitForContext((c) => openFiles(c)[0]?.path === b && openFiles(c)[0]!.timestamp > focusedAt, 'focus regained');

    // Killing a buffer closes it.
    emacs.tmux.keys('C-x', 'k', 'Enter');
    await client.waitForContext((c) => (openFiles(c).some((f) => f.path === b) ? undefined : true), 'b.txt closed');

    const doctor = await emacs.evalJson<string>('(ide-companion-doctor)');
    assert.match(doctor, /^ok {3}Node\.js v\d+/m);
    assert.ok(doctor.includes(`ok   socket ${content.socketPath}: for gemini in a container`), 'the socket is shown');
    assert.match(doctor, /^ok {3}host running \(pid \d+\), port \d+, 1 CLI session \(Gemini CLI\)$/m);
    assert.match(doctor, new RegExp(`^ok {3}discovery file ${content.port}|^ok {3}discovery file .*-${content.port}\\.json$`, 'm'));
    assert.match(await emacs.evalJson<string>('(ide-companion--status-text)'), /listening on port \d+ for Gemini CLI; 1 session connected/);
  });

  test('without Node.js the mode says so clearly, and nothing is listening', async (t) => {
    const emacs = await startEmacs({ init: '(setq ide-companion-node-program "no-such-node")' });
    t.after(() => emacs.close());
    const status = await emacs.evalJson<string>('(ide-companion--status-text)');
    assert.match(status, /not running: Node\.js was not found: `no-such-node' is not on `exec-path'; install Node\.js 20 or newer/);
    assert.match(await emacs.evalJson<string>('(ide-companion-doctor)'), /^FAIL Node\.js: `no-such-node' is not on `exec-path'/m);
    assert.match(emacs.tmux.screen(), /Node\.js was not found/);
  });
});
