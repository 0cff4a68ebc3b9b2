/**
 * `ide-companion check`, the conformance suite that plays the real Gemini CLI,
 * passes against the companion a real Emacs runs (diffs opened, edited text
 * read back and closed by the Emacs package, an 11 MiB openDiff included).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { startEmacs } from './harness.js';

const skip = skipEmacsInTmux;

test('ide-companion check passes on the Emacs companion', { skip, timeout: 180_000 }, async (t) => {
  const emacs = await startEmacs({ files: { 'a.txt': 'a\n' }, open: ['a.txt'] });
  t.after(() => emacs.close());
  const discovery = await emacs.discovery();
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js'), 'check', '--file', discovery.path, '--json'], {
    encoding: 'utf8',
    cwd: emacs.workspace,
    // Emacs's HOME: the agents' sockets and lock files it checks are this Emacs's, not the user's (a stale
    // ~/.codex/ipc/ipc.sock of the runner's HOME failed the check).
    env: { ...process.env, TMPDIR: emacs.tmp, HOME: emacs.home },
    timeout: 150_000,
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const report = JSON.parse(r.stdout) as { results: Array<{ id: string; status: string; reason: string }>; summary: Record<string, number> };
  assert.deepEqual(
    report.results.filter((c) => c.status === 'fail' || c.status === 'warn'),
    [],
  );
  // The diff checks ran against Emacs's diff buffers, not skipped.
  for (const id of ['diff.open', 'diff.closeDiffJson', 'diff.closeDiffSilent', 'security.bodyLimit']) {
    assert.equal(report.results.find((c) => c.id === id)?.status, 'pass', id);
  }
});
