/**
 * The editor seam's optional actions on a real headless Neovim, called as MCP
 * tools through the real MCP SDK client: diagnostics from vim.diagnostic, open
 * file at a line, open editors, selection, unsaved state and save.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, skipUnless, waitFor } from '@ide-companion/testkit';
import { LuaBridge } from '../src/host/luaBridge.js';
import { hasNvim, startWithClient, TIMEOUT } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');

describe('Neovim capabilities as MCP tools', { skip, timeout: 120_000 }, () => {
  test('the tool list names every capability the Lua side declares', async () => {
    const { s, c } = await startWithClient();
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, [
        'checkDocumentDirty',
        'closeDiff',
        'getActiveFile',
        'getDiagnostics',
        'getOpenEditors',
        'getSelection',
        'getWorkspaceFolders',
        'openDiff',
        'openFile',
        'saveDocument',
      ]);
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('each capability answers from the real editor state', async () => {
    const { s, c } = await startWithClient({ files: { 'a.lua': 'local x = 1\nlocal ünï = 2\nreturn x\n', 'b.txt': 'one\ntwo\nthree\n' } });
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const r: any = await c.client.callTool({ name, arguments: args });
      assert.notEqual(r.isError, true, `${name}: ${r.content?.[0]?.text}`);
      return JSON.parse(r.content[0].text);
    };
    try {
      const a = path.join(s.workspace, 'a.lua');
      const b = path.join(s.workspace, 'b.txt');
      await s.nvim.command('edit a.lua');
      // Two diagnostics as a language server would set them; the second starts after a multibyte name (byte 9, character 7... of "local ünï").
      await s.lua(
        `local ns = vim.api.nvim_create_namespace('test-lsp')
         vim.diagnostic.set(ns, 0, {
           { lnum = 0, col = 6, end_lnum = 0, end_col = 7, severity = vim.diagnostic.severity.WARN, message = 'unused x', source = 'luals', code = 'unused-local' },
           { lnum = 1, col = 11, end_lnum = 1, end_col = 12, severity = vim.diagnostic.severity.ERROR, message = 'bad value', source = 'luals' },
         })`,
      );
      const diagnostics = await call('getDiagnostics', { path: a });
      assert.deepEqual(diagnostics.diagnostics, [
        { path: a, range: { start: { line: 2, character: 10 }, end: { line: 2, character: 11 } }, severity: 'error', message: 'bad value', source: 'luals' },
        {
          path: a,
          range: { start: { line: 1, character: 7 }, end: { line: 1, character: 8 } },
          severity: 'warning',
          message: 'unused x',
          source: 'luals',
          code: 'unused-local',
        },
      ]);
      // A buffer outside the workspace (the user's other file) has an error too: an ask for every file gets the workspace's.
      const elsewhere = makeTempDir('ide-companion-nvim-elsewhere-');
      try {
        const outside = path.join(fs.realpathSync(elsewhere.path), 'outside.lua');
        fs.writeFileSync(outside, 'x\n');
        await s.lua(
          `local buf = vim.fn.bufadd(...)
           vim.fn.bufload(buf)
           vim.diagnostic.set(vim.api.nvim_create_namespace('test-lsp'), buf, { { lnum = 0, col = 0, severity = vim.diagnostic.severity.ERROR, message = 'not in the workspace' } })`,
          outside,
        );
        assert.equal((await call('getDiagnostics', { severity: 'error' })).diagnostics.length, 1, 'workspace-wide, errors only');
      } finally {
        elsewhere.cleanup();
      }

      // openFile puts the cursor at line 3, character 2 of b.txt.
      assert.deepEqual(await call('openFile', { path: b, line: 3, column: 2 }), { opened: b, line: 3, column: 2 });
      const where = await s.lua<[string, number, number]>('return { vim.api.nvim_buf_get_name(0), vim.fn.line("."), vim.fn.col(".") }');
      assert.deepEqual(where, [b, 3, 2]);

      // openFile with endLine/endColumn selects (issue 31: Claude's startText/endText and startLine/endLine arrive so).
      await call('openFile', { path: b, line: 1, column: 2, endLine: 2, endColumn: 3 });
      await waitFor(async () => (await s.nvim.mode).mode === 'v', 'Visual mode', TIMEOUT);
      assert.deepEqual((await call('getSelection')).selection, { path: b, text: 'ne\ntw', start: { line: 1, character: 2 }, end: { line: 2, character: 2 } });
      await s.nvim.input('<Esc>');
      await call('openFile', { path: b, line: 2, endLine: 3 });
      assert.equal((await call('getSelection')).selection.text, 'two\nthree', 'no endColumn: whole lines');
      await s.nvim.input('<Esc>');
      assert.equal((await call('getOpenEditors')).editors.find((e: any) => e.path === b).lineCount, 3);

      // Unsaved changes: b.txt edited in Neovim, not on disk.
      await s.nvim.command('normal! ggIedited ');
      const editors = (await call('getOpenEditors')).editors;
      assert.deepEqual(editors.map((e: any) => [e.path, e.isActive, e.isDirty]).sort(), [
        [a, false, false],
        [b, true, true],
      ]);
      assert.equal(editors.find((e: any) => e.path === a).languageId, 'lua');
      assert.deepEqual(await call('checkDocumentDirty', { path: b }), { isOpen: true, isDirty: true });
      assert.deepEqual(await call('checkDocumentDirty', { path: path.join(s.workspace, 'nope.txt') }), { isOpen: false, isDirty: false });
      assert.deepEqual(await call('saveDocument', { path: b }), { saved: true });
      assert.equal(fs.readFileSync(b, 'utf8'), 'edited one\ntwo\nthree\n');
      assert.deepEqual(await call('checkDocumentDirty', { path: b }), { isOpen: true, isDirty: false });

      // A live Visual selection across a multibyte line.
      await s.nvim.command('edit a.lua');
      await s.nvim.input('2G7|vll');
      await waitFor(async () => (await s.nvim.mode).mode === 'v', 'Visual mode', TIMEOUT);
      // Until Neovim's (debounced) position reaches the host, the last position it sent had none (positionIntake.ts).
      const selection = await waitFor(async () => (await call('getSelection')).selection ?? undefined, 'the selection', TIMEOUT);
      assert.deepEqual(selection, { path: a, text: 'ünï', start: { line: 2, character: 7 }, end: { line: 2, character: 9 } });
      await s.nvim.input('<Esc>');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('openFile and saveDocument refuse paths outside the workspace; Neovim is untouched', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'a\n' } });
    try {
      const outside = path.join(s.tmp, 'outside.txt');
      fs.writeFileSync(outside, 'x\n');
      for (const name of ['openFile', 'saveDocument']) {
        const r: any = await c.client.callTool({ name, arguments: { path: outside } });
        assert.equal(r.isError, true);
        assert.match(r.content[0].text, /outside the workspace/);
      }
      assert.equal(await s.lua('return vim.fn.bufnr(...)', outside), -1);
    } finally {
      await c.close();
      await s.close();
    }
  });
});

// Every optional argument left out (issue 21 part 4): the conformance suite (conformance.test.ts) runs optionalArguments.ts here.

test('the host never sends an absent field: undefined is left out of what Lua gets, at any depth (vim.NIL is truthy in Lua)', async () => {
  const sent: unknown[] = [];
  const bridge = new LuaBridge({ request: async (_method: string, args: unknown[]) => (sent.push(args[1]), null) } as never);
  await bridge.call('m', 'f', { path: '/w/a', line: 4, column: undefined }, [{ a: undefined, b: 1 }], undefined);
  assert.deepEqual(sent, [[{ path: '/w/a', line: 4 }, [{ b: 1 }], undefined]]);
  assert.deepEqual(Object.keys((sent[0] as any[])[0]), ['path', 'line']);
});
