/**
 * A plugin from git whose build step did not run has no host: it runs the host of the `ide-companion`
 * package on PATH, and :GeminiHealth says which host it found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ideCompanionOnPath, makeTempDir, skipUnless, which } from '@ide-companion/testkit';
import { PLUGIN_ROOT } from '../src/pluginFiles.js';

const vim = which('vim');
const skip = skipUnless(vim !== undefined, 'vim', 'apt-get install -y vim');

function found(plugin: string, PATH: string, out: string): string[] {
  const r = spawnSync(
    vim!,
    ['-Nu', 'NONE', '-i', 'NONE', '-es', '--cmd', `set rtp^=${plugin}`, '-c', `call writefile(ide_companion#host#found(), '${out}')`, '-c', 'qa!'],
    { encoding: 'utf8', env: { ...process.env, PATH }, timeout: 20_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  return fs.readFileSync(out, 'utf8').split('\n').filter(Boolean);
}

test('without a host of its own the plugin runs the ide-companion package host on PATH, and says so', { skip }, () => {
  const dir = makeTempDir();
  try {
    // The plugin alone (no host/, no ../jsonlines/host/), and an `ide-companion` linked into a package with a host.
    const plugin = path.join(dir.path, 'from-git', 'vim');
    for (const entry of ['plugin', 'autoload']) fs.cpSync(path.join(PLUGIN_ROOT, entry), path.join(plugin, entry), { recursive: true });
    const { host, binDir } = ideCompanionOnPath(dir.path, 'editors/jsonlines/host/ide-companion-bridge.mjs');
    const system = `${path.dirname(vim!)}:/usr/bin:/bin`;
    const out = path.join(dir.path, 'found');
    assert.deepEqual(found(plugin, `${binDir}:${system}`, out), [host, 'the ide-companion package on PATH']);
    // The plugin's own copy comes first.
    fs.mkdirSync(path.join(plugin, 'host'));
    fs.writeFileSync(path.join(plugin, 'host', 'ide-companion-bridge.mjs'), '// its own\n');
    assert.deepEqual(found(plugin, `${binDir}:${system}`, out), [path.join(plugin, 'host', 'ide-companion-bridge.mjs'), "the plugin's own"]);
  } finally {
    dir.cleanup();
  }
});
