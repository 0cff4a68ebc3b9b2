/**
 * Issue 27, sizes: a message from Neovim larger than the cap
 * (MAX_MESSAGE_BYTES) is dropped by the host's reader, logged, and the next
 * message is read. Before, the `neovim` package decoded it whole: past the
 * engine's string limit its decoder stopped, and the host heard nothing more
 * from Neovim (no context, no diff outcome) while it kept running.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { skipUnless, waitFor } from '@ide-companion/testkit';
import { hasNvim, openFiles, startWithClient, TIMEOUT } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');

test('a 540 MiB notification from Neovim is dropped and logged; the next events still become context', { skip, timeout: 4 * TIMEOUT }, async () => {
  const { s, c } = await startWithClient();
  try {
    const file = path.join(s.workspace, 'after.txt');
    fs.writeFileSync(file, 'x\n');
    // Past the cap and past the 512 MiB a Node string holds.
    await s.lua(`vim.rpcnotify(require('ide_companion.host').state.job, 'event', string.rep('a', 540 * 1024 * 1024))`);
    // Queued behind it on the channel: read only once the big one is out of the way.
    await s.nvim.command(`edit ${file}`);
    await waitFor(() => openFiles(c.lastContext() ?? {}).some((f) => f.path === file && f.isActive) || undefined, 'the next event as context', 3 * TIMEOUT);
    assert.match(fs.readFileSync(path.join(s.tmp, 'ide-companion.log'), 'utf8'), /refused a message from Neovim/);
    assert.equal(await s.lua(`return require('ide_companion').is_running()`), true);
  } finally {
    await c.close();
    await s.close();
  }
});
