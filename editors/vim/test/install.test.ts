/** `ide-companion install vim`: the installer copies the plugin and the bridge host into ~/.vim/pack, and Vim starts it with no config at all. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDiscoveryFile } from '@ide-companion/protocol';
import {
  assertLeavesForeignFolder,
  assertUninstallLeavesTheHome,
  discoveryFileOf,
  makeTempDir,
  repoRoot,
  shellCommand,
  Tmux,
  waitFor,
} from '@ide-companion/testkit';
import { BRIDGE_HOST_PATH } from '@ide-companion/jsonlines';
import { vimInstaller } from '../src/installer.js';
import { hasHost, skipVim, TIMEOUT, vimPath } from './harness.js';

function sandbox() {
  const dir = makeTempDir('ide-companion-vim-install-');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir.path, TMPDIR: dir.path };
  for (const key of Object.keys(env)) if (key.startsWith('GEMINI_CLI_IDE_')) delete env[key];
  const target = path.join(dir.path, '.vim', 'pack', 'ide-companion', 'start', 'ide-companion');
  return { dir, env, target };
}

describe('Vim installer', { timeout: 120_000 }, () => {
  test(
    'installs the runtime files and the host into ~/.vim/pack (honouring $HOME), replacing only its own earlier install',
    { skip: hasHost ? false : 'the bridge host is not built' },
    async () => {
      const { dir, env, target } = sandbox();
      try {
        assert.equal(await vimInstaller.isInstalled!({ env }), false);
        const dry = await vimInstaller.install({ env, dryRun: true });
        assert.equal(dry.success, true);
        assert.equal(fs.existsSync(target), false, 'a dry run changes nothing');
        const result = await vimInstaller.install({ env });
        assert.equal(result.success, true, result.message);
        assert.deepEqual(result.changed, [target]);
        for (const file of [
          'plugin/ide_companion.vim',
          'autoload/ide_companion/host.vim',
          'doc/ide-companion.txt',
          'host/ide-companion-bridge.mjs',
          '.ide-companion-install.json',
        ]) {
          assert.ok(fs.existsSync(path.join(target, file)), file);
        }
        // The host loads the MCP SDK's side from host/chunks/ when a CLI connects: its chunks and the SDK chunk the hosts share.
        assert.deepEqual(
          fs.readdirSync(path.join(target, 'host', 'chunks')).sort(),
          [...fs.readdirSync(path.join(path.dirname(BRIDGE_HOST_PATH), 'chunks')), 'sdk.mjs'].sort(),
        );
        assert.equal(fs.existsSync(path.join(target, 'src')), false, 'sources stay behind');
        assert.equal(fs.existsSync(path.join(target, 'test')), false, 'tests stay behind');
        if (vimPath) assert.match(fs.readFileSync(path.join(target, 'doc', 'tags'), 'utf8'), /^:GeminiStatus\t/m, 'help tags built');
        assert.equal(await vimInstaller.isInstalled!({ env }), true);
        fs.writeFileSync(path.join(target, 'autoload', 'stale.vim'), '');
        assert.equal((await vimInstaller.install({ env })).success, true);
        assert.equal(fs.existsSync(path.join(target, 'autoload', 'stale.vim')), false, 'reinstall replaces the old copy');
      } finally {
        dir.cleanup();
      }
    },
  );

  test('uninstall leaves the home as it was: ~/.vim/pack and ~/.vim go if install made them, ~/.vim stays if the user had it', async () => {
    const { dir, env, target } = sandbox();
    try {
      await assertUninstallLeavesTheHome(vimInstaller, env, dir.path, target, path.join(dir.path, '.vim'));
    } finally {
      dir.cleanup();
    }
  });

  test('refuses to replace a directory it did not write', async () => {
    const { dir, env, target } = sandbox();
    try {
      await assertLeavesForeignFolder(vimInstaller, env, target, /not written by this installer|incomplete/);
    } finally {
      dir.cleanup();
    }
  });

  test('`ide-companion install vim` installs it, and the plugin starts its companion when Vim starts, with no vimrc at all', { skip: skipVim }, async () => {
    const { dir, env, target } = sandbox();
    const tmux = new Tmux();
    try {
      const workspace = path.join(dir.path, 'ws');
      fs.mkdirSync(workspace);
      const cli = spawnSync(process.execPath, [path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js'), 'install', 'vim'], { env, encoding: 'utf8' });
      assert.equal(cli.status, 0, cli.stdout + cli.stderr);
      assert.match(cli.stdout + cli.stderr, /Installed the Vim plugin/);
      assert.ok(fs.existsSync(path.join(target, 'host', 'ide-companion-bridge.mjs')));
      // -u NORC: no vimrc, but plugins and packages load as for a user.
      tmux.start(
        shellCommand([vimPath!, '-u', 'NORC', '-N', '-i', 'NONE', '-n'], { HOME: dir.path, TMPDIR: dir.path, LANG: 'C.UTF-8', TERM: 'xterm-256color' }),
        { cwd: workspace },
      );
      const discoveryDir = path.join(dir.path, 'gemini', 'ide');
      const file = await waitFor(
        () => fs.existsSync(discoveryDir) && fs.readdirSync(discoveryDir).find((f) => f.endsWith('.json')),
        'the installed plugin to start a companion',
        TIMEOUT,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n--- screen ---\n${tmux.screen()}`);
      });
      const content = parseDiscoveryFile(fs.readFileSync(path.join(discoveryDir, file), 'utf8'));
      assert.equal(content.workspacePath, fs.realpathSync(workspace));
      assert.equal(content.ideInfo?.displayName, 'Vim');
      const pid = Number(/gemini-ide-server-(\d+)-/.exec(file)![1]);
      tmux.keys('Escape');
      tmux.type(':qa!');
      tmux.keys('Enter');
      await waitFor(() => !discoveryFileOf(discoveryDir, pid), 'the discovery file removed on quit', TIMEOUT);
    } finally {
      await tmux.stop(2000);
      dir.cleanup();
    }
  });
});
