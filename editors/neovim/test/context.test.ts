/** What a real Neovim reports as context, seen by a real MCP client of the companion the plugin started. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_SELECTED_TEXT_LENGTH, SELECTED_TEXT_TRUNCATION_MARKER } from '@ide-companion/protocol';
import { skipUnless, sleep, waitFor } from '@ide-companion/testkit';
import { hasNvim, openFiles, startWithClient, TIMEOUT } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');

/** A line of 2-byte characters as long as the cap, then one more (4-byte, two UTF-16 units), and how the agent gets it. */
const CAP_LINE = 'ü'.repeat(MAX_SELECTED_TEXT_LENGTH) + '😀';
const CAPPED = 'ü'.repeat(MAX_SELECTED_TEXT_LENGTH - SELECTED_TEXT_TRUNCATION_MARKER.length) + SELECTED_TEXT_TRUNCATION_MARKER;

describe('Neovim context', { skip, timeout: 120_000 }, () => {
  test('focus order follows buffer switches, newest first, with wall-clock timestamps', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' } });
    try {
      const before = Date.now();
      const [a, b, cc] = ['a.txt', 'b.txt', 'c.txt'].map((f) => path.join(s.workspace, f)) as [string, string, string];
      for (const file of ['a.txt', 'b.txt', 'c.txt']) {
        await s.nvim.command(`edit ${file}`);
        await c.waitForContext((ctx) => openFiles(ctx)[0]?.path === path.join(s.workspace, file), `${file} focused`);
      }
      await s.nvim.command('buffer a.txt');
      const files = await c.waitForContext((ctx) => {
        const list = openFiles(ctx);
        return list.length === 3 && list[0]!.path === a ? list : undefined;
      }, 'a.txt focused again');
      assert.deepEqual(
        files.map((f) => f.path),
        [a, cc, b],
      );
      assert.equal(files[0]!.isActive, true);
      assert.ok(files.slice(1).every((f) => f.isActive === undefined && f.cursor === undefined));
      for (let i = 1; i < files.length; i++) assert.ok(files[i - 1]!.timestamp > files[i]!.timestamp, 'timestamps decrease');
      for (const f of files) assert.ok(f.timestamp >= before - 1000 && f.timestamp <= Date.now(), `real timestamp: ${f.timestamp}`);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('the cursor counts characters, not bytes, on multibyte lines', async () => {
    const { s, c } = await startWithClient({ files: { 'u.txt': 'héllo wörld\n€uro 😀x\n' } });
    try {
      await s.nvim.command('edit u.txt');
      // "w" is byte 7 (0-based) but the 7th character.
      await s.nvim.input('0fw');
      let file = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.cursor?.character === 7 ? openFiles(ctx)[0] : undefined), 'cursor on w');
      assert.deepEqual(file.cursor, { line: 1, character: 7 });
      // "x" follows a 3-byte and a 4-byte character: byte 11, character 7.
      await s.nvim.input('jfx');
      file = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.cursor?.line === 2 ? openFiles(ctx)[0] : undefined), 'cursor on line 2');
      assert.deepEqual(file.cursor, { line: 2, character: 7 });
      // Insert mode at the end of a line: one past the last character.
      await s.nvim.input('A');
      file = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.cursor?.character === 8 ? openFiles(ctx)[0] : undefined), 'cursor after x');
      assert.deepEqual(file.cursor, { line: 2, character: 8 });
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('the visual selection is sent as text (charwise with multibyte ends, linewise) and cleared once the cursor moves out of it', async () => {
    const { s, c } = await startWithClient({ files: { 'v.txt': 'héllo wörld\n€uro 😀x\nlast\n' } });
    try {
      await s.nvim.command('edit v.txt');
      await s.nvim.input('gg0lvll');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.selectedText === 'éll', 'selection éll');
      await s.nvim.input('<Esc>gg0fövj0f😀');
      let file = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.selectedText?.endsWith('😀') ? openFiles(ctx)[0] : undefined), 'two-line selection');
      assert.equal(file.selectedText, 'örld\n€uro 😀');
      assert.deepEqual(file.cursor, { line: 2, character: 6 });
      await s.nvim.input('<Esc>ggVj');
      // Past V's one-line selection (ModeChanged sends it at once; it may flush before j's).
      file = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.selectedText?.startsWith('héllo wörld\n') ? openFiles(ctx)[0] : undefined), 'linewise');
      assert.equal(file.selectedText, 'héllo wörld\n€uro 😀x');
      await s.nvim.input('<Esc>k');
      file = await c.waitForContext((ctx) => (openFiles(ctx)[0] && !openFiles(ctx)[0]!.selectedText ? openFiles(ctx)[0] : undefined), 'selection cleared');
      assert.equal(file.selectedText, undefined);
    } finally {
      await c.close();
      await s.close();
    }
  });

  /**
   * Issue 39: select, then ask in the agent's split. <Esc>, or <C-w>w from
   * Visual mode into the :terminal running the agent, cleared the selection
   * within a millisecond, for the context and getSelection alike; now it
   * stands until the cursor moves in a file.
   */
  test('a selection stands through <Esc> and the way into a :terminal and back, and goes once the cursor moves in the file', async () => {
    const { s, c } = await startWithClient({ files: { 'v.txt': 'héllo wörld\n€uro 😀x\nlast\n' } });
    try {
      const v = path.join(s.workspace, 'v.txt');
      /** What the agent sees once Neovim has sent where it is now: past its cursor timer, a request answered behind it. */
      const seen = async () => {
        await sleep(100);
        await c.client.callTool({ name: 'getOpenEditors', arguments: {} });
        return { context: openFiles(c.lastContext()!)[0]?.selectedText, tool: (await c.getSelection())?.text };
      };
      const both = (text: string | undefined) => ({ context: text, tool: text });
      const buftype = () => s.lua<string>('return vim.bo.buftype');
      await s.nvim.command('edit v.txt');
      await s.nvim.input('gg0lvj');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.selectedText === 'éllo wörld\n€u', 'the selection');
      assert.deepEqual(await seen(), both('éllo wörld\n€u'));
      await s.nvim.input('<Esc>');
      assert.deepEqual(await seen(), both('éllo wörld\n€u'), 'after <Esc>');
      // Into a terminal (the agent's split, in Terminal mode) and back: no move in the file.
      await s.nvim.command('belowright split | terminal');
      await s.nvim.input('i');
      assert.equal(await buftype(), 'terminal');
      assert.deepEqual(await seen(), both('éllo wörld\n€u'), 'in the terminal');
      assert.equal((await c.getSelection())!.path, v);
      await s.nvim.input('<C-\\><C-n><C-w>p');
      await waitFor(async () => (await buftype()) === '', 'back in v.txt', TIMEOUT);
      assert.deepEqual(await seen(), both('éllo wörld\n€u'), 'back in the file');
      // The cursor moves: gone, from both.
      await s.nvim.input('j');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.selectedText === undefined, 'the selection cleared');
      assert.deepEqual(await seen(), both(undefined));
      // <C-w>w straight from Visual mode into the terminal: the selection goes along.
      await s.nvim.input('0vl');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.selectedText === 'la', 'the second selection');
      await s.nvim.input('<C-w>w');
      await waitFor(async () => (await buftype()) === 'terminal', 'the terminal window', TIMEOUT);
      assert.deepEqual(await seen(), both('la'), '<C-w>w into the terminal');
    } finally {
      await c.close();
      await s.close();
    }
  });

  // A selection made backward (upward, leftward in a line) and its Claude Code range: the conformance suite (conformance.test.ts).

  test('the same text selected the other way round, the cursor where it was, is sent again', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'aaaa\n' } });
    try {
      await s.nvim.command('edit a.txt');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.cursor?.line === 1, 'a.txt focused');
      // Every cursor shorthand the plugin sends, recorded. The first "aa" (forward, the cursor on the 3rd "a")
      // starts a burst at once: Esc, l, v, h leave the cursor there with "aa" selected backward, read once when
      // the burst's timer fires: only the anchor differs from what was sent last.
      await s.lua(`
        local host = require('ide_companion.host')
        require('ide_companion.context').CURSOR_DELAY_MS = 1000
        local send = host.cursor
        _G.ide_companion_test_sent = {}
        host.cursor = function(line, character, anchor_line, anchor_character, kind)
          table.insert(_G.ide_companion_test_sent, { line, character, anchor_line or vim.NIL, anchor_character or vim.NIL })
          if anchor_character == 2 and not _G.ide_companion_test_flipped then
            _G.ide_companion_test_flipped = true
            vim.api.nvim_input('<Esc>lvh')
          end
          return send(line, character, anchor_line, anchor_character, kind)
        end
      `);
      await s.nvim.input('0lvl');
      const sent = await waitFor(
        async () => {
          const list = await s.lua<Array<[number, number, number | null, number | null]>>('return _G.ide_companion_test_sent');
          return list.some(([, , , anchor]) => anchor === 4) ? list : undefined;
        },
        'the backward "aa" sent',
        TIMEOUT,
      );
      assert.deepEqual(
        sent.filter(([, , line]) => line !== null),
        [
          [1, 3, 1, 2],
          [1, 3, 1, 4],
        ],
      );
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('a huge selection reaches the CLI cut to its 16 KiB limit and marked', async () => {
    const line = 'ünïcode 😀 and ascii, forty-odd characters\n';
    const { s, c } = await startWithClient({ files: { 'big.txt': line.repeat(5000) } });
    try {
      await s.nvim.command('edit big.txt');
      await s.nvim.input('ggVG');
      // Past V's one-line selection (ModeChanged sends it at once; it may flush before G's).
      const file = await c.waitForContext(
        (ctx) => ((openFiles(ctx)[0]?.selectedText?.length ?? 0) > line.length ? openFiles(ctx)[0] : undefined),
        'the whole selection',
      );
      const text = file.selectedText!;
      assert.equal(text.length, MAX_SELECTED_TEXT_LENGTH);
      assert.ok(text.endsWith(SELECTED_TEXT_TRUNCATION_MARKER));
      assert.ok(line.repeat(500).startsWith(text.slice(0, -SELECTED_TEXT_TRUNCATION_MARKER.length)), 'the start of the selection, intact');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('a big selection moved inside, and selections made backward, reach the agent with their own text', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `${i + 1}: ünï 😀 text`);
    const { s, c } = await startWithClient({ files: { 'sel.txt': `${lines.join('\n')}\n` } });
    try {
      const selected = (text: string, what: string) =>
        c.waitForContext((ctx) => (openFiles(ctx)[0]?.selectedText === text ? openFiles(ctx)[0] : undefined), what);
      await s.nvim.command('edit sel.txt');
      await s.nvim.input('ggVG');
      await selected(lines.join('\n'), 'the whole file');
      // The far end moves inside the selection: the text the agent gets follows it.
      await s.nvim.input('5k');
      assert.equal((await selected(lines.slice(0, 295).join('\n'), 'five lines fewer')).cursor?.line, 295);
      // Made upward from the last line: the cursor at the start.
      await s.nvim.input('<Esc>GV10k');
      assert.equal((await selected(lines.slice(289).join('\n'), 'the last eleven lines, made upward')).cursor?.line, 290);
      // Leftward within a line, from 😀 back to "n".
      await s.nvim.input('<Esc>gg07lv3h');
      assert.deepEqual((await selected('nï 😀', 'a backward selection in a line')).cursor, { line: 1, character: 5 });
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('multibyte text just past the cap reaches the agent cut once, where every end cuts it', async () => {
    const { s, c } = await startWithClient({ files: { 'cap.txt': `${CAP_LINE}\n` } });
    try {
      await s.nvim.command('edit cap.txt');
      await s.nvim.input('V');
      const file = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.selectedText ? openFiles(ctx)[0] : undefined), 'the selection');
      assert.equal(file.selectedText, CAPPED);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('a huge selection whose far end moves keeps its text, and its start moving changes it', async () => {
    const text = Array.from({ length: 200 }, (_, i) => `${i}:${'x'.repeat(990)}\n`).join('');
    const { s, c } = await startWithClient({ files: { 'big.txt': text } });
    try {
      await s.nvim.command('edit big.txt');
      const startsWith = (prefix: string, line: number) =>
        c.waitForContext(
          (ctx) => {
            const file = openFiles(ctx)[0];
            return file?.cursor?.line === line && file.selectedText?.startsWith(prefix) ? file : undefined;
          },
          `a selection from ${JSON.stringify(prefix)}, the cursor on line ${line}`,
        );
      await s.nvim.input('ggVG');
      await startsWith('0:x', 200);
      // The far end moves, far past what the CLI keeps: the same text.
      await s.nvim.input('k');
      await startsWith('0:x', 199);
      // The other end (o) moves down: the text starts one line later.
      await s.nvim.input('oj');
      const file = await startsWith('1:x', 2);
      assert.equal(file.selectedText!.length, MAX_SELECTED_TEXT_LENGTH);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('buffers without a file on disk are left out until written; deleted buffers leave', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'a\n' } });
    try {
      const a = path.join(s.workspace, 'a.txt');
      const fresh = path.join(s.workspace, 'fresh.txt');
      await s.nvim.command('edit a.txt');
      await c.waitForContext((ctx) => openFiles(ctx)[0]?.path === a, 'a.txt active');
      // Not on disk yet; a help buffer and a scratch buffer are not files at all.
      await s.nvim.command('edit fresh.txt');
      // silent!: Debian 13's Neovim 0.10 ships no vimdoc parser and its help ftplugin errors without one.
      await s.nvim.command('silent! help');
      await s.nvim.command('new | setlocal buftype=nofile');
      await s.nvim.command('only');
      await s.nvim.command('buffer fresh.txt');
      await s.nvim.input('ihello<Esc>');
      await new Promise((r) => setTimeout(r, 300));
      const snapshot = c.lastContext()!;
      assert.deepEqual(
        openFiles(snapshot).map((f) => f.path),
        [a],
      );
      assert.equal(openFiles(snapshot)[0]!.isActive, undefined, 'the focused buffer is fresh.txt, which is not on disk');
      await s.nvim.command('write');
      const files = await c.waitForContext((ctx) => (openFiles(ctx)[0]?.path === fresh ? openFiles(ctx) : undefined), 'fresh.txt after :w');
      assert.equal(files[0]!.isActive, true);
      assert.ok(fs.existsSync(fresh));
      await s.nvim.command('bdelete a.txt');
      await c.waitForContext((ctx) => (openFiles(ctx).every((f) => f.path !== a) ? true : undefined), 'a.txt gone');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('trust is not reported unless configured', { timeout: TIMEOUT * 3 }, async () => {
    const plain = await startWithClient({ files: { 'a.txt': 'a\n' } });
    try {
      await plain.s.nvim.command('edit a.txt');
      const ctx = await plain.c.waitForContext((x) => (openFiles(x).length > 0 ? x : undefined), 'context');
      assert.equal(ctx.workspaceState?.isTrusted, undefined);
    } finally {
      await plain.c.close();
      await plain.s.close();
    }
    const trusted = await startWithClient({ files: { 'a.txt': 'a\n' }, setup: '{ trusted = true }' });
    try {
      await trusted.s.nvim.command('edit a.txt');
      const ctx = await trusted.c.waitForContext((x) => (openFiles(x).length > 0 ? x : undefined), 'context');
      assert.equal(ctx.workspaceState?.isTrusted, true);
    } finally {
      await trusted.c.close();
      await trusted.s.close();
    }
  });
});
