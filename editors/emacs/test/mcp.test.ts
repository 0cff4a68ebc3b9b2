/**
 * `ide-companion mcp` with a real Emacs (emacs -nw in tmux, its package over
 * the JSON-lines host): the MCP SDK client over stdio gets flymake's
 * diagnostics, and openFile visits the file at the line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot, waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { elispString, startEmacs, TIMEOUT } from './harness.js';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');
const skip = skipEmacsInTmux;

/** A flymake backend standing in for a linter: one error on line 2. */
const FLYMAKE_BACKEND = `
(defun test-linter (report-fn &rest _)
  (save-excursion
    (goto-char (point-min))
    (forward-line 1)
    (search-forward "= ")
    (funcall report-fn (list (flymake-make-diagnostic (current-buffer) (point) (1+ (point)) :error "bad value")))))
(add-hook 'find-file-hook
          (lambda ()
            (when (string-suffix-p ".el" buffer-file-name)
              (setq-local flymake-diagnostic-functions (list #'test-linter))
              (flymake-mode 1))))`;

test('ide-companion mcp with Emacs: every capability listed, flymake diagnostics, openFile visits the file', { skip, timeout: 180_000 }, async (t) => {
  const emacs = await startEmacs({
    files: { 'a.el': '(setq x 1)\n(setq y = 2)\n', 'b.txt': 'one\ntwo\nthree\n' },
    open: ['a.el'],
    init: `(require 'flymake)${FLYMAKE_BACKEND}`,
  });
  t.after(() => emacs.close());
  await emacs.discovery();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GEMINI_CLI_IDE_')) env[k] = v;
  const client = new Client({ name: 'test-agent', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], cwd: emacs.workspace, env: { ...env, TMPDIR: emacs.tmp }, stderr: 'ignore' }),
  );
  t.after(() => client.close());
  const a = path.join(emacs.workspace, 'a.el');
  const b = path.join(emacs.workspace, 'b.txt');
  const names = await waitFor(
    async () => {
      const list = (await client.listTools()).tools.map((tool) => tool.name).sort();
      return list.length === 7 && !(await client.callTool({ name: 'getWorkspaceFolders', arguments: {} })).isError ? list : undefined;
    },
    'a connection to Emacs',
    TIMEOUT,
  );
  assert.deepEqual(names, ['checkDocumentDirty', 'getDiagnostics', 'getOpenEditors', 'getSelection', 'getWorkspaceFolders', 'openFile', 'saveDocument']);
  const diagnostics = await waitFor(
    async () => {
      const r: any = await client.callTool({ name: 'getDiagnostics', arguments: { path: a } });
      assert.notEqual(r.isError, true, r.content[0].text);
      const d = JSON.parse(r.content[0].text).diagnostics;
      return d.length === 1 ? d : undefined;
    },
    'flymake to report',
    TIMEOUT,
  );
  assert.deepEqual(
    diagnostics.map((d: any) => [d.severity, d.range.start.line, d.message]),
    [['error', 2, 'bad value']],
  );
  const opened: any = await client.callTool({ name: 'openFile', arguments: { path: b, line: 3, column: 2 } });
  assert.notEqual(opened.isError, true, opened.content[0].text);
  await waitFor(async () => (await emacs.evalJson<string>('(or (buffer-file-name (window-buffer (selected-window))) "")')) === b, 'b.txt visited', TIMEOUT);
  assert.deepEqual(await emacs.evalJson(`(with-current-buffer (find-buffer-visiting ${elispString(b)}) (ide-companion--position))`), { line: 3, character: 2 });
});
