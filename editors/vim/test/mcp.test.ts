/**
 * `ide-companion mcp` with a real Vim (its plugin over the JSON-lines host):
 * the MCP SDK client over stdio gets the quickfix list as diagnostics, and
 * openFile moves Vim's cursor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { repoRoot, waitFor } from '@ide-companion/testkit';
import { skipVim, startVim, TIMEOUT, vimString } from './harness.js';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

test('ide-companion mcp with Vim: every capability listed, quickfix diagnostics, openFile moves the cursor', { skip: skipVim, timeout: 120_000 }, async () => {
  const s = await startVim({ files: { 'q.txt': 'héllo x\n', 'b.txt': 'one\ntwo words\n' }, open: ['q.txt'] });
  const client = new Client({ name: 'test-agent', version: '1' });
  try {
    await s.discovery();
    const q = path.join(s.workspace, 'q.txt');
    const b = path.join(s.workspace, 'b.txt');
    await s.expr(`setqflist([{'filename': ${vimString(q)}, 'lnum': 1, 'col': 8, 'type': 'E', 'text': 'bad x'}])`);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GEMINI_CLI_IDE_')) env[k] = v;
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], cwd: s.workspace, env: { ...env, TMPDIR: s.tmp }, stderr: 'ignore' }),
    );
    const names = await waitFor(
      async () => {
        const list = (await client.listTools()).tools.map((t) => t.name).sort();
        return list.length === 7 && !(await client.callTool({ name: 'getWorkspaceFolders', arguments: {} })).isError ? list : undefined;
      },
      'a connection to Vim',
      TIMEOUT,
    );
    assert.deepEqual(names, ['checkDocumentDirty', 'getDiagnostics', 'getOpenEditors', 'getSelection', 'getWorkspaceFolders', 'openFile', 'saveDocument']);
    const r: any = await client.callTool({ name: 'getDiagnostics', arguments: { path: q } });
    assert.notEqual(r.isError, true, r.content[0].text);
    assert.deepEqual(
      JSON.parse(r.content[0].text).diagnostics.map((d: any) => [d.severity, d.range.start.line, d.range.start.character, d.message]),
      [['error', 1, 7, 'bad x']],
    );
    const opened: any = await client.callTool({ name: 'openFile', arguments: { path: b, line: 2, column: 5 } });
    assert.notEqual(opened.isError, true, opened.content[0].text);
    await waitFor(async () => (await s.expr<string>("expand('%:p')")) === b, 'b.txt shown', TIMEOUT);
    assert.deepEqual(await s.expr('[line("."), charcol(".")]'), [2, 5]);
  } finally {
    await client.close();
    await s.close();
  }
});
