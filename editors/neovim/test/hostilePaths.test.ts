/**
 * Issue 27 item 1 on a real headless Neovim, through the real MCP SDK client:
 * a FIFO inside the workspace given to openFile froze Neovim (`:edit` blocks
 * reading it; the call and the next one timed out at 5 s), because the
 * companion checked where a path was, not what it was. And a link swapped
 * while Neovim opened the file showed the user another file: the companion
 * now re-checks after the open and has Neovim close what it opened.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipUnless, waitFor } from '@ide-companion/testkit';
import { hasNvim, startWithClient, TIMEOUT } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');
const text = (r: any) => r.content[0].text as string;

describe('Neovim: hostile paths', { skip, timeout: 60_000 }, () => {
  test('openFile on a FIFO in the workspace is refused at once and Neovim still answers', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'one\ntwo\n' } });
    try {
      const fifo = path.join(s.workspace, 'pipe');
      assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
      const started = performance.now();
      const r: any = await c.client.callTool({ name: 'openFile', arguments: { path: fifo } });
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /a FIFO, not a regular file/);
      assert.ok(performance.now() - started < 1000);
      // Neovim answers at once, and the next openFile works.
      const answered = performance.now();
      assert.equal(await s.lua('return 1 + 1'), 2);
      assert.ok(performance.now() - answered < 1000, 'Neovim answered within 1 s');
      const a = path.join(s.workspace, 'a.txt');
      const ok: any = await c.client.callTool({ name: 'openFile', arguments: { path: a, line: 2 } });
      assert.notEqual(ok.isError, true, text(ok));
      assert.equal(await s.lua('return vim.api.nvim_buf_get_name(0)'), a);
      assert.equal(await s.lua('return vim.fn.bufnr(...)', fifo), -1, 'the FIFO was never opened');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('a link swapped while Neovim opens the file: openFile is refused and Neovim closes the buffer it opened', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'mine\n' } });
    try {
      const file = path.join(s.workspace, 'a.txt');
      const secret = path.join(s.tmp, 'secret.txt');
      fs.writeFileSync(secret, 'secret\n');
      fs.symlinkSync(secret, `${file}.swap`);
      // The swap happens inside Neovim's open, before it reads the file: deterministic, as a racing process at the worst moment.
      await s.lua(
        `local file, swap = ...
         vim.api.nvim_create_autocmd('BufReadPre', { pattern = file, once = true, callback = function() assert(vim.loop.fs_rename(swap, file)) end })`,
        file,
        `${file}.swap`,
      );
      const r: any = await c.client.callTool({ name: 'openFile', arguments: { path: file } });
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /no longer leads to the file that was checked/);
      assert.equal(fs.readlinkSync(file), secret, 'the swap happened');
      assert.equal(await s.lua('return vim.fn.bufloaded(...)', file), 0, 'the buffer Neovim opened is closed');
    } finally {
      await c.close();
      await s.close();
    }
  });

  test('a window whose folder is `/` (:lcd /): `/` is refused as a workspace root, the user is told, and the real root stays', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'mine\n' } });
    try {
      await s.nvim.command('vsplit | lcd /');
      await waitFor(async () => /workspace folder "\/" refused: it is the file system's root/.test(await s.messages()), 'the warning shown', TIMEOUT);
      const { content } = await s.discovery();
      assert.equal(content.workspacePath, s.workspace);
      const r: any = await c.client.callTool({ name: 'openFile', arguments: { path: '/etc/passwd' } });
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /outside the workspace folders/);
    } finally {
      await c.close();
      await s.close();
    }
  });
});
