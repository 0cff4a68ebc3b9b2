/**
 * What a real Emacs (emacs -nw in tmux, typed into like a user) reports as
 * context, seen by a real MCP client of the companion the package started:
 * open files, focus order with real timestamps, point as line and character,
 * the region's text, and the region's lines as Claude Code's selection_changed
 * gives them, whichever way it was made. Plus M-x ide-companion-doctor on a
 * working setup.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_SELECTED_TEXT_LENGTH, SELECTED_TEXT_TRUNCATION_MARKER, type IdeContext } from '@ide-companion/protocol';
import { assertServesSocket, connectClaudeClient, makeTempDir, waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { connectFromDiscovery, quitRegion, startEmacs, TIMEOUT } from './harness.js';

const skip = skipEmacsInTmux;

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
    // Quit without moving point: the region stands (the user may be on the way to the agent) until point moves.
    await quitRegion(emacs);
    assert.equal(openFiles(client.lastContext()!)[0]?.selectedText, 'béta line 😀x', 'the region standing after C-g');
    emacs.tmux.keys('C-a');
    await client.waitForContext((c) => openFiles(c)[0]?.selectedText === undefined, 'the region cleared once point moves');

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
    // The host checks its files when the doctor asks: one gone since is missing, and what to do is said below it.
    fs.renameSync(discoveryFile, `${discoveryFile}.away`);
    let later: string;
    try {
      later = await emacs.evalJson<string>('(ide-companion-doctor)');
    } finally {
      fs.renameSync(`${discoveryFile}.away`, discoveryFile);
    }
    assert.match(
      later,
      new RegExp(
        `^FAIL discovery file .*-${content.port}\\.json is missing\\n {5}the CLI cannot find this Emacs\\n {5}restart the companion: M-x ide-companion-stop, then M-x ide-companion-start$`,
        'm',
      ),
    );
    assert.match(
      await emacs.evalJson<string>('(ide-companion--status-text)'),
      /listening on port \d+ for Gemini CLI, .*; 1 session connected \(Gemini CLI\); discovery file /,
    );
  });

  test("a region made upward, or flipped with C-x C-x, reaches Claude Code's selection_changed with its own lines", async (t) => {
    // Claude Code's lock files go to a folder of this test's own (scripts/run-tests.mjs gives the run one too).
    const claudeDir = makeTempDir('ide-companion-emacs-claude-');
    t.after(() => claudeDir.cleanup());
    const emacs = await startEmacs({ files: { 'r.txt': 'one\ntwo\nthree\nfour\n' }, open: ['r.txt'], env: { CLAUDE_CONFIG_DIR: claudeDir.path } });
    t.after(() => emacs.close());
    const file = path.join(emacs.workspace, 'r.txt');
    const { content } = await emacs.discovery();
    const lockFile = path.join(claudeDir.path, 'ide', `${content.port}.lock`);
    await waitFor(() => fs.existsSync(lockFile), "Claude Code's lock file", TIMEOUT);
    const { authToken } = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { authToken: string };
    const claude = await connectClaudeClient({ port: content.port, token: authToken });
    t.after(() => claude.close());

    // What Claude Code is told next with `text` selected (0-based lines), later than what was seen before.
    let seen = 0;
    const selectionWith = async (text: string, what: string) => {
      const index = await waitFor(
        () => {
          const i = claude.notifications.findIndex((n, j) => j >= seen && n.method === 'selection_changed' && n.params.text === text);
          return i >= 0 ? i + 1 : undefined;
        },
        what,
        TIMEOUT,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; Claude Code heard ${JSON.stringify(claude.notifications.slice(seen))}\n--- screen ---\n${emacs.tmux.screen()}`);
      });
      seen = index;
      const params = claude.notifications[index - 1]!.params as { filePath: string; selection: { start: unknown; end: unknown; isEmpty: boolean } };
      assert.equal(params.filePath, file);
      return params.selection;
    };
    await selectionWith('', 'the selection on connect');

    // Point on line 3 after "th", the mark set, up a line: the region "o\nth", point at its start.
    emacs.tmux.keys('M-<', 'C-n', 'C-n', 'C-f', 'C-f', 'C-Space', 'C-p');
    assert.deepEqual(await selectionWith('o\nth', 'the region made upward'), {
      start: { line: 1, character: 2 },
      end: { line: 2, character: 2 },
      isEmpty: false,
    });
    // C-x C-x: the same text, point at its end (where the selection started Claude Code can only guess: the line's start).
    emacs.tmux.keys('C-x', 'C-x');
    assert.deepEqual(await selectionWith('o\nth', 'the region flipped forward'), {
      start: { line: 1, character: 0 },
      end: { line: 2, character: 2 },
      isEmpty: false,
    });
    // And back: the same text and lines again, point at the start once more.
    emacs.tmux.keys('C-x', 'C-x');
    assert.deepEqual(await selectionWith('o\nth', 'the region flipped back'), {
      start: { line: 1, character: 2 },
      end: { line: 2, character: 2 },
      isEmpty: false,
    });

    // Quit, then move point: the region stands until point moves.
    await quitRegion(emacs);
    emacs.tmux.keys('C-f');
    await selectionWith('', 'the region cleared');
    // Backward within a line: "our" of line 4, point before it.
    emacs.tmux.keys('M->', 'C-p', 'C-e', 'C-Space', 'C-b', 'C-b', 'C-b');
    assert.deepEqual(await selectionWith('our', 'a backward region within a line'), {
      start: { line: 3, character: 1 },
      end: { line: 3, character: 4 },
      isEmpty: false,
    });

    // The control: a region made forward, from line 2 down into line 3.
    await quitRegion(emacs);
    emacs.tmux.keys('C-f');
    await selectionWith('', 'the region cleared again');
    emacs.tmux.keys('M-<', 'C-n', 'C-f', 'C-Space', 'C-n');
    const forward = (await selectionWith('wo\nt', 'a region made forward')) as { start: { line: number }; end: { line: number; character: number } };
    assert.equal(forward.start.line, 1);
    assert.deepEqual(forward.end, { line: 2, character: 1 });
  });

  test('a big region moved inside, and regions made backward, reach the agent with their own text', async (t) => {
    const lines = Array.from({ length: 300 }, (_, i) => `${i + 1}: ünï 😀 text`);
    const emacs = await startEmacs({ files: { 'sel.txt': `${lines.join('\n')}\n` }, open: ['sel.txt'] });
    t.after(() => emacs.close());
    const client = await connectFromDiscovery((await emacs.discovery()).content);
    t.after(() => client.close());
    const selected = (text: string, what: string) => client.waitForContext((c) => (openFiles(c)[0]?.selectedText === text ? openFiles(c)[0] : undefined), what);
    emacs.tmux.keys('M-<', 'C-Space', 'M->');
    await selected(`${lines.join('\n')}\n`, 'the whole file');
    // Point moves inside the region: the text the agent gets follows it.
    emacs.tmux.keys('C-p', 'C-p', 'C-p', 'C-p', 'C-p');
    assert.equal((await selected(`${lines.slice(0, 295).join('\n')}\n`, 'five lines fewer')).cursor?.line, 296);
    // Made upward from the end: point at the start.
    await quitRegion(emacs);
    emacs.tmux.keys('C-f');
    await client.waitForContext((c) => openFiles(c)[0]?.selectedText === undefined, 'the region cleared');
    emacs.tmux.keys('M->', 'C-Space', 'M-1', 'M-1', 'C-p');
    assert.equal((await selected(`${lines.slice(289).join('\n')}\n`, 'the last eleven lines, made upward')).cursor?.line, 290);
    // Leftward within a line, from after 😀 back to "n".
    await quitRegion(emacs);
    emacs.tmux.keys('C-f');
    await client.waitForContext((c) => openFiles(c)[0]?.selectedText === undefined, 'the region cleared again');
    emacs.tmux.keys('M-<', 'C-f', 'C-f', 'C-f', 'C-f', 'C-f', 'C-f', 'C-f', 'C-f', 'C-Space', 'C-b', 'C-b', 'C-b', 'C-b');
    assert.deepEqual((await selected('nï 😀', 'a backward region in a line')).cursor, { line: 1, character: 5 });
  });

  test('multibyte text just past the cap reaches the agent cut once, where every end cuts it', async (t) => {
    const line = 'ü'.repeat(MAX_SELECTED_TEXT_LENGTH) + '😀';
    const emacs = await startEmacs({ files: { 'cap.txt': `${line}\n` }, open: ['cap.txt'] });
    t.after(() => emacs.close());
    const client = await connectFromDiscovery((await emacs.discovery()).content);
    t.after(() => client.close());
    emacs.tmux.keys('M-<', 'C-Space', 'C-e');
    const file = await client.waitForContext((c) => ((openFiles(c)[0]?.selectedText?.length ?? 0) > 100 ? openFiles(c)[0] : undefined), 'the region');
    assert.equal(file.selectedText, 'ü'.repeat(MAX_SELECTED_TEXT_LENGTH - SELECTED_TEXT_TRUNCATION_MARKER.length) + SELECTED_TEXT_TRUNCATION_MARKER);
  });

  test('without Node.js the mode says so clearly, and nothing is listening', async (t) => {
    const emacs = await startEmacs({ init: '(setq ide-companion-node-program "no-such-node")' });
    t.after(() => emacs.close());
    const status = await emacs.evalJson<string>('(ide-companion--status-text)');
    assert.match(status, /not running: Node\.js was not found: `no-such-node' is not on `exec-path'; install Node\.js 20 or newer/);
    assert.match(await emacs.evalJson<string>('(ide-companion-doctor)'), /^FAIL Node\.js was not found: `no-such-node' is not on `exec-path'/m);
    assert.match(emacs.tmux.screen(), /Node\.js was not found/);
  });
});
