/** The optional capabilities of the editor seam, answered by a real Vim and called as MCP tools through the real MCP SDK client. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipUnless, waitFor } from '@ide-companion/testkit';
import { skipVim, startWithClient, TIMEOUT, vimString, type RecordingClient } from './harness.js';

/** Calls tool `name` and returns its result as JSON (the tools answer with one JSON text block). */
async function call(c: RecordingClient, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await c.client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  const text = result.content.find((b) => b.type === 'text')?.text ?? '';
  if (result.isError) return { error: text };
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Debian's ALE (vim-ale), as a Vim user installs it. */
const ALE_DIR = '/usr/share/vim-ale';
const skipAle = skipVim || skipUnless(fs.existsSync(path.join(ALE_DIR, 'plugin', 'ale.vim')), 'ALE', 'apt-get install -y vim-ale');

describe('Vim capabilities as MCP tools', { skip: skipVim, timeout: 180_000 }, () => {
  test('the companion offers every capability Vim declares', async () => {
    const { s, c } = await startWithClient();
    try {
      const { tools } = await c.client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of ['openDiff', 'closeDiff', 'openFile', 'getOpenEditors', 'getSelection', 'getDiagnostics', 'checkDocumentDirty', 'saveDocument']) {
        assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
      }
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('openFile at a line and column (characters); getOpenEditors; getSelection in Visual mode and out of it', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'a\n', 'u.txt': 'one\ntwo\nthrée x\n' }, open: ['a.txt'] });
    try {
      const u = path.join(s.workspace, 'u.txt');
      const a = path.join(s.workspace, 'a.txt');
      const opened = await call(c, 'openFile', { path: u, line: 3, column: 6 });
      assert.equal(opened?.error, undefined, JSON.stringify(opened));
      await waitFor(async () => (await s.expr<string>("expand('%:p')")) === u, 'u.txt shown', TIMEOUT);
      assert.deepEqual(await s.expr('[line("."), charcol(".")]'), [3, 6]);
      const { editors } = await call(c, 'getOpenEditors');
      assert.deepEqual(editors.map((e: any) => [e.path, e.isActive]).sort(), [
        [a, false],
        [u, true],
      ]);
      // Nothing selected yet.
      assert.deepEqual(await call(c, 'getSelection'), { selection: null });
      s.type('0vfe');
      await waitFor(async () => (await s.expr<string>('mode()')) === 'v', 'Visual mode', TIMEOUT);
      // Until Vim's (debounced) position reaches the host, the last position it sent had none (positionIntake.ts).
      const live = await waitFor(async () => (await call(c, 'getSelection')).selection ?? undefined, 'the selection', TIMEOUT);
      assert.deepEqual(live, { path: u, text: 'thrée', start: { line: 3, character: 1 }, end: { line: 3, character: 5 } });
      // Out of Visual mode (and in a terminal window) the last selection of the active file is the answer.
      s.keys('Escape');
      await waitFor(async () => (await s.expr<string>('mode()')) === 'n', 'Normal mode', TIMEOUT);
      await s.ex('terminal ++rows=5 sh');
      assert.deepEqual((await call(c, 'getSelection')).selection, live);
      await s.ex('wincmd p');
      s.type('ggVj');
      s.keys('Escape');
      await waitFor(async () => (await s.expr<string>('visualmode()')) === 'V', 'a linewise selection', TIMEOUT);
      assert.deepEqual((await call(c, 'getSelection')).selection, {
        path: u,
        text: 'one\ntwo',
        start: { line: 1, character: 1 },
        end: { line: 2, character: 3 },
      });
      // openFile with endLine/endColumn selects, charwise after a linewise selection (issue 31: Claude's anchors arrive so).
      await call(c, 'openFile', { path: u, line: 1, column: 2, endLine: 3, endColumn: 4 });
      await waitFor(async () => (await s.expr<string>('mode()')) === 'v', 'Visual mode', TIMEOUT);
      assert.deepEqual((await call(c, 'getSelection')).selection, {
        path: u,
        text: 'ne\ntwo\nthr',
        start: { line: 1, character: 2 },
        end: { line: 3, character: 3 },
      });
      s.keys('Escape');
      assert.equal((await call(c, 'getOpenEditors')).editors.find((e: any) => e.path === u).lineCount, 3);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('checkDocumentDirty and saveDocument: unsaved state, then written by Vim', async () => {
    const { s, c } = await startWithClient({ files: { 'd.txt': 'disk\n' }, open: ['d.txt'] });
    try {
      const d = path.join(s.workspace, 'd.txt');
      assert.deepEqual(await call(c, 'checkDocumentDirty', { path: d }), { isOpen: true, isDirty: false });
      s.type('ccin vim');
      s.keys('Escape');
      await waitFor(async () => (await s.expr<number>('&modified')) === 1, 'the edit', TIMEOUT);
      assert.deepEqual(await call(c, 'checkDocumentDirty', { path: d }), { isOpen: true, isDirty: true });
      assert.deepEqual(await call(c, 'checkDocumentDirty', { path: path.join(s.workspace, 'nope.txt') }), { isOpen: false, isDirty: false });
      const saved = await call(c, 'saveDocument', { path: d });
      assert.equal(saved.saved, true, JSON.stringify(saved));
      assert.equal(fs.readFileSync(d, 'utf8'), 'in vim\n');
      assert.deepEqual(await call(c, 'checkDocumentDirty', { path: d }), { isOpen: true, isDirty: false });
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('getDiagnostics from the quickfix and location lists, characters not bytes, by file or for the workspace', async () => {
    const { s, c } = await startWithClient({ files: { 'q.txt': 'héllo x\n', 'l.txt': 'line\n' }, open: ['q.txt', 'l.txt'] });
    try {
      const q = path.join(s.workspace, 'q.txt');
      const l = path.join(s.workspace, 'l.txt');
      await s.expr(
        `setqflist([{'filename': ${vimString(q)}, 'lnum': 1, 'col': 8, 'type': 'E', 'text': 'bad x', 'nr': 42}, {'filename': ${vimString(q)}, 'lnum': 1, 'col': 1, 'type': 'W', 'text': 'hmm'}])`,
      );
      await s.expr(`setloclist(0, [{'filename': ${vimString(l)}, 'lnum': 1, 'col': 2, 'type': 'I', 'text': 'note'}])`);
      const all = (await call(c, 'getDiagnostics')).diagnostics;
      const summary = all.map((d: any) => [path.basename(d.path), d.range.start.line, d.range.start.character, d.severity, d.message]).sort();
      assert.deepEqual(summary, [
        ['l.txt', 1, 2, 'information', 'note'],
        ['q.txt', 1, 1, 'warning', 'hmm'],
        ['q.txt', 1, 7, 'error', 'bad x'],
      ]);
      const only = (await call(c, 'getDiagnostics', { path: l })).diagnostics;
      assert.deepEqual(
        only.map((d: any) => d.message),
        ['note'],
      );
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('getDiagnostics from ALE when it is loaded: a real linter (sh -n) on a shell script', { skip: skipAle }, async () => {
    const { s, c } = await startWithClient({
      files: { 'bad.sh': '#!/bin/sh\nif true; then\n  echo hi\n' },
      vimrc: [
        `set rtp^=${ALE_DIR}`,
        'filetype plugin on',
        "let g:ale_linters = {'sh': ['shell']}",
        // Only ALE's own list: the location list would report the same problem on its own.
        'let g:ale_set_loclist = 0',
        'let g:ale_set_quickfix = 0',
      ],
      open: ['bad.sh'],
    });
    try {
      const file = path.join(s.workspace, 'bad.sh');
      await waitFor(async () => (await s.expr<unknown[]>("ale#engine#GetLoclist(bufnr('bad.sh'))")).length > 0, 'ALE to lint', TIMEOUT);
      const { diagnostics } = await call(c, 'getDiagnostics', { path: file });
      assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
      assert.equal(diagnostics[0].path, file);
      assert.equal(diagnostics[0].severity, 'error');
      assert.equal(diagnostics[0].source, 'shell');
      assert.ok(diagnostics[0].range.start.line >= 3, JSON.stringify(diagnostics[0]));
    } finally {
      await c.close();
      await s.close();
    }
  });
});

// Every optional argument left out (issue 21 part 4): the conformance suite (conformance.test.ts) runs optionalArguments.ts here.
