/**
 * Gemini CLI elsewhere reaches this Neovim (issue 18, docs/remote.md): in a
 * --network=none container, in its own --sandbox, and over SSH to a remote
 * that cannot see this loopback, each with the real gemini 0.61.0 (testkit's
 * remoteFlows). The diff opens in Neovim; the user rewrites the proposal and
 * accepts with :w.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { containerFlow, type EditorHost, ORIGINAL_TEXT, remoteFlowSkips, sandboxFlow, skipUnless, sshFlow } from '@ide-companion/testkit';
import { bufferLines, hasNvim, inProposal, startNeovim, waitForDiff } from './harness.js';

const skip = remoteFlowSkips(skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim'));

const EDITED_LINE = 'the user’s line, written in Neovim';

/** A headless Neovim with the plugin on a fresh project (a.txt, seen.txt); closed with the test. */
async function neovimHost(t: TestContext): Promise<EditorHost> {
  const s = await startNeovim({ files: { 'a.txt': ORIGINAL_TEXT, 'seen.txt': 'seen\n' } });
  t.after(() => s.close());
  await s.discovery();
  const scratch = path.join(s.tmp, 'scratch');
  fs.mkdirSync(scratch);
  return {
    displayName: 'Neovim',
    workspace: s.workspace,
    tmpdir: s.tmp,
    scratch,
    focusSeen: () => s.nvim.command('edit seen.txt'),
    async editAndAccept(file, expect) {
      const diff = await waitForDiff(s, file);
      // The left side is the file the agent writes (the remote one over SSH), not this machine's copy.
      if (expect) assert.equal(`${(await bufferLines(s, diff.original)).join('\n')}\n`, expect.base);
      await s.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, { '" + EDITED_LINE + "' })", diff.proposal);
      await inProposal(s, diff.proposal, 'write');
      return `${EDITED_LINE}\n`;
    },
    describe: () => {
      const log = path.join(s.tmp, 'ide-companion.log');
      return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').slice(-20).join('\n') : '(no host log)';
    },
  };
}

describe('gemini elsewhere, with Neovim here', { timeout: 8 * 60_000 }, () => {
  test(
    'in a --network=none container from `ide-companion container --podman`: connected, container paths for the model, :w lands on the host byte for byte',
    { skip: skip.podman },
    async (t) => {
      await containerFlow(t, await neovimHost(t));
    },
  );

  test(
    "in `gemini --sandbox` with `ide-companion sandbox`'s exports: connected inside the sandbox, :w lands byte for byte",
    { skip: skip.podman },
    async (t) => {
      await sandboxFlow(t, await neovimHost(t));
    },
  );

  test(
    'over `ide-companion ssh` to a remote that cannot reach this loopback: connected, remote paths for the model, :w lands in the remote file',
    { skip: skip.ssh },
    async (t) => {
      await sshFlow(t, await neovimHost(t));
    },
  );
});
