/**
 * The editor seam's optional actions on a real Emacs (emacs -nw in tmux),
 * called as MCP tools through the real MCP SDK client: diagnostics from
 * flymake, open file at a line, open editors, the region, unsaved state and save.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { connectFromDiscovery, elispString, startEmacs, TIMEOUT } from './harness.js';

const skip = skipEmacsInTmux;

/** A flymake backend standing in for a linter: an error on line 2 after a multibyte name, a note on line 1. */
const FLYMAKE_BACKEND = `
(defun test-linter (report-fn &rest _)
  (save-excursion
    (goto-char (point-min))
    (let ((note (point)))
      (forward-line 1)
      (search-forward "= ")
      (funcall report-fn
               (list (flymake-make-diagnostic (current-buffer) (point) (1+ (point)) :error "bad value")
                     (flymake-make-diagnostic (current-buffer) note (+ note 5) :note "a note"))))))
(add-hook 'find-file-hook
          (lambda ()
            (when (string-suffix-p ".el" buffer-file-name)
              (setq-local flymake-diagnostic-functions (list #'test-linter))
              (flymake-mode 1))))`;

describe('Emacs capabilities as MCP tools', { skip, timeout: 180_000 }, () => {
  test('each capability answers from the real editor state', async (t) => {
    const emacs = await startEmacs({
      files: { 'a.el': '(setq x 1)\n(setq ünï = 2)\n', 'b.txt': 'one\ntwo\nthree\n' },
      open: ['a.el'],
      init: `(require 'flymake)${FLYMAKE_BACKEND}`,
    });
    t.after(() => emacs.close());
    const c = await connectFromDiscovery((await emacs.discovery()).content);
    t.after(() => c.close());
    const call = async (name: string, args: Record<string, unknown> = {}) => {
      const r: any = await c.client.callTool({ name, arguments: args });
      assert.notEqual(r.isError, true, `${name}: ${r.content?.[0]?.text}`);
      return JSON.parse(r.content[0].text);
    };
    const a = path.join(emacs.workspace, 'a.el');
    const b = path.join(emacs.workspace, 'b.txt');

    const tools = (await c.client.listTools()).tools.map((tool) => tool.name);
    for (const name of ['openFile', 'getOpenEditors', 'getSelection', 'getDiagnostics', 'checkDocumentDirty', 'saveDocument']) {
      assert.ok(tools.includes(name), `${name} is offered`);
    }

    // flymake's diagnostics, 1-based, in characters ("(setq ünï = " is 12 characters, 14 bytes).
    const diagnostics = await waitFor(
      async () => {
        const d = (await call('getDiagnostics', { path: a })).diagnostics;
        return d.length === 2 ? d : undefined;
      },
      'flymake to report',
      TIMEOUT,
    );
    const error = diagnostics.find((d: any) => d.severity === 'error');
    assert.deepEqual(error, {
      path: a,
      range: { start: { line: 2, character: 13 }, end: { line: 2, character: 14 } },
      severity: 'error',
      message: 'bad value',
      source: 'test-linter',
    });
    assert.equal(diagnostics.find((d: any) => d.severity !== 'error').severity, 'information');
    assert.equal((await call('getDiagnostics', {})).diagnostics.length, 2, 'workspace-wide');

    // openFile puts point at line 3, character 2 of b.txt.
    await call('openFile', { path: b, line: 3, column: 2 });
    await waitFor(async () => (await emacs.evalJson<string>('(or (buffer-file-name (window-buffer (selected-window))) "")')) === b, 'b.txt visited', TIMEOUT);
    assert.deepEqual(await emacs.evalJson(`(with-current-buffer (find-buffer-visiting ${elispString(b)}) (ide-companion--position))`), {
      line: 3,
      character: 2,
    });

    // openFile with endLine/endColumn activates the region (issue 31: Claude's anchors arrive so).
    await call('openFile', { path: b, line: 1, column: 2, endLine: 2, endColumn: 3 });
    assert.deepEqual((await call('getSelection')).selection, { path: b, text: 'ne\ntw', start: { line: 1, character: 2 }, end: { line: 2, character: 3 } });
    assert.equal((await call('getOpenEditors')).editors.find((e: any) => e.path === b).lineCount, 3);
    await emacs.evalJson('(progn (with-current-buffer (window-buffer (selected-window)) (deactivate-mark)) t)');

    // Unsaved changes: b.txt edited in Emacs, not on disk.
    emacs.tmux.keys('M-<');
    emacs.tmux.type('edited ');
    await waitFor(async () => (await call('checkDocumentDirty', { path: b })).isDirty === true, 'b.txt dirty', TIMEOUT);
    assert.deepEqual(await call('checkDocumentDirty', { path: a }), { isOpen: true, isDirty: false });
    const editors = (await call('getOpenEditors')).editors;
    assert.deepEqual(editors.map((e: any) => [e.path, e.isActive, e.isDirty]).sort(), [
      [a, false, false],
      [b, true, true],
    ]);

    // The region.
    emacs.tmux.keys('C-a', 'C-Space', 'C-e');
    const selection = await waitFor(async () => (await call('getSelection')).selection ?? undefined, 'the region', TIMEOUT);
    assert.deepEqual(selection, { path: b, text: 'edited one', start: { line: 1, character: 1 }, end: { line: 1, character: 11 } });
    emacs.tmux.keys('C-g');
    await waitFor(async () => (await call('getSelection')).selection === null, 'no region', TIMEOUT);

    // saveDocument writes what the user sees.
    assert.equal((await call('saveDocument', { path: b })).saved, true);
    assert.equal(fs.readFileSync(b, 'utf8'), 'edited one\ntwo\nthree\n');
    assert.deepEqual(await call('checkDocumentDirty', { path: b }), { isOpen: true, isDirty: false });
  });
});

// Every optional argument left out (issue 21 part 4): the conformance suite (conformance.test.ts) runs optionalArguments.ts here.
