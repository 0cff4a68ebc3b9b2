/**
 * Claude Code (issue 19), the real pinned CLI, against `ide-companion serve`:
 * started in the project in another terminal with --ide, it finds serve
 * through the lock file the Claude face writes and connects over its
 * WebSocket; a proposed write edited in $EDITOR and accepted lands byte for
 * byte, a rejected one leaves the file untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  claudeCommand,
  claudeProposeWriteTurns,
  findClaudeCode,
  makeClaudeHome,
  skipUnless,
  startAnthropicMock,
  waitClaudeIdeConnected,
  waitFor,
  which,
  editorWriting,
} from '@ide-companion/testkit';
import { serveDirs, startServe } from './support/serveInTmux.js';

const claude = findClaudeCode();
const skip =
  skipUnless(claude !== undefined, 'Claude Code 2.1.332', 'run scripts/install-claude-code.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test(
  "claude --ide in the project connects to ide-companion serve; its proposed write, edited in $EDITOR and accepted in serve's terminal, lands byte for byte, and a rejected one changes nothing",
  { skip, timeout: 240_000 },
  async (t) => {
    const dirs = serveDirs('ide-companion-claude-serve-');
    const { project } = dirs;
    const { home, claudeDir } = makeClaudeHome(path.join(dirs.root, 'home'), [project]);
    const file = path.join(project, 'a.txt');
    fs.writeFileSync(file, 'original line\n');
    // What the user's $EDITOR writes in serve: CRLF, non-ASCII, no final newline.
    const edited = 'the user’s line\r\nsecond 😀';
    const editor = editorWriting(dirs.root, edited);
    // The first prompt reads and writes; the second proposes again (the file already read).
    const model = await startAnthropicMock([
      ...claudeProposeWriteTurns(file, 'line from the model\n'),
      { tool: 'Write', args: { file_path: file, content: 'rejected text\n' } },
      { text: 'Done.' },
    ]);
    const { serve, tui } = await startServe(t, dirs, model, { CLAUDE_CONFIG_DIR: claudeDir, EDITOR: editor }, 'claude there connects with --ide', [160, 50]);
    const locks = fs.readdirSync(path.join(claudeDir, 'ide')).filter((name) => name.endsWith('.lock'));
    assert.equal(locks.length, 1, 'serve wrote one lock file');
    tui.start(claudeCommand(claude!, { home, baseUrl: model.baseUrl }), { cwd: project });
    assert.match(await waitClaudeIdeConnected(tui, 'IDE Companion (terminal)'), /IDE Companion \(terminal\)/);
    await serve.waitForText('(Claude Code)', 10_000);

    await tui.submit('please change a.txt');
    await serve.waitForText(`Claude Code proposes a change to ${file}`, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- claude ---\n${tui.screen()}`);
    });
    await serve.waitForText('[a]ccept', 10_000);
    serve.type('e');
    await serve.waitForText('(with your edits)', 10_000);
    serve.type('a');
    await waitFor(() => fs.readFileSync(file, 'utf8') === edited, "Claude Code to write the user's text", 60_000).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- claude ---\n${tui.screen()}`);
    });

    await tui.submit('once more');
    await serve.waitForText('+rejected text', 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- claude ---\n${tui.screen()}`);
    });
    serve.type('r');
    await waitFor(() => tui.screen().includes('Rejected write to a.txt'), 'Claude Code to hear the rejection', 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- claude ---\n${tui.screen()}`);
    });
    assert.equal(fs.readFileSync(file, 'utf8'), edited, 'the rejected proposal never reached the file');
  },
);
