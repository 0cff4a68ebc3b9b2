/** `ide-companion check`, the conformance suite, against the companion of a real Vim: nothing fails. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot } from '@ide-companion/testkit';
import { skipVim, startVim } from './harness.js';

test(
  'ide-companion check passes on the Vim companion (diffs shown and closed in Vim, capabilities answered)',
  { skip: skipVim, timeout: 300_000 },
  async () => {
    const s = await startVim({ files: { 'a.txt': 'a\n' }, open: ['a.txt'] });
    try {
      const { path: file } = await s.discovery();
      const cli = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');
      // check writes its temp files under os.tmpdir(): the same TMPDIR as Vim's companion; and Vim's HOME, so
      // the agents' sockets it checks are this Vim's, not the runner's (a stale ~/.codex/ipc/ipc.sock failed it).
      const child = spawn(process.execPath, [cli, 'check', '--file', file, '--json'], {
        env: { ...process.env, TMPDIR: s.tmp, HOME: s.home },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      const report = JSON.parse(stdout) as { exitCode: number; results: Array<{ id: string; status: string; reason: string }> };
      const failed = report.results.filter((r) => r.status === 'fail');
      assert.deepEqual(failed, [], stderr);
      assert.equal(code, 0);
      assert.equal(report.exitCode, 0);
      // Every diff check opened was closed again in Vim.
      assert.deepEqual(await s.expr('ide_companion#diff#list()'), []);
      assert.equal(await s.expr('tabpagenr("$")'), 1);
    } finally {
      await s.close();
    }
  },
);
