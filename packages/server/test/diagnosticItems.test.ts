/** getDiagnostics from an end's unshaped items (Vim's quickfix, ALE, vim-lsp, coc.nvim): shaped once, here. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { makeTempDir } from '@ide-companion/testkit';
import type { DiagnosticItem } from '@ide-companion/protocol';
import { charColumn, diagnosticsFromItems } from '../src/diagnosticItems.js';

const dir = makeTempDir();
after(() => dir.cleanup());
const file = path.join(fs.realpathSync(dir.path), 'a.c');
fs.writeFileSync(file, '');
const link = path.join(fs.realpathSync(dir.path), 'link.c');
fs.symlinkSync(file, link);

const qf = (fields: Record<string, unknown>): DiagnosticItem => ({ kind: 'qf', path: file, source: 'quickfix', ...fields });

test('byte columns become characters where the line is known; otherwise stay', () => {
  assert.equal(charColumn('é€🚀x', 10), 4, 'é (2 bytes), € (3), 🚀 (4): byte 10 is the fourth character');
  assert.equal(charColumn(null, 10), 10);
  assert.equal(charColumn('abc', 0), 1);
});

test('quickfix items: positions in characters, severity from the type letter, code from nr, untyped ones information', () => {
  const { diagnostics } = diagnosticsFromItems([
    qf({ lnum: 2, col: 4, end_lnum: 2, end_col: 6, type: 'e', text: 'bad', nr: 12, line: 'éé x', endLine: 'éé x' }),
    qf({ lnum: 3, col: 5, vcol: 1, type: 'W', text: 'screen columns', line: '\t\tx' }),
    qf({ lnum: 4, col: 0, text: 'from :grep' }),
    qf({ lnum: 0, text: 'no line' }),
    qf({ lnum: 5, valid: 0, text: 'not valid' }),
    { kind: 'qf', path: '', lnum: 1, text: 'no file' },
  ]);
  assert.deepEqual(diagnostics, [
    {
      path: file,
      range: { start: { line: 2, character: 3 }, end: { line: 2, character: 4 } },
      severity: 'error',
      message: 'bad',
      source: 'quickfix',
      code: '12',
    },
    {
      path: file,
      range: { start: { line: 3, character: 5 }, end: { line: 3, character: 5 } },
      severity: 'warning',
      message: 'screen columns',
      source: 'quickfix',
    },
    {
      path: file,
      range: { start: { line: 4, character: 1 }, end: { line: 4, character: 1 } },
      severity: 'information',
      message: 'from :grep',
      source: 'quickfix',
    },
  ]);
});

test('LSP diagnostics (vim-lsp) are 0-based with numeric severities; coc.nvim entries 1-based with names', () => {
  const { diagnostics } = diagnosticsFromItems([
    {
      kind: 'lsp',
      path: file,
      source: 'clangd',
      diagnostic: { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, severity: 2, message: 'unused', code: 7 },
    },
    { kind: 'lsp', path: file, diagnostic: { message: 'no range' } },
    { kind: 'coc', path: file, lnum: 9, col: 2, severity: 'Hint', message: 'hint', source: 'tsserver', code: null },
    { kind: 'coc', path: file, message: 'bare' },
  ]);
  assert.deepEqual(diagnostics, [
    {
      path: file,
      range: { start: { line: 1, character: 1 }, end: { line: 1, character: 4 } },
      severity: 'warning',
      message: 'unused',
      source: 'clangd',
      code: '7',
    },
    { path: file, range: { start: { line: 9, character: 2 }, end: { line: 9, character: 2 } }, severity: 'hint', message: 'hint', source: 'tsserver' },
    { path: file, range: { start: { line: 1, character: 1 }, end: { line: 1, character: 1 } }, severity: 'error', message: 'bare', source: 'coc' },
  ]);
});

test('one file asked: its items only, through a symlink too; the same problem twice (quickfix and loclist) listed once', () => {
  const other = path.join(dir.path, 'b.c');
  const items = [
    qf({ lnum: 1, col: 1, type: 'E', text: 'twice' }),
    { ...qf({ lnum: 1, col: 1, type: 'E', text: 'twice' }), source: 'loclist' },
    { ...qf({ lnum: 1, col: 1, type: 'E', text: 'by the link' }), path: link },
    { ...qf({ lnum: 1, text: 'elsewhere' }), path: other },
  ];
  assert.deepEqual(
    diagnosticsFromItems(items, file).diagnostics.map((d) => [d.path, d.message, d.source]),
    [
      [file, 'twice', 'quickfix'],
      [link, 'by the link', 'quickfix'],
    ],
  );
  assert.equal(diagnosticsFromItems(items).diagnostics.length, 3, 'the whole workspace: every file');
  assert.deepEqual(
    diagnosticsFromItems(items, link).diagnostics.map((d) => d.message),
    ['twice', 'by the link'],
  );
});

test("Neovim's vim.diagnostic: 0-based lines and byte columns, severity numbers", () => {
  const raw = { kind: 'nvim', path: file, lnum: 0, col: 3, end_lnum: 2, end_col: 1, message: 'm' } as const;
  assert.deepEqual(diagnosticsFromItems([{ ...raw, severity: 2, source: 'tsc', code: 2304 }]).diagnostics, [
    {
      path: file,
      range: { start: { line: 1, character: 4 }, end: { line: 3, character: 2 } },
      severity: 'warning',
      message: 'm',
      source: 'tsc',
      code: '2304',
    },
  ]);
  assert.deepEqual(
    [1, 3, 4, 9].map((severity) => diagnosticsFromItems([{ ...raw, severity }]).diagnostics[0]!.severity),
    ['error', 'information', 'hint', 'error'],
  );
  assert.ok(!('source' in diagnosticsFromItems([{ ...raw, severity: 1 }]).diagnostics[0]!));
  // The lines' text turns bytes into characters: "é" is 2 bytes.
  const multibyte = diagnosticsFromItems([{ ...raw, severity: 1, line: 'éé-x', endLine: 'éz' }]).diagnostics[0]!;
  assert.deepEqual(multibyte.range, { start: { line: 1, character: 3 }, end: { line: 3, character: 2 } });
});

test("Emacs's items (flymake, flycheck): 1-based characters, severity from the type's category or the level, the workspace when no file is asked", () => {
  const emacs = (fields: Record<string, unknown>): DiagnosticItem => ({ kind: 'emacs', path: file, ...fields });
  const outside = path.join(path.dirname(fs.realpathSync(dir.path)), 'elsewhere.el');
  const items = [
    emacs({ start: { line: 2, character: 13 }, end: { line: 2, character: 14 }, severity: ':error', message: 'bad value', source: 'test-linter' }),
    emacs({ start: { line: 3, character: 1 }, end: { line: 3, character: 6 }, severity: 'flymake-warning', message: 'w' }),
    emacs({ start: { line: 4, character: 2 }, severity: ':note', message: 'a note' }),
    emacs({ start: { line: 5, character: 1 }, end: {}, severity: 'error', message: 'flycheck', source: 'emacs-lisp', code: 'E1' }),
    emacs({ start: { line: 6 }, severity: 'info', message: {} }),
    { kind: 'emacs', path: outside, start: { line: 1, character: 1 }, severity: 'error', message: 'not in the workspace' } as DiagnosticItem,
  ];
  const { diagnostics } = diagnosticsFromItems(items, undefined, [dir.path]);
  assert.deepEqual(diagnostics, [
    {
      path: file,
      range: { start: { line: 2, character: 13 }, end: { line: 2, character: 14 } },
      severity: 'error',
      message: 'bad value',
      source: 'test-linter',
    },
    { path: file, range: { start: { line: 3, character: 1 }, end: { line: 3, character: 6 } }, severity: 'warning', message: 'w' },
    { path: file, range: { start: { line: 4, character: 2 }, end: { line: 4, character: 2 } }, severity: 'information', message: 'a note' },
    {
      path: file,
      range: { start: { line: 5, character: 1 }, end: { line: 5, character: 1 } },
      severity: 'error',
      message: 'flycheck',
      source: 'emacs-lisp',
      code: 'E1',
    },
    { path: file, range: { start: { line: 6, character: 1 }, end: { line: 6, character: 1 } }, severity: 'information', message: '' },
  ]);
  // What Emacs's flymake and flycheck hand over (ide-companion-tests.el), as getDiagnostics answered it before.
  assert.deepEqual(
    diagnosticsFromItems([
      emacs({
        start: { line: 2, character: 1 },
        end: { line: 2, character: 4 },
        severity: 'flymake-error',
        message: 'bad thing',
        source: 'ide-companion-tests--flymake-backend',
      }),
      emacs({
        start: { line: 1, character: 1 },
        end: { line: 1, character: 2 },
        severity: 'flymake-note',
        message: 'a note',
        source: 'ide-companion-tests--flymake-backend',
      }),
      emacs({
        start: { line: 2, character: 5 },
        end: { line: 2, character: 8 },
        severity: 'warning',
        message: 'careful',
        source: 'ide-companion-tests-checker',
        code: 'W1',
      }),
    ]).diagnostics.map((d) => [d.severity, d.range, d.code]),
    [
      ['error', { start: { line: 2, character: 1 }, end: { line: 2, character: 4 } }, undefined],
      ['information', { start: { line: 1, character: 1 }, end: { line: 1, character: 2 } }, undefined],
      ['warning', { start: { line: 2, character: 5 }, end: { line: 2, character: 8 } }, 'W1'],
    ],
  );
  // A file asked for is answered wherever it is; without roots, everything is.
  assert.equal(diagnosticsFromItems(items, outside, [dir.path]).diagnostics[0]!.message, 'not in the workspace');
  assert.equal(diagnosticsFromItems(items).diagnostics.length, 6);
});
