/**
 * Against the real client: IdeClient from the pinned @google/gemini-cli-core
 * (the code inside `gemini`) finds the companion that Neovim started, sees
 * Neovim's context, and gets a diff accepted in Neovim with the user's edits.
 * IdeClient is a singleton that reads cwd, TMPDIR and env when it starts, so it
 * runs in a child process: testkit's RealIdeClient.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, ideTerminalEnv, RealIdeClient, skipUnless, waitFor } from '@ide-companion/testkit';
import { hasNvim, inProposal, startNeovim, TIMEOUT, waitForDiff, type NeovimSession } from './harness.js';

const cli = findGeminiCli();
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') || skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

/** The real IdeClient, started the way `gemini` run in Neovim's terminal would be: cwd, TMPDIR and GEMINI_CLI_IDE_PID. */
function startIdeClient(s: NeovimSession, idePid = s.pid): Promise<RealIdeClient> {
  return RealIdeClient.start(cli!, { cwd: s.workspace, env: ideTerminalEnv({ tmpdir: s.tmp, idePid }), timeoutMs: TIMEOUT * 3 });
}

describe('Neovim companion with the real Gemini CLI client', { skip, timeout: 180_000 }, () => {
  test('IdeClient connects to Neovim, sees its context, and an openDiff accepted in Neovim returns the edited text', async () => {
    const s = await startNeovim({ files: { 'app.ts': 'const a = 1;\n' } });
    await s.discovery();
    const client = await startIdeClient(s);
    try {
      const status = await client.connect();
      assert.equal(status['status'], 'connected', String(status['details']));
      assert.equal(status['ide'], 'Neovim');
      assert.equal(status['diffing'], true);

      const file = path.join(s.workspace, 'app.ts');
      await s.nvim.command('edit app.ts');
      await s.nvim.input('0fa');
      const pushed = await client.waitFor(
        (e) => e.event === 'context' && e['context']?.workspaceState?.openFiles?.[0]?.cursor?.character === 7,
        'context with the cursor on "a"',
      );
      assert.equal(pushed['context'].workspaceState.openFiles[0].path, file);

      client.send({ cmd: 'openDiff', filePath: file, newContent: 'const a = 2;\n' });
      const d = await waitForDiff(s, file);
      await s.lua("vim.api.nvim_buf_set_lines(..., 1, 1, false, {'// reviewed in Neovim'})", d.proposal);
      await inProposal(s, d.proposal, 'write');
      const result = await client.waitFor((e) => e.event === 'diffResult' && e['filePath'] === file, 'the diff outcome');
      assert.deepEqual(result['result'], { status: 'accepted', content: 'const a = 2;\n// reviewed in Neovim\n' });
    } finally {
      await client.stop();
      await s.close();
    }
  });

  test('the CLI killed (SIGKILL) while the user edits its proposal: the edits stay in a scratch buffer, said so, the file untouched; the next CLI connects', async () => {
    const s = await startNeovim({ files: { 'app.ts': 'const a = 1;\n' } });
    await s.discovery();
    let client = await startIdeClient(s);
    try {
      assert.equal((await client.connect())['status'], 'connected');
      const file = path.join(s.workspace, 'app.ts');
      client.send({ cmd: 'openDiff', filePath: file, newContent: 'const a = 2;\n' });
      const d = await waitForDiff(s, file);
      await s.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, {'const a = 3; // the user'})", d.proposal);
      await client.kill('SIGKILL');
      // Its stream closed and did not reopen: the session ends, and with it the diff (no one can take an answer).
      await waitFor(async () => (await s.lua<number>("return #require('ide_companion.diff').list()")) === 0, 'the diff to be closed', TIMEOUT * 2);
      assert.equal(await s.lua('return vim.api.nvim_buf_is_valid(...)', d.proposal), true, 'the proposal buffer is kept');
      assert.deepEqual(await s.lua('return vim.api.nvim_buf_get_lines(..., 0, -1, false)', d.proposal), ['const a = 3; // the user']);
      assert.equal(await s.lua('return vim.bo[...].buftype', d.proposal), 'nofile');
      assert.equal(await s.lua('return vim.api.nvim_buf_is_valid(...)', d.original), false, 'the on-disk side is gone');
      assert.match(await s.messages(), /the Gemini CLI session that proposed app\.ts went away; the proposal is kept in its buffer \(:w FILE saves it\)/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'const a = 1;\n', 'the file on disk is untouched');
      client = await startIdeClient(s);
      // Timed from its connect (the CLI's own start is not the companion's): the issue asks for 2 s.
      const started = Date.now();
      assert.equal((await client.connect())['status'], 'connected');
      assert.ok(Date.now() - started < 2_000, `the next CLI connected in ${Date.now() - started} ms`);
    } finally {
      await client.stop();
      await s.close();
    }
  });

  test('the CLI killed (SIGKILL) after the user accepted and before it wrote: the accepted text comes back in a kept buffer, said so; the file untouched', async () => {
    const s = await startNeovim({ files: { 'app.ts': 'const a = 1;\n' } });
    await s.discovery();
    const client = await startIdeClient(s);
    try {
      assert.equal((await client.connect())['status'], 'connected');
      const file = path.join(s.workspace, 'app.ts');
      client.send({ cmd: 'openDiff', filePath: file, newContent: 'const a = 2;\n' });
      const d = await waitForDiff(s, file);
      await s.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, {'const a = 3; // accepted by the user'})", d.proposal);
      await inProposal(s, d.proposal, 'write');
      const result = await client.waitFor((e) => e.event === 'diffResult' && e['filePath'] === file, 'the diff outcome');
      assert.equal(result['result'].status, 'accepted');
      // The CLI heard the accept; it dies before it writes the file.
      await client.kill('SIGKILL');
      const kept = await waitFor(
        async () => {
          const bufs = await s.lua<Array<{ buf: number; lines: string[]; buftype: string }>>(
            "local out = {} for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.api.nvim_buf_get_name(b):match('^ide%-companion://%d+/proposed') then table.insert(out, { buf = b, lines = vim.api.nvim_buf_get_lines(b, 0, -1, false), buftype = vim.bo[b].buftype }) end end return out",
          );
          // Shown again, then kept: a plain buffer once the keeping is done.
          return bufs.find((b) => b.lines.join('\n') === 'const a = 3; // accepted by the user' && b.buftype === 'nofile');
        },
        'the accepted text back in a buffer',
        TIMEOUT * 2,
      );
      assert.equal(await s.lua('return vim.bo[...].modifiable', kept.buf), true, 'the user can still edit and save it');
      // Issue 30: the kept buffer's window said ":w accepts", which nothing takes any more.
      const hint = await s.lua<string>(
        "local w = vim.fn.win_findbuf(...)[1] if not w then return '' end return vim.fn.has('nvim-0.8') == 1 and vim.wo[w].winbar or vim.wo[w].statusline",
        kept.buf,
      );
      assert.doesNotMatch(hint, /:w accepts/);
      assert.match(hint, /kept: the Gemini CLI session went away · :w FILE saves it/);
      assert.equal(await s.lua<number>("return #require('ide_companion.diff').list()"), 0, 'no diff is pending');
      assert.match(await s.messages(), /the Gemini CLI session that proposed app\.ts went away; the proposal is kept in its buffer \(:w FILE saves it\)/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'const a = 1;\n', 'the file on disk is untouched');
    } finally {
      await client.stop();
      await s.close();
    }
  });

  // Issue 21: the user accepts while the CLI is already dead (its session not yet ended): the accept reaches no one.
  test('the CLI killed (SIGKILL) and the user accepts before its session ends: the accepted text comes back in a kept buffer, said so', async () => {
    const s = await startNeovim({ files: { 'app.ts': 'const a = 1;\n' } });
    await s.discovery();
    const client = await startIdeClient(s);
    try {
      assert.equal((await client.connect())['status'], 'connected');
      const file = path.join(s.workspace, 'app.ts');
      client.send({ cmd: 'openDiff', filePath: file, newContent: 'const a = 2;\n' });
      const d = await waitForDiff(s, file);
      await s.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, {'const a = 3; // accepted into the void'})", d.proposal);
      await client.kill('SIGKILL');
      await inProposal(s, d.proposal, 'write');
      await waitFor(
        async () =>
          (
            await s.lua<string[][]>(
              "local out = {} for _, b in ipairs(vim.api.nvim_list_bufs()) do if vim.api.nvim_buf_get_name(b):match('^ide%-companion://%d+/proposed') and vim.bo[b].buftype == 'nofile' then table.insert(out, vim.api.nvim_buf_get_lines(b, 0, -1, false)) end end return out",
            )
          ).find((lines) => lines.join('\n') === 'const a = 3; // accepted into the void'),
        'the accepted text back in a kept buffer',
        TIMEOUT * 2,
      );
      assert.match(await s.messages(), /the Gemini CLI session that proposed app\.ts went away; the proposal is kept in its buffer \(:w FILE saves it\)/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'const a = 1;\n', 'the file on disk is untouched');
    } finally {
      await client.stop();
      await s.close();
    }
  });

  test('with two Neovims on one folder, the client connects to the one its terminal names by pid', async () => {
    const first = await startNeovim();
    const second = await startNeovim({ sameFolderAs: first });
    try {
      await first.discovery();
      await second.discovery();
      const sessions = async (n: NeovimSession) => ((await n.lua<unknown[]>('return require("ide_companion.host").state.sessions')) ?? []).length;
      for (const [target, other] of [
        [second, first],
        [first, second],
      ] as const) {
        const [targetBefore, otherBefore] = [await sessions(target), await sessions(other)];
        const client = await startIdeClient(first, target.pid);
        try {
          const status = await client.connect();
          assert.equal(status['status'], 'connected', String(status['details']));
          await waitFor(async () => (await sessions(target)) === targetBefore + 1, `a session in Neovim ${target.pid}`, TIMEOUT);
          assert.equal(await sessions(other), otherBefore);
        } finally {
          await client.stop();
        }
        // Its session ends with it (its stream closed and did not reopen), before the next round counts.
        await waitFor(async () => (await sessions(target)) === targetBefore, `the session in Neovim ${target.pid} to end`, TIMEOUT);
      }
    } finally {
      await second.close();
      await first.close();
    }
  });
});
