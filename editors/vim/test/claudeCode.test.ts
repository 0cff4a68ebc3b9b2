/**
 * Claude Code (issue 19), the real pinned CLI, with what is Vim's own:
 * :GeminiStatus lists it among the agents, and :GeminiSend puts a line into
 * its prompt. Connecting, the selection, and a proposal edited, accepted or
 * rejected are the conformance suite's (conformance.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  claudeCommand,
  findClaudeCode,
  makeClaudeHome,
  makeTempDir,
  skipUnless,
  startAnthropicMock,
  Tmux,
  waitClaudeIdeConnected,
  waitFor,
} from '@ide-companion/testkit';
import { skipVim, startVim, TIMEOUT } from './harness.js';

const claude = findClaudeCode();
const skip = skipVim || skipUnless(claude !== undefined, 'Claude Code 2.1.332', 'run scripts/install-claude-code.sh');

test(':GeminiStatus lists Claude Code connected to this Vim, and :GeminiSend puts a line into its prompt', { skip, timeout: 240_000 }, async (t) => {
  const dirs = makeTempDir('ide-companion-vim-claude-');
  const { home, claudeDir } = makeClaudeHome(path.join(dirs.path, 'home'), []);
  const s = await startVim({ files: { 'a.txt': 'original line\n' }, env: { CLAUDE_CONFIG_DIR: claudeDir } });
  makeClaudeHome(home, [s.workspace]);
  const model = await startAnthropicMock([{ text: 'Done.' }]);
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
      return text.includes('1 CLI session (Claude Code)') ? text : undefined;
    },
    'Vim to list Claude Code',
    TIMEOUT,
  );
  assert.match(status, /agents served: Gemini CLI, Qwen Code, Claude Code/);
  // "Send to agent": line 1 of a.txt lands in Claude Code's prompt.
  await s.ex('edit a.txt | 1GeminiSend');
  await waitFor(() => /a\.txt#L1/.test(tui.screen()), "the mention in Claude Code's prompt", 30_000).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
  });
  await tui.submit('what is this');
  await waitFor(() => (model.agentRequests()[0] ?? '').includes('@a.txt#L1 what is this'), ':GeminiSend put line 1 into the prompt', 60_000);
});
