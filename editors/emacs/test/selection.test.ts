/**
 * Issue 39 item 11, checked on Emacs: select, then ask in the agent's
 * terminal. Neovim cleared its Visual selection within 1 ms of the move into
 * the terminal, so both selection tools answered empty. In Emacs the region
 * is the file buffer's own (its mark stays active): it survives the move into
 * the agent's terminal and typing there, until the user moves in the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { sleep, waitFor } from '@ide-companion/testkit';
import type { IdeContext } from '@ide-companion/protocol';
import { skipEmacsInTmux } from './emacs.js';
import { connectFromDiscovery, mxGemini, quitRegion, startEmacs, TIMEOUT } from './harness.js';

const skip = skipEmacsInTmux;

const activeFile = (context: IdeContext | undefined) => context?.workspaceState?.openFiles?.find((f) => f.isActive);

test("the region survives the move into the agent's terminal and typing there, until point moves in the file", { skip, timeout: 120_000 }, async (t) => {
  const emacs = await startEmacs({ files: { 'a.txt': 'alpha\nbeta gamma\n' }, open: ['a.txt'] });
  t.after(() => emacs.close());
  const client = await connectFromDiscovery((await emacs.discovery()).content);
  t.after(() => client.close());
  const file = path.join(emacs.workspace, 'a.txt');
  await emacs.eval(`(setq ide-companion-gemini-command "cat")`);

  emacs.tmux.keys('M-<', 'C-n', 'C-Space', 'M-f');
  await client.waitForContext((c) => activeFile(c)?.selectedText === 'beta', 'the region in the context');
  assert.equal((await client.getSelection())?.text, 'beta');

  // The user moves into the agent's terminal (M-x ide-companion-gemini) and types there.
  await mxGemini(emacs, 'term');
  emacs.tmux.type('what does it do');
  await sleep(1_000);
  assert.equal(await emacs.evalJson<string>('(buffer-name (window-buffer (selected-window)))'), '*gemini*', 'the keyboard is in the terminal');
  assert.equal((await client.getSelection())?.text, 'beta', 'getSelection, from the terminal');
  const context = client.lastContext();
  assert.equal(activeFile(context)?.path, file);
  assert.equal(activeFile(context)?.selectedText, 'beta', 'the context, from the terminal');

  // Back in the file, C-g: point has not moved, the region stands in the context.
  await emacs.eval(`(progn (select-window (get-buffer-window (find-buffer-visiting ${JSON.stringify(file)}))) t)`);
  await quitRegion(emacs);
  await sleep(500);
  assert.equal(activeFile(client.lastContext())?.selectedText, 'beta', 'the context after C-g');
  // Then point moves: the region ends, as the user made it end. (C-f sent with C-g would be dropped by the quit.)
  emacs.tmux.keys('C-f');
  await waitFor(async () => (await client.getSelection()) === null, 'the region gone once point moves in the file', TIMEOUT);
  const moved = await client.waitForContext((c) => (activeFile(c)?.selectedText === undefined ? activeFile(c) : undefined), 'the context without the region');
  assert.deepEqual(moved?.cursor, { line: 2, character: 6 });
});
