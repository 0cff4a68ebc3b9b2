/**
 * Issue 27 item 1 on a real headless Neovim, through the real MCP SDK client:
 * what is Neovim's own, a window whose folder is `/`. The FIFO and the link
 * swapped while the editor opens the file are the conformance suite's, for
 * every end (packages/testkit/src/conformance/hostilePaths.ts).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { skipUnless, waitFor } from '@ide-companion/testkit';
import { hasNvim, startWithClient, TIMEOUT } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');
const text = (r: any) => r.content[0].text as string;

describe('Neovim: hostile paths', { skip, timeout: 60_000 }, () => {
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
