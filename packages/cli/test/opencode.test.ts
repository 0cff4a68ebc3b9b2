/**
 * opencode (issue 31), the real pinned CLI, against `ide-companion serve`:
 * started in the project in another terminal, it finds serve through the
 * Claude face's lock file (`~/.claude/ide`), dials its WebSocket with the
 * token and no subprotocol, and serve names it opencode (its initialize's
 * clientInfo), not Claude Code. Before: refused (no subprotocol), and when
 * taken, named Claude Code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findOpencode, OPENCODE_AGENT_PROMPT, opencodeCommand, skipUnless, startOpenAiMock, which } from '@ide-companion/testkit';
import { serveDirs, startServe } from './support/serveInTmux.js';

const opencode = findOpencode();
const skip =
  skipUnless(opencode !== undefined, 'opencode 1.18.33', 'run scripts/install-opencode.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test('opencode in the project connects to ide-companion serve, and serve names it opencode', { skip, timeout: 180_000 }, async (t) => {
  const dirs = serveDirs('ide-companion-opencode-serve-');
  const { project, tmpdir } = dirs;
  const home = path.join(dirs.root, 'home');
  fs.mkdirSync(home);
  const model = await startOpenAiMock([{ text: 'Done.' }], OPENCODE_AGENT_PROMPT);
  const { serve, tui } = await startServe(t, dirs, model, { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude') }, `cd ${project} && gemini`, [180, 50]);
  assert.equal(fs.readdirSync(path.join(home, '.claude', 'ide')).filter((name) => name.endsWith('.lock')).length, 1, 'serve wrote the lock file');
  tui.start(opencodeCommand(opencode!, { home, baseUrl: model.baseUrl, tmpdir }), { cwd: project });
  await serve.waitForText('1 CLI session connected (opencode)', 90_000).catch((err: Error) => {
    throw new Error(`${err.message}\n--- serve ---\n${serve.screen()}\n--- opencode ---\n${tui.screen()}`);
  });
  assert.doesNotMatch(serve.screen(), /connected \(Claude Code\)/);
});
