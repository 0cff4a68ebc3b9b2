/** What a real Vim in tmux tells Gemini CLI: open files in focus order, the cursor in characters, visual selections, roots. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_SELECTED_TEXT_LENGTH, SELECTED_TEXT_TRUNCATION_MARKER } from '@ide-companion/protocol';
import { connectClaudeClient, makeTempDir, waitFor } from '@ide-companion/testkit';
import { openFiles, skipVim, startVim, startWithClient, TIMEOUT, type VimSession } from './harness.js';

const TEXT = 'héllo wörld\n€uro 😀x\n\tindented\n';
/** A line of 2-byte characters as long as the cap, then one more (4-byte, two UTF-16 units), and how the agent gets it. */
const CAP_LINE = 'ü'.repeat(MAX_SELECTED_TEXT_LENGTH) + '😀';
const CAPPED = 'ü'.repeat(MAX_SELECTED_TEXT_LENGTH - SELECTED_TEXT_TRUNCATION_MARKER.length) + SELECTED_TEXT_TRUNCATION_MARKER;

/** Types an Ex command as a user would. */
function command(s: VimSession, text: string): void {
  s.keys('Escape');
  s.type(`:${text}`);
  s.keys('Enter');
}

describe('Vim context', { skip: skipVim, timeout: 180_000 }, () => {
  test('open files in focus order; buffers without a file on disk or of other kinds are left out', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' }, open: ['a.txt', 'b.txt'] });
    try {
      const a = path.join(s.workspace, 'a.txt');
      const b = path.join(s.workspace, 'b.txt');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.path === a, 'a.txt focused at start');
      command(s, 'next');
      let files = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.path === b ? openFiles(ctx) : undefined), 'b.txt focused');
      assert.deepEqual(
        files.map((f) => f.path),
        [b, a],
      );
      assert.equal(files[0]!.isActive, true);
      // Help, a scratch buffer and a new file not yet written do not count.
      command(s, 'help');
      command(s, 'new | setlocal buftype=nofile');
      command(s, 'edit fresh.txt');
      command(s, 'buffer a.txt');
      files = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.path === a ? openFiles(ctx) : undefined), 'a.txt focused again');
      assert.deepEqual(
        files.map((f) => f.path),
        [a, b],
      );
      // Once written, the new file is on disk and is the newest.
      command(s, 'buffer fresh.txt | write');
      const fresh = path.join(s.workspace, 'fresh.txt');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.path === fresh, 'fresh.txt after :w');
      // Going back to a window puts its file first again.
      command(s, 'split b.txt | wincmd p');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.path === fresh, 'fresh.txt after wincmd p');
      command(s, 'bwipeout b.txt');
      await c.waitForContext((ctx) => openFiles(ctx).every((f) => f.path !== b), 'b.txt closed');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('FocusGained (the terminal Vim runs in regained focus) puts the current file first', async () => {
    const { s, c } = await startWithClient({
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n' },
      open: ['a.txt'],
      // Focus reporting, as a vimrc enables it for tmux.
      vimrc: ['let &t_fe = "\\<Esc>[?1004h"', 'let &t_fd = "\\<Esc>[?1004l"', 'execute "set <FocusGained>=\\<Esc>[I"', 'execute "set <FocusLost>=\\<Esc>[O"'],
    });
    try {
      const a = path.join(s.workspace, 'a.txt');
      const b = path.join(s.workspace, 'b.txt');
      command(s, 'split b.txt');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.path === b, 'b.txt focused');
      // Back to a.txt's window without autocommands: only FocusGained can tell.
      await s.ex('noautocmd wincmd p');
      assert.equal(openFiles(c.lastContext()!)[0]?.path, b);
      const sendFocus = (hex: string[]) => spawnSync('tmux', ['-L', s.tmux.socket, 'send-keys', '-t', 'main', '-H', ...hex]);
      sendFocus(['1b', '5b', '4f']);
      sendFocus(['1b', '5b', '49']);
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.path === a, 'a.txt first after FocusGained');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('the cursor is a 1-based line and a character count, not bytes', async () => {
    const { s, c } = await startWithClient({ files: { 'u.txt': TEXT }, open: ['u.txt'] });
    try {
      const cursor = (line: number, character: number) =>
        c.waitForContext((ctx) => {
          const f = openFiles(ctx)[0];
          return f?.cursor?.line === line && f.cursor.character === character ? f : undefined;
        }, `cursor at ${line}:${character}`);
      s.type('fw');
      await cursor(1, 7);
      s.type('j$');
      await cursor(2, 7);
      s.type('a!');
      s.keys('Escape');
      await cursor(2, 8);
      // Insert mode after the last character: one past it.
      s.type('A');
      await cursor(2, 9);
      s.keys('Escape');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('the visual selection: characterwise, linewise and blockwise, cleared once the cursor moves out of it', async () => {
    const { s, c } = await startWithClient({ files: { 'u.txt': TEXT }, open: ['u.txt'] });
    try {
      const selected = (want: string) => c.waitForContext((ctx) => openFiles(ctx)[0]?.selectedText === want, `selection ${JSON.stringify(want)}`);
      s.type('lvll');
      await selected('éll');
      s.keys('Escape');
      s.type('0fwvj$');
      // With $ the selection runs to the end of the line (the line break is not text).
      await selected('wörld\n€uro 😀x');
      s.keys('Escape');
      s.type('ggVj');
      await selected('héllo wörld\n€uro 😀x');
      s.keys('Escape');
      s.type('gg0l');
      s.keys('C-v');
      s.type('jl');
      await selected('él\nur');
      s.keys('Escape');
      s.type('l');
      const file = await c.waitForContext(
        (ctx) => (openFiles(ctx)[0] && openFiles(ctx)[0]!.selectedText === undefined ? openFiles(ctx)[0] : undefined),
        'selection cleared',
      );
      assert.equal(file.selectedText, undefined);
    } finally {
      await c.close();
      await s.close();
    }
  });

  /**
   * Issue 39: select, then ask in the agent's split. The end of Visual mode
   * (<Esc>, or CTRL-W w from it into the terminal) cleared the selection the
   * agent sees; now it stands until the cursor moves in a file, for the
   * context and getSelection alike.
   */
  test('a selection stands through <Esc> and the way into a terminal and back, and goes once the cursor moves in the file', async () => {
    const { s, c } = await startWithClient({ files: { 'u.txt': TEXT }, open: ['u.txt'] });
    try {
      const u = path.join(s.workspace, 'u.txt');
      /** What the agent sees once Vim has sent where it is now: its pending update flushed, a request answered behind it. */
      const seen = async () => {
        await s.expr('ide_companion#context#flush_now()');
        await c.client.callTool({ name: 'getOpenEditors', arguments: {} });
        return { context: openFiles(c.lastContext()!)[0]?.selectedText, tool: (await c.getSelection())?.text };
      };
      const both = (text: string | undefined) => ({ context: text, tool: text });
      const mode = (want: string) => waitFor(async () => (await s.expr<string>('mode()')) === want, `mode ${want}`, TIMEOUT);
      s.type('lvj');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.selectedText === 'éllo wörld\n€u', 'the selection');
      assert.deepEqual(await seen(), both('éllo wörld\n€u'));
      s.keys('Escape');
      await mode('n');
      assert.deepEqual(await seen(), both('éllo wörld\n€u'), 'after <Esc>');
      // Into a terminal (the agent's split) and back: no move in the file.
      command(s, 'terminal ++rows=5 sh');
      await waitFor(async () => (await s.expr<string>('&buftype')) === 'terminal', 'the terminal window', TIMEOUT);
      assert.deepEqual(await seen(), both('éllo wörld\n€u'), 'in the terminal');
      assert.equal((await c.getSelection())!.path, u);
      s.keys('C-w');
      s.type('p');
      await waitFor(async () => (await s.expr<string>('&buftype')) === '', 'back in u.txt', TIMEOUT);
      assert.deepEqual(await seen(), both('éllo wörld\n€u'), 'back in the file');
      // The cursor moves: gone, from both.
      s.type('j');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.selectedText === undefined, 'the selection cleared');
      assert.deepEqual(await seen(), both(undefined));
      // CTRL-W w straight from Visual mode into the terminal: the selection goes along.
      s.type('0vl');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.selectedText === '\ti', 'the second selection');
      s.keys('C-w');
      s.type('w');
      await waitFor(async () => (await s.expr<string>('&buftype')) === 'terminal', 'the terminal window', TIMEOUT);
      assert.deepEqual(await seen(), both('\ti'), 'CTRL-W w into the terminal');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test("a selection made backward (upward, or leftward in a line) gives Claude Code's selection_changed the right range; a forward one too", async () => {
    const claudeDir = makeTempDir('ide-companion-vim-claude-config-');
    const s = await startVim({ files: { 'sel.txt': 'one\ntwo\nthree\nfour\n' }, open: ['sel.txt'], env: { CLAUDE_CONFIG_DIR: claudeDir.path } });
    try {
      const { port } = (await s.discovery()).content;
      const lockFile = path.join(claudeDir.path, 'ide', `${port}.lock`);
      await waitFor(() => fs.existsSync(lockFile), "Claude Code's lock file", TIMEOUT);
      const { authToken } = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { authToken: string };
      const claude = await connectClaudeClient({ port, token: authToken });
      try {
        const selections = () => claude.notifications.filter((n) => n.method === 'selection_changed');
        /** The first selection_changed of `text` after the first `seen` ones. */
        const heard = (seen: number, text: string) =>
          selections()
            .slice(seen)
            .find((n) => n.params.text === text);
        /** Types `keys` (after Escape) and resolves with the range of the first selection_changed of `text` after them. */
        const select = async (keys: string[], text: string) => {
          const seen = selections().length;
          s.keys('Escape');
          // tmux key names (C-v) as keys, the rest typed.
          for (const k of keys) (/^C-/.test(k) ? s.keys : s.type)(k);
          const n = await waitFor(() => heard(seen, text), `selection_changed ${JSON.stringify(text)}`, TIMEOUT).catch((err: Error) => {
            throw new Error(`${err.message}; heard ${JSON.stringify(selections().slice(seen))}`);
          });
          return n.params.selection as { start: { line: number; character: number }; end: { line: number; character: number }; isEmpty: boolean };
        };
        // Charwise, upward across lines: the cursor on line 3, v, k. The cursor (line 2) is the start.
        let sel = await select(['3G0lvk'], 'wo\nth');
        assert.deepEqual([sel.start.line, sel.start.character, sel.end.line], [1, 1, 2], JSON.stringify(sel));
        // Charwise, backward within a line: from the last character of "four" two to the left.
        sel = await select(['4G$vhh'], 'our');
        assert.deepEqual([sel.start.line, sel.start.character, sel.end.line], [3, 1, 3], JSON.stringify(sel));
        // Linewise, upward: lines 2 and 3.
        sel = await select(['3GVk'], 'two\nthree');
        assert.deepEqual([sel.start.line, sel.end.line], [1, 2], JSON.stringify(sel));
        // Blockwise, upward: the same rule (the cursor before the other corner, line first).
        sel = await select(['3G0', 'C-v', 'kl'], 'tw\nth');
        assert.deepEqual([sel.start.line, sel.end.line], [1, 2], JSON.stringify(sel));
        // Forward (the control): from "one" down into "two", the cursor at the end.
        sel = await select(['1G0vjl'], 'one\ntw');
        assert.deepEqual([sel.start.line, sel.start.character, sel.end.line, sel.end.character], [0, 0, 1, 1], JSON.stringify(sel));
        // The same text, its direction flipped (o): the cursor at the start now, the same lines.
        const seen = selections().length;
        s.type('o');
        const flipped = (await waitFor(() => heard(seen, 'one\ntw'), 'the flipped selection', TIMEOUT)).params.selection;
        assert.deepEqual([flipped.start.line, flipped.start.character, flipped.end.line], [0, 0, 1], JSON.stringify(flipped));
        assert.deepEqual(await s.expr('getpos(".")[1:2]'), [1, 1]);
      } finally {
        await claude.close();
      }
    } finally {
      await s.close();
      claudeDir.cleanup();
    }
  });

  test('a long selection is cut by the companion, and what Vim collects per move is bounded', async () => {
    const line = 'x'.repeat(999);
    const { s, c } = await startWithClient({ files: { 'big.txt': `${line}\n`.repeat(200) }, open: ['big.txt'] });
    try {
      s.type('VG');
      const file = await c.waitForContext((ctx) => ((openFiles(ctx)[0]?.selectedText?.length ?? 0) > 1000 ? openFiles(ctx)[0] : undefined), 'the selection');
      assert.ok(file.selectedText!.length <= 16384 + 200, `cut to about 16 KiB, got ${file.selectedText!.length}`);
      assert.ok(file.selectedText!.startsWith(line));
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('a big selection moved inside, and selections made backward, reach the agent with their own text', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `${i + 1}: ünï 😀 text`);
    const { s, c } = await startWithClient({ files: { 'sel.txt': `${lines.join('\n')}\n` }, open: ['sel.txt'] });
    try {
      const selected = (text: string, what: string) =>
        c.waitForContext((ctx) => (openFiles(ctx)[0]?.selectedText === text ? openFiles(ctx)[0] : undefined), what);
      s.type('ggVG');
      await selected(lines.join('\n'), 'the whole file');
      // The far end moves inside the selection: the text the agent gets follows it.
      s.type('5k');
      assert.equal((await selected(lines.slice(0, 295).join('\n'), 'five lines fewer')).cursor?.line, 295);
      // Made upward from the last line: the cursor at the start.
      s.keys('Escape');
      s.type('GV10k');
      assert.equal((await selected(lines.slice(289).join('\n'), 'the last eleven lines, made upward')).cursor?.line, 290);
      // Leftward within a line, from 😀 back to "n".
      s.keys('Escape');
      s.type('gg07lv3h');
      assert.deepEqual((await selected('nï 😀', 'a backward selection in a line')).cursor, { line: 1, character: 5 });
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('multibyte text just past the cap reaches the agent cut once, where every end cuts it', async () => {
    const { s, c } = await startWithClient({ files: { 'cap.txt': `${CAP_LINE}\n` }, open: ['cap.txt'] });
    try {
      s.type('V');
      const file = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.selectedText ? openFiles(ctx)[0] : undefined), 'the selection');
      assert.equal(file.selectedText, CAPPED);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('a long selection whose far end moves keeps its text, and its start moving changes it', async () => {
    const text = Array.from({ length: 200 }, (_, i) => `${i}:${'x'.repeat(990)}\n`).join('');
    const { s, c } = await startWithClient({ files: { 'big.txt': text }, open: ['big.txt'] });
    try {
      const startsWith = (prefix: string, line: number) =>
        c.waitForContext(
          (ctx) => {
            const file = openFiles(ctx)[0];
            return file?.cursor?.line === line && file.selectedText?.startsWith(prefix) ? file : undefined;
          },
          `a selection from ${JSON.stringify(prefix)}, the cursor on line ${line}`,
        );
      s.type('VG');
      await startsWith('0:x', 200);
      // The far end moves, far past what the CLI keeps: the same text.
      s.type('k');
      await startsWith('0:x', 199);
      // The other end (o) moves down: the text starts one line later.
      s.type('oj');
      const file = await startsWith('1:x', 2);
      assert.ok(file.selectedText!.length <= 16384 + 1000, `cut to about 16 KiB, got ${file.selectedText!.length}`);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('roots: the cwd, :tcd and :lcd directories and g:ide_companion_roots (once they exist) reach the companion', async () => {
    const { s } = await startWithClient({ vimrc: ["let g:ide_companion_roots = [$TMPDIR . '/extra']"] });
    try {
      const [tabDir, winDir, extra] = ['tabdir', 'windir', 'extra'].map((d) => path.join(s.tmp, d)) as [string, string, string];
      const workspaceOf = async () => (await s.discovery()).content.workspacePath;
      const roots = (...dirs: string[]) => dirs.join(path.delimiter);
      // The configured folder does not exist yet: it is left out, and the companion starts.
      assert.equal(await workspaceOf(), roots(s.workspace));
      for (const dir of [tabDir, winDir, extra]) fs.mkdirSync(dir);
      const expectRoots = async (want: string, what: string) =>
        waitFor(async () => (await workspaceOf()) === want, `${what}: ${want}`, TIMEOUT).catch(async (err: Error) => {
          throw new Error(`${err.message}; it is ${await workspaceOf()}`);
        });
      command(s, `tabnew | tcd ${tabDir}`);
      await expectRoots(roots(s.workspace, tabDir, extra), ':tcd');
      command(s, `vsplit | lcd ${winDir}`);
      await expectRoots(roots(s.workspace, tabDir, winDir, extra), ':lcd');
      command(s, 'tabclose');
      await expectRoots(roots(s.workspace, extra), 'tab closed');
    } finally {
      await s.close();
    }
  });
});
