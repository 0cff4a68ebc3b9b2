/**
 * Issue 36: the agents Vim's help and README name for g:ide_companion_agents
 * are the host's (shared/agentPaths.ts AGENTS and the agents that borrow a
 * face); a new agent fails here until they name it. The plugin passes the
 * list on as it is and the host refuses an unknown name clearly
 * (editors/jsonlines/test/bridge.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot, waitFor } from '@ide-companion/testkit';
import { skipVim, startVim, TIMEOUT } from './harness.js';
import { AGENT_DISPLAY_NAMES, AGENTS, FACE_OF } from '@ide-companion/shared/agentPaths';

const VIM = path.join(repoRoot, 'editors', 'vim');

test("g:ide_companion_agents's help names every agent the host knows, and the README each by name", () => {
  const help = fs.readFileSync(path.join(VIM, 'doc', 'ide-companion.txt'), 'utf8');
  const start = help.indexOf('*g:ide_companion_agents*');
  assert.ok(start >= 0, 'the help has the option');
  const entry = help.slice(start, help.indexOf('*g:', start + 1));
  const named = [...entry.matchAll(/'([a-z]+)'/g)].map((m) => m[1]).filter((name) => name !== 'all');
  assert.deepEqual(named.sort(), [...AGENTS, ...Object.keys(FACE_OF)].sort());
  const readme = fs.readFileSync(path.join(VIM, 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const line = readme.slice(readme.indexOf('Qwen Code, Claude Code'), readme.indexOf('connect too'));
  const others = Object.values(AGENT_DISPLAY_NAMES).filter((name) => name !== AGENT_DISPLAY_NAMES.gemini);
  assert.deepEqual(
    others.filter((name) => !line.includes(name)),
    [],
    'the README names each',
  );
});

// Issue 36: the plugin passes any name on; the host refuses an unknown one and Vim shows why (its status and health).
test("an unknown agent in g:ide_companion_agents: the start fails with the host's words, naming the known agents", { skip: skipVim }, async () => {
  const s = await startVim({ waitForCompanion: false, vimrc: ["let g:ide_companion_agents = ['gemini', 'nosuch']"] });
  try {
    const state = await waitFor(
      async () => {
        const st = await s.expr<{ status: string; lastError: string }>('ide_companion#host#state()');
        return st.lastError !== '' && st.status !== 'starting' ? st : undefined;
      },
      'the start to fail',
      TIMEOUT,
    );
    assert.match(state.lastError, /unknown agent "nosuch": choose from gemini, qwen, claude, copilot, codex, amp, droid, opencode/);
    assert.equal(fs.existsSync(s.discoveryDir) && fs.readdirSync(s.discoveryDir).length > 0, false, 'no discovery file');
  } finally {
    await s.close();
  }
});
