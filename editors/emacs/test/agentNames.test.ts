/**
 * Issue 36: the agents Emacs offers (`ide-companion-agents`'s choices, its
 * docstring, the README's row) are the host's (shared/agentPaths.ts AGENTS
 * and the agents that borrow a face); a new agent fails here until they name
 * it. Any other name still reaches the host, which refuses it clearly
 * (editors/jsonlines/test/bridge.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot, waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { startEmacs, TIMEOUT } from './harness.js';
import { AGENTS, FACE_OF } from '@ide-companion/shared/agentPaths';

const KNOWN = [...AGENTS, ...Object.keys(FACE_OF)].sort();
const EMACS = path.join(repoRoot, 'editors', 'emacs');

test('ide-companion-agents offers every agent the host knows, its docstring and the README name each', () => {
  const el = fs.readFileSync(path.join(EMACS, 'ide-companion-options.el'), 'utf8');
  const start = el.indexOf('(defcustom ide-companion-agents ');
  assert.ok(start >= 0, 'the defcustom is there');
  const form = el.slice(start, el.indexOf('(defcustom', start + 1));
  const [doc, type] = form.split(':type');
  assert.deepEqual([...type!.matchAll(/\(const "([a-z]+)"\)/g)].map((m) => m[1]).sort(), KNOWN, 'its choices');
  assert.match(type!, /\(string :tag /, 'and any other name, for the host to judge');
  assert.deepEqual(
    KNOWN.filter((name) => !doc!.includes(`\\"${name}\\"`)),
    [],
    'its docstring names each',
  );
  const readme = fs.readFileSync(path.join(EMACS, 'README.md'), 'utf8');
  const row = readme.split('\n').find((l) => l.startsWith('| `ide-companion-agents` |'));
  assert.ok(row, 'the README has its row');
  assert.deepEqual(
    KNOWN.filter((name) => !row.includes(`"${name}"`)),
    [],
    "the README's row names each",
  );
});

// Issue 36: Emacs passes any name on; the host refuses an unknown one and Emacs keeps its words as the last error.
test("an unknown agent in ide-companion-agents: the start fails with the host's words, naming the known agents", { skip: skipEmacsInTmux }, async () => {
  const s = await startEmacs({ init: `(setq ide-companion-agents '("gemini" "nosuch"))` });
  try {
    const error = await waitFor(
      async () => (await s.evalJson<string | null>('(or ide-companion--last-error :null)')) ?? undefined,
      'the start to fail',
      TIMEOUT,
    );
    assert.match(error, /could not start: .*unknown agent "nosuch": choose from gemini, qwen, claude, copilot, codex, amp, droid, opencode/);
    assert.equal(fs.existsSync(s.discoveryDir) && fs.readdirSync(s.discoveryDir).length > 0, false, 'no discovery file');
  } finally {
    await s.close();
  }
});
