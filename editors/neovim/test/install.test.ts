/** `ide-companion install neovim`: the registry's installer copies the plugin where Neovim loads it, and it starts by itself. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { neovimInstaller } from '../src/installer.js';
import { assertLeavesForeignFolder, assertUninstallLeavesTheHome, discoveryFileOf, makeTempDir, skipUnless, waitFor } from '@ide-companion/testkit';
import { parseDiscoveryFile } from '@ide-companion/protocol';
import { hasNvim, nvimPath, TIMEOUT } from './harness.js';

function sandbox() {
  const dir = makeTempDir('ide-companion-install-');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir.path,
    XDG_DATA_HOME: path.join(dir.path, 'data'),
    XDG_CONFIG_HOME: path.join(dir.path, 'config'),
    XDG_CACHE_HOME: path.join(dir.path, 'cache'),
    XDG_STATE_HOME: path.join(dir.path, 'state'),
    TMPDIR: dir.path,
  };
  for (const key of Object.keys(env)) if (key.startsWith('GEMINI_CLI_IDE_')) delete env[key];
  const target = path.join(dir.path, 'data', 'nvim', 'site', 'pack', 'ide-companion', 'start', 'ide-companion');
  return { dir, env, target };
}

describe('Neovim installer', { timeout: 120_000 }, () => {
  test('installs the runtime files, replacing its own earlier install', async () => {
    const { dir, env, target } = sandbox();
    try {
      const installer = neovimInstaller;
      assert.equal(await installer.isInstalled!({ env }), false);
      const dry = await installer.install({ env, dryRun: true });
      assert.equal(dry.success, true);
      assert.equal(fs.existsSync(target), false, 'a dry run changes nothing');
      const result = await installer.install({ env });
      assert.equal(result.success, true, result.message);
      assert.deepEqual(result.changed, [target]);
      for (const file of ['plugin/ide_companion.lua', 'lua/ide_companion/init.lua', 'doc/ide-companion.txt', 'host/ide-companion-host.mjs']) {
        assert.ok(fs.existsSync(path.join(target, file)), file);
      }
      assert.equal(fs.existsSync(path.join(target, 'src')), false, 'sources stay behind');
      assert.equal(await installer.isInstalled!({ env }), true);
      fs.writeFileSync(path.join(target, 'lua', 'stale.lua'), '');
      assert.equal((await installer.install({ env })).success, true);
      assert.equal(fs.existsSync(path.join(target, 'lua', 'stale.lua')), false, 'reinstall replaces the old copy');
    } finally {
      dir.cleanup();
    }
  });

  test('uninstall leaves the home as it was: site/pack and the folders above go if install made them, site stays if the user had it', async () => {
    const { dir, env, target } = sandbox();
    try {
      await assertUninstallLeavesTheHome(neovimInstaller, env, dir.path, target, path.join(dir.path, 'data', 'nvim', 'site'));
    } finally {
      dir.cleanup();
    }
  });

  test('refuses to replace a directory it did not write', async () => {
    const { dir, env, target } = sandbox();
    try {
      await assertLeavesForeignFolder(neovimInstaller, env, target, /not written by this installer/);
    } finally {
      dir.cleanup();
    }
  });

  test(
    'the installed plugin starts its companion when Neovim starts, with no config at all',
    { skip: skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') },
    async () => {
      const { dir, env, target } = sandbox();
      const workspace = path.join(dir.path, 'ws');
      fs.mkdirSync(workspace);
      assert.equal((await neovimInstaller.install({ env })).success, true);
      // -u NORC: no user config, but plugins and packages load as for a user.
      const nvim = spawn(nvimPath!, ['--headless', '-n', '-i', 'NONE', '-u', 'NORC'], { cwd: workspace, env, stdio: 'pipe' });
      try {
        const discoveryDir = path.join(dir.path, 'gemini', 'ide');
        const file = await waitFor(() => discoveryFileOf(discoveryDir, nvim.pid), 'the installed plugin to start a companion', TIMEOUT);
        const content = parseDiscoveryFile(fs.readFileSync(path.join(discoveryDir, file), 'utf8'));
        assert.equal(content.workspacePath, workspace);
        assert.deepEqual(content.ideInfo, { name: 'neovim', displayName: 'Neovim' });
        assert.ok(fs.existsSync(path.join(target, 'doc', 'tags')), 'setup() built the help index');
        nvim.stdin.end();
        nvim.kill('SIGTERM');
        await waitFor(() => !fs.existsSync(path.join(discoveryDir, file)), 'the discovery file removed', TIMEOUT);
      } finally {
        if (nvim.exitCode === null) nvim.kill('SIGKILL');
        dir.cleanup();
      }
    },
  );
});
