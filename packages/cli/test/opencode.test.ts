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
import {
  findOpencode,
  IDE_COMPANION_BIN,
  makeTempDir,
  OPENCODE_AGENT_PROMPT,
  opencodeCommand,
  shellCommand,
  skipUnless,
  startOpenAiMock,
  Tmux,
  which,
} from '@ide-companion/testkit';

const opencode = findOpencode();
const skip =
  skipUnless(opencode !== undefined, 'opencode 1.18.33', 'run scripts/install-opencode.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test('opencode in the project connects to ide-companion serve, and serve names it opencode', { skip, timeout: 180_000 }, async (t) => {
  const tmp = makeTempDir('ide-companion-opencode-serve-');
  const project = path.join(tmp.path, 'proj');
  const tmpdir = path.join(tmp.path, 'tmp');
  const home = path.join(tmp.path, 'home');
  for (const dir of [project, tmpdir, home]) fs.mkdirSync(dir);
  const model = await startOpenAiMock([{ text: 'Done.' }], OPENCODE_AGENT_PROMPT);
  const serve = new Tmux(160, 40);
  const tui = new Tmux(180, 50);
  t.after(async () => {
    await tui.stop();
    await serve.stop();
    await model.close();
    tmp.cleanup();
  });
  serve.start(
    shellCommand([process.execPath, IDE_COMPANION_BIN, 'serve', '--no-color'], { TMPDIR: tmpdir, HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude') }),
    {
      cwd: project,
    },
  );
  await serve.waitForText(`cd ${project} && gemini`, 60_000);
  assert.equal(fs.readdirSync(path.join(home, '.claude', 'ide')).filter((name) => name.endsWith('.lock')).length, 1, 'serve wrote the lock file');
  tui.start(opencodeCommand(opencode!, { home, baseUrl: model.baseUrl, tmpdir }), { cwd: project });
  await serve.waitForText('1 CLI session connected (opencode)', 90_000).catch((err: Error) => {
    throw new Error(`${err.message}\n--- serve ---\n${serve.screen()}\n--- opencode ---\n${tui.screen()}`);
  });
  assert.doesNotMatch(serve.screen(), /connected \(Claude Code\)/);
});
