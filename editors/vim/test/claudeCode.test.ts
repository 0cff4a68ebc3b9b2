/**
 * Claude Code (issue 19), the real pinned CLI, against the companion this Vim
 * runs: only the lock file and WebSocket of the Claude face. Started with
 * --ide in the workspace it connects (:GeminiStatus lists it), :GeminiSend
 * puts a line into its prompt, and its proposed write opens as Vim's diff:
 * the user's rewrite saved with :w is what lands, byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  claudeCommand,
  claudeProposeWriteTurns,
  claudeSubmit,
  findClaudeCode,
  makeClaudeHome,
  makeTempDir,
  skipUnless,
  startAnthropicMock,
  Tmux,
  waitClaudeIdeConnected,
  waitFor,
} from '@ide-companion/testkit';
import { gotoBuffer, skipVim, startVim, TIMEOUT, waitForDiff } from './harness.js';

const claude = findClaudeCode();
const skip = skipVim || skipUnless(claude !== undefined, 'Claude Code 2.1.332', 'run scripts/install-claude-code.sh');

test(
  "Claude Code connects to this Vim and sees its selection; its proposed write rewritten in Vim's diff and saved with :w lands byte for byte, a rejected one changes nothing",
  { skip, timeout: 240_000 },
  async (t) => {
    const dirs = makeTempDir('ide-companion-vim-claude-');
    const { home, claudeDir } = makeClaudeHome(path.join(dirs.path, 'home'), []);
    const s = await startVim({ files: { 'a.txt': 'original line\n' }, env: { CLAUDE_CONFIG_DIR: claudeDir } });
    const file = path.join(s.workspace, 'a.txt');
    makeClaudeHome(home, [s.workspace]);
    // The first prompt reads and writes; the second proposes again (the file already read).
    const model = await startAnthropicMock([
      ...claudeProposeWriteTurns(file, 'line from the model\n'),
      { tool: 'Write', args: { file_path: file, content: 'rejected text\n' } },
      { text: 'Done.' },
    ]);
    const tui = new Tmux(160, 50);
    t.after(async () => {
      await tui.stop();
      await model.close();
      await s.close();
      dirs.cleanup();
    });
    const { content } = await s.discovery();
    assert.ok(fs.existsSync(path.join(claudeDir, 'ide', `${content.port}.lock`)), "Vim's host wrote the lock file");
    tui.start(claudeCommand(claude!, { home, baseUrl: model.baseUrl }), { cwd: s.workspace });
    assert.match(await waitClaudeIdeConnected(tui, 'Vim'), /Vim/);
    const status = await waitFor(
      async () => {
        const text = await s.ex('GeminiStatus');
        return text.includes('connected (Claude Code)') ? text : undefined;
      },
      'Vim to list Claude Code',
      TIMEOUT,
    );
    assert.match(status, /agents: Gemini CLI, Qwen Code, Claude Code/);
    // "Send to agent": line 1 of a.txt lands in Claude Code's prompt.
    await s.ex('edit a.txt | 1GeminiSend');
    await waitFor(() => /a\.txt#L1/.test(tui.screen()), "the mention in Claude Code's prompt", 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    // The user selects a word in Vim (Visual mode) before asking: Claude Code's request carries it.
    s.type('gg0wve');
    await new Promise((resolve) => setTimeout(resolve, 700));
    await claudeSubmit(tui, 'please change a.txt');
    const diff = await waitForDiff(s, file, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    assert.deepEqual(await s.expr(`getbufline(${diff.proposal}, 1, '$')`), ['line from the model']);
    await gotoBuffer(s, diff.proposal);
    s.type('ccthe user’s line 😀');
    s.keys('Escape');
    s.type(':w');
    s.keys('Enter');
    await waitFor(() => fs.readFileSync(file, 'utf8') === 'the user’s line 😀\n', "Claude Code to write the user's text", TIMEOUT * 3).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tui.screen()}`);
    });
    assert.ok((model.agentRequests()[0] ?? '').includes(`The user selected the lines 1 to 1 from ${file}:\\nline\\n`), "Vim's selection reaches the model");

    await claudeSubmit(tui, 'once more');
    const second = await waitForDiff(s, file, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    await gotoBuffer(s, second.proposal);
    await s.ex('GeminiReject');
    await waitFor(() => tui.screen().includes('Rejected write to a.txt'), 'Claude Code to hear the rejection', 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    assert.equal(fs.readFileSync(file, 'utf8'), 'the user’s line 😀\n', 'the rejected proposal never reached the file');
  },
);
