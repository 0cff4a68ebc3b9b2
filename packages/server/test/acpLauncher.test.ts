/**
 * How an editor's terminal runs `ide-companion agent --` (shared/acpLauncher.ts,
 * what the hosts' ready carries as `acp`): the CLI of the clone or package the
 * host runs from, else `ide-companion` on PATH, else why not. Real files; the
 * argv found runs (`agent --help`).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { acpLauncher } from '@ide-companion/shared/acpLauncher';
import { makeTempDir, repoRoot } from '@ide-companion/testkit';

const CLI = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

function runs(argv: string[]): string {
  // `agent --help` in place of `agent -- COMMAND`: the argv is one a terminal can run.
  return execFileSync(argv[0]!, [...argv.slice(1, -1), '--help'], { encoding: 'utf8', timeout: 30_000 });
}

test("a host in the clone (a plugin's host/ bundle, the CLI's own bin): the clone's CLI with this Node", () => {
  for (const host of [path.join(repoRoot, 'editors', 'neovim', 'host', 'ide-companion-host.mjs'), CLI]) {
    if (!fs.existsSync(host)) continue;
    const acp = acpLauncher(host, '');
    assert.deepEqual(acp, { argv: [process.execPath, fs.realpathSync(CLI), 'agent', '--'] });
    assert.match(runs(acp.argv!), /Usage: ide-companion agent/);
  }
});

test('a host elsewhere (an installed plugin): `ide-companion` on PATH; on none, why not', () => {
  const tmp = makeTempDir('ide-companion-acp-launcher-');
  try {
    const host = path.join(tmp.path, 'plugin', 'host', 'ide-companion-bridge.mjs');
    fs.mkdirSync(path.dirname(host), { recursive: true });
    fs.writeFileSync(host, '');
    const bin = path.join(tmp.path, 'bin');
    fs.mkdirSync(bin);
    // Not executable: passed over.
    fs.writeFileSync(path.join(tmp.path, 'ide-companion'), '');
    fs.symlinkSync(CLI, path.join(bin, 'ide-companion'));
    const acp = acpLauncher(host, [tmp.path, bin].join(path.delimiter));
    assert.deepEqual(acp, { argv: [path.join(bin, 'ide-companion'), 'agent', '--'] });
    assert.match(runs(acp.argv!), /Usage: ide-companion agent/);
    const none = acpLauncher(host, tmp.path);
    assert.equal(none.argv, undefined);
    assert.match(none.missing ?? '', /`ide-companion` was not found on PATH/);
    assert.deepEqual(acpLauncher(path.join(tmp.path, 'gone.mjs'), bin), acp, 'a host file that is gone: PATH');
  } finally {
    tmp.cleanup();
  }
});
