/**
 * Claude Code (issue 19), the real pinned CLI, with what is Neovim's own:
 * :GeminiSend puts the file's lines into its prompt as an @-mention, and the
 * status lines list it. Connecting, the selection, and a proposal edited,
 * accepted or rejected are the conformance suite's (conformance.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claudeCommand, findClaudeCode, makeClaudeHome, skipUnless, startAnthropicMock, waitClaudeIdeConnected, waitFor, which } from '@ide-companion/testkit';
import { besideNeovim } from './agentBeside.js';
import { hasNvim, TIMEOUT } from './harness.js';

const claude = findClaudeCode();
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(claude !== undefined, 'Claude Code 2.1.332', 'run scripts/install-claude-code.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test(":GeminiSend puts Neovim's lines into Claude Code's prompt as an @-mention; the status lines list Claude Code", { skip, timeout: 240_000 }, async (t) => {
  const { s, model, tui } = await besideNeovim(
    t,
    { files: { 'a.txt': 'original line\nsecond line\n' } },
    () => startAnthropicMock([{ text: 'Done.' }]),
    [160, 50],
  );
  // The harness gave the host CLAUDE_CONFIG_DIR=tmp/home/.claude: where Claude Code with HOME=tmp/home looks.
  const { home, claudeDir } = makeClaudeHome(path.join(s.tmp, 'home'), [s.workspace]);
  const info = await s.lua<{ port: number }>('return require("ide_companion.host").state.info');
  assert.ok(fs.existsSync(path.join(claudeDir, 'ide', `${info.port}.lock`)), 'the host wrote the lock file');
  tui.start(claudeCommand(claude!, { home, baseUrl: model.baseUrl }), { cwd: s.workspace });
  assert.match(await waitClaudeIdeConnected(tui, 'Neovim'), /Neovim/);
  await waitFor(
    async () => /Claude Code: claude-code /.test((await s.lua<string[]>("return require('ide_companion').status_lines()")).join('\n')),
    'the status lines to list Claude Code',
    TIMEOUT,
  );
  await s.nvim.command('edit a.txt');
  await s.nvim.command('2GeminiSend');
  await waitFor(() => /a\.txt#L2/.test(tui.screen()), "the mention in Claude Code's prompt", 30_000).catch((err: Error) => {
    throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
  });
  await tui.submit('what is this');
  await waitFor(() => (model.agentRequests()[0] ?? '').includes('@a.txt#L2 what is this'), ':GeminiSend put line 2 into the prompt', 60_000);
});
