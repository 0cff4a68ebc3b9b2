/**
 * `ide-companion agent` in a real terminal (tmux): readline owns Ctrl-C there (raw
 * mode, so the agent in our process group gets no SIGINT): the first cancels the
 * running turn with session/cancel and the agent lives on, Up recalls the last
 * prompt, and two at the idle prompt quit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { shellCommand, skipUnless, Tmux, waitFor, which } from '@ide-companion/testkit';
import { BIN, setup } from './support/clientCommands.js';
import { FAKE_AGENT, logLines } from './support/agentTerminal.js';

const skip = skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install tmux');

test('agent in a terminal: Ctrl-C cancels the turn (the agent lives on), Up recalls the prompt, Ctrl-C twice quits', { skip, timeout: 90_000 }, async () => {
  const s = await setup();
  const tmux = new Tmux(160, 40);
  const log = path.join(s.tmp, 'log.jsonl');
  try {
    const env = {
      TMPDIR: s.tmp,
      GEMINI_CLI_IDE_PID: String(process.pid),
      REMOTE_CONTAINERS: '1',
      QWEN_HOME: path.join(s.tmp, 'qwen'),
      CLAUDE_CONFIG_DIR: path.join(s.tmp, 'claude'),
    };
    tmux.start(shellCommand([process.execPath, BIN, 'agent', '--', process.execPath, FAKE_AGENT, 'hang', log], env), { cwd: s.workspace });
    await tmux.waitForText('[agent: fake-agent 1.0.0');
    await tmux.waitForText(/^> ?$/m);
    await tmux.submit('a first prompt');
    await tmux.waitForText('Hello from the fake agent.');
    tmux.keys('C-c');
    await tmux.waitForText('[turn ended: cancelled]');
    const messages = () => (fs.existsSync(log) ? (logLines(fs.readFileSync(log, 'utf8')) as Array<{ method?: string }>) : []);
    await waitFor(() => messages().some((m) => m.method === 'session/cancel'), 'session/cancel sent');
    tmux.keys('Up');
    await waitFor(() => /^> a first prompt$/m.test(tmux.screen()), 'the prompt recalled from history');
    tmux.keys('Enter');
    // The same agent answers a second turn: Ctrl-C did not reach it.
    await waitFor(() => (tmux.screen().match(/Hello from the fake agent\./g) ?? []).length === 2, 'a second turn from the same agent');
    tmux.keys('C-c');
    await waitFor(() => (tmux.screen().match(/\[turn ended: cancelled\]/g) ?? []).length === 2, 'the second turn cancelled');
    tmux.keys('C-c');
    await tmux.waitForText('[Ctrl-C again to quit]');
    tmux.keys('C-c');
    assert.equal(await tmux.waitForExit(10_000), 0);
    assert.doesNotMatch(tmux.screen(), /IDE: disconnected/, 'our own stop is not told as a disconnection');
  } finally {
    await tmux.stop();
    await s.cleanup();
  }
});
