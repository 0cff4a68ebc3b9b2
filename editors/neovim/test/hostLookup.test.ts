/**
 * A plugin from git whose build step did not run has no host of its own: it runs the host of the
 * `ide-companion` package on PATH, and :checkhealth says which host it found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ideCompanionOnPath, makeTempDir, skipUnless, which } from '@ide-companion/testkit';
import { PLUGIN_ROOT } from '../src/pluginFiles.js';

const nvim = which('nvim');
const skip = skipUnless(nvim !== undefined, 'nvim', 'apt-get install -y neovim');

/** A plugin copy without host/, and an `ide-companion` on PATH linked into a package that has one. */
function layout(dir: string) {
  const plugin = path.join(dir, 'plugin-from-git');
  for (const entry of ['plugin', 'lua']) fs.cpSync(path.join(PLUGIN_ROOT, entry), path.join(plugin, entry), { recursive: true });
  const { host, binDir } = ideCompanionOnPath(dir, 'editors/neovim/host/ide-companion-host.mjs');
  return { plugin, host, bin: binDir };
}

function resolved(plugin: string, PATH: string, options = '{}'): string {
  const lua = `local c = require('ide_companion.config').resolve(${options}); io.stdout:write(c.host .. '|' .. c.host_origin)`;
  const r = spawnSync(nvim!, ['--headless', '-u', 'NONE', '-i', 'NONE', '--cmd', `set rtp^=${plugin}`, '-c', `lua ${lua}`, '-c', 'qa!'], {
    encoding: 'utf8',
    env: { ...process.env, PATH },
    timeout: 20_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return (r.stdout + r.stderr).trim();
}

test('without a host of its own the plugin runs the ide-companion package host on PATH, and says so', { skip }, () => {
  const dir = makeTempDir();
  try {
    const { plugin, host, bin } = layout(dir.path);
    const PATH = `${bin}:${path.dirname(nvim!)}:/usr/bin:/bin`;
    assert.equal(resolved(plugin, PATH), `${fs.realpathSync(host)}|the ide-companion package on PATH`);
    // The `host` option wins; with no package on PATH the plugin's own path stays (and :checkhealth says it is missing).
    assert.equal(resolved(plugin, PATH, "{ host = '/elsewhere/host.mjs' }"), '/elsewhere/host.mjs|the `host` option');
    assert.equal(resolved(plugin, `${path.dirname(nvim!)}:/usr/bin:/bin`), `${plugin}/host/ide-companion-host.mjs|the plugin's own`);
  } finally {
    dir.cleanup();
  }
});
