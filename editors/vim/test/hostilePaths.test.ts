/**
 * Issue 27 item 1 on a real Vim, through the real MCP SDK client: a FIFO in the
 * workspace is refused before Vim sees it, and a link swapped while Vim opens
 * the file is caught by the companion's re-check, which has Vim close the
 * buffer it opened (the `closeFile` action).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipVim, startWithClient, vimString } from './harness.js';

const text = (r: any) => r.content[0].text as string;

describe('Vim: hostile paths', { skip: skipVim, timeout: 90_000 }, () => {
  test('openFile on a FIFO is refused and Vim still answers; a link swapped while Vim opens the file is refused and its buffer closed', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'mine\n' } });
    try {
      const fifo = path.join(s.workspace, 'pipe');
      assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
      let r: any = await c.client.callTool({ name: 'openFile', arguments: { path: fifo } });
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /a FIFO, not a regular file/);
      assert.equal(await s.expr('1 + 1'), 2);

      const file = path.join(s.workspace, 'a.txt');
      const secret = path.join(s.tmp, 'secret.txt');
      fs.writeFileSync(secret, 'secret\n');
      fs.symlinkSync(secret, `${file}.swap`);
      // The swap inside Vim's open, before it reads the file: the worst moment, made deterministic.
      await s.ex(`autocmd BufReadPre ${file} ++once call rename(${vimString(`${file}.swap`)}, ${vimString(file)})`);
      r = await c.client.callTool({ name: 'openFile', arguments: { path: file } });
      assert.equal(r.isError, true, text(r));
      assert.match(text(r), /no longer leads to the file that was checked/);
      assert.equal(fs.readlinkSync(file), secret, 'the swap happened');
      assert.equal(await s.expr(`bufexists(${vimString(file)})`), 0, 'the buffer Vim opened is gone');
    } finally {
      await c.close();
      await s.close();
    }
  });
});
