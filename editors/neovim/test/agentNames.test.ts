/**
 * Issue 36: the agents Neovim's help names for setup's `agents` are the
 * host's (shared/agentPaths.ts AGENTS and the agents that borrow a face); a
 * new agent fails here until the help names it. config.lua checks only that
 * `agents` is a table: the host judges the names and refuses an unknown one
 * clearly (parseAgents, as editors/jsonlines/test/bridge.test.ts shows).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot, skipUnless, waitFor } from '@ide-companion/testkit';
import { hasNvim, startNeovim, TIMEOUT } from './harness.js';
import { AGENT_DISPLAY_NAMES, AGENTS, FACE_OF } from '@ide-companion/shared/agentPaths';

const NVIM = path.join(repoRoot, 'editors', 'neovim');

test("setup's `agents` in the help: its list is every agent the host knows, and the paragraph names each", () => {
  const help = fs.readFileSync(path.join(NVIM, 'doc', 'ide-companion.txt'), 'utf8');
  const line = help.split('\n').find((l) => /^\s*agents = nil,\s*-- of \{/.test(l));
  assert.ok(line, 'the setup example lists the agents');
  const listed = [...line.slice(line.indexOf('{'), line.indexOf('}')).matchAll(/'([a-z]+)'/g)].map((m) => m[1]);
  assert.deepEqual(listed.sort(), [...AGENTS, ...Object.keys(FACE_OF)].sort());
  const start = help.indexOf('`agents` chooses');
  assert.ok(start >= 0, 'the help says what `agents` chooses');
  const paragraph = help.slice(start, help.indexOf('`amp_edit_file` chooses', start)).replace(/\s+/g, ' ');
  assert.deepEqual(
    Object.values(AGENT_DISPLAY_NAMES).filter((name) => !paragraph.includes(name)),
    [],
    'the paragraph names each',
  );
});

// Issue 36: an unknown name in setup's `agents` threw in the host's hello and was only logged ("dropped a notification"): Neovim said nothing.
test(
  "an unknown agent in `agents` fails the start with the host's words, naming the known agents; nothing is written",
  { skip: skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') },
  async () => {
    const s = await startNeovim({ start: false });
    try {
      await s.lua(`require('ide_companion').setup({ agents = { 'gemini', 'nosuch' } }); require('ide_companion').start()`);
      const error = await waitFor(
        () => s.lua<string | undefined>('return require("ide_companion.host").state.last_error or false'),
        'the start to fail',
        TIMEOUT,
      );
      assert.match(
        await s.messages(),
        /companion failed to start: unknown agent "nosuch": choose from gemini, qwen, claude, copilot, codex, amp, droid, opencode/,
      );
      assert.match(error, /unknown agent|host exited/);
      assert.equal(fs.existsSync(s.discoveryDir) && fs.readdirSync(s.discoveryDir).length > 0, false, 'no discovery file');
    } finally {
      await s.close();
    }
  },
);
