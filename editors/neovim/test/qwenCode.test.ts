/**
 * Qwen Code (issue 19), the real pinned CLI, against the companion this Neovim
 * runs: no plugin of Qwen's own, only the lock file the Qwen face writes.
 * Started in the workspace, `/ide status` says Connected to Neovim.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  findQwenCode,
  makeQwenHome,
  qwenCommand,
  skipUnless,
  proposeWriteTurns,
  startOpenAiMock,
  submitLine,
  Tmux,
  waitFor,
  waitQwenIdeConnected,
  which,
} from '@ide-companion/testkit';
import { hasNvim, inProposal, startNeovim, TIMEOUT, waitForDiff } from './harness.js';

const qwen = findQwenCode();
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(qwen !== undefined, 'Qwen Code 0.24.4', 'run scripts/install-qwen-code.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test(
  'Qwen Code started in the workspace finds the Qwen lock file of this Neovim: /ide status says Connected to Neovim',
  { skip, timeout: 180_000 },
  async (t) => {
    const s = await startNeovim({ files: { 'a.txt': 'hello\n' } });
    const tui = new Tmux(200, 50);
    t.after(async () => {
      await tui.stop();
      await s.close();
    });
    await s.discovery();
    const qwenHome = path.join(s.tmp, 'qwen-home');
    const lock = await s.lua<{ port: number }>('return require("ide_companion.host").state.info');
    assert.ok(fs.existsSync(path.join(qwenHome, 'ide', `${lock.port}.lock`)), 'the host wrote the lock file');
    makeQwenHome(qwenHome);
    tui.start(qwenCommand(qwen!, { home: path.join(s.tmp, 'home'), tmpdir: s.tmp, qwenHome }), {
      cwd: s.workspace,
    });
    assert.match(await waitQwenIdeConnected(tui), /Connected to Neovim/);
  },
);

/** Neovim on a.txt, a model that reads it and proposes a write, and Qwen Code connected, its prompt sent, the diff shown. */
async function qwenProposesInNeovim(t: TestContext) {
  const s = await startNeovim({ files: { 'a.txt': 'original line\n' } });
  const file = path.join(s.workspace, 'a.txt');
  const model = await startOpenAiMock(proposeWriteTurns(file, 'line from the model\n'));
  const tui = new Tmux(200, 50);
  t.after(async () => {
    await tui.stop();
    await model.close();
    await s.close();
  });
  await s.discovery();
  const qwenHome = makeQwenHome(path.join(s.tmp, 'qwen-home'));
  tui.start(qwenCommand(qwen!, { home: path.join(s.tmp, 'home'), tmpdir: s.tmp, qwenHome, baseUrl: model.baseUrl }), {
    cwd: s.workspace,
  });
  assert.match(await waitQwenIdeConnected(tui), /Connected to Neovim/);
  // The user selects a word in Neovim before asking: the prompt Qwen Code sends carries it.
  await s.nvim.command('edit a.txt');
  await s.nvim.input('gg0wve');
  await new Promise((resolve) => setTimeout(resolve, 500));
  await submitLine(tui, 'please change a.txt');
  const diff = await waitForDiff(s, file).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
  });
  return { s, file, tui, diff, model };
}

test(
  "Qwen Code sees Neovim's selection, and its proposed write opens as Neovim's diff; the user's edit accepted with :w is what lands, byte for byte",
  { skip, timeout: 240_000 },
  async (t) => {
    const { s, file, tui, diff, model } = await qwenProposesInNeovim(t);
    // The first request, the user's prompt: Qwen Code put the editor's context before it, the selection in it.
    const messages = (JSON.parse(model.agentRequests()[0] ?? '{}') as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
    const last = messages.filter((m) => m.role === 'user').at(-1)?.content;
    const prompt = typeof last === 'string' ? last : ((last as Array<{ text?: string }> | undefined) ?? []).map((p) => p.text ?? '').join('\n');
    assert.match(prompt, /please change a\.txt/);
    assert.ok(prompt.includes(`Active file:\n  Path: ${file}`), prompt.slice(-600));
    assert.match(prompt, /Selected text:\n```\nline\n```/);
    assert.deepEqual(await s.lua('return vim.api.nvim_buf_get_lines(..., 0, -1, false)', diff.proposal), ['line from the model']);
    await s.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, { 'the user’s line 😀' })", diff.proposal);
    await inProposal(s, diff.proposal, 'write');
    await waitFor(() => fs.readFileSync(file, 'utf8') === 'the user’s line 😀\n', "Qwen Code to write the user's text", TIMEOUT * 2).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tui.screen()}`);
    });
  },
);

test("Qwen Code's proposed write rejected in Neovim leaves the file untouched", { skip, timeout: 240_000 }, async (t) => {
  const { s, file, diff } = await qwenProposesInNeovim(t);
  await inProposal(s, diff.proposal, 'GeminiReject');
  await waitFor(async () => (await s.lua<number>("return #require('ide_companion.diff').list()")) === 0, 'the diff to close', TIMEOUT);
  // Time for Qwen Code to act on the outcome: it must not write.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  assert.equal(fs.readFileSync(file, 'utf8'), 'original line\n');
});
