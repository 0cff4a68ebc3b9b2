/**
 * `ide-companion install emacs`: the installer copies the package and the
 * bundled host where Emacs users keep site-lisp, and a plain Emacs that puts
 * that directory on its load-path (what the printed use-package form does)
 * runs the copied host and gets ready.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, skipUnless } from '@ide-companion/testkit';
import { INSTALL_MARKER } from '@ide-companion/command/pluginInstall';
import { emacsInstaller, usePackageForm } from '../src/installer.js';
import { HOST_BUNDLE_PATH } from '../src/packageFiles.js';
import { emacsBatch, hasEmacs } from './emacs.js';
import { elispString } from './harness.js';

function sandbox() {
  const dir = makeTempDir('ide-companion-emacs-install-');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir.path, XDG_CONFIG_HOME: path.join(dir.path, 'config'), TMPDIR: dir.path };
  for (const key of Object.keys(env)) if (key.startsWith('GEMINI_CLI_IDE_')) delete env[key];
  return { dir, env };
}

describe('Emacs installer', { timeout: 120_000 }, () => {
  test('installs into ~/.emacs.d/site-lisp/ide-companion, replacing only its own earlier install', async () => {
    const { dir, env } = sandbox();
    try {
      const target = path.join(dir.path, '.emacs.d', 'site-lisp', 'ide-companion');
      assert.equal(await emacsInstaller.isInstalled!({ env }), false);
      const dry = await emacsInstaller.install({ env, dryRun: true });
      assert.equal(dry.success, true, dry.message);
      assert.equal(fs.existsSync(target), false, 'a dry run changes nothing');
      const result = await emacsInstaller.install({ env });
      assert.equal(result.success, true, result.message);
      assert.deepEqual(result.changed, [target]);
      assert.ok(result.message.includes(usePackageForm(target, env)), result.message);
      assert.match(result.message, /:load-path "~\/\.emacs\.d\/site-lisp\/ide-companion"/);
      for (const file of ['ide-companion.el', 'README.md', 'host/ide-companion-bridge.mjs', INSTALL_MARKER]) {
        assert.ok(fs.existsSync(path.join(target, file)), file);
      }
      assert.equal(fs.readFileSync(path.join(target, 'host', 'ide-companion-bridge.mjs'), 'utf8'), fs.readFileSync(HOST_BUNDLE_PATH, 'utf8'));
      // The host loads the MCP SDK's side from host/chunks/ when a CLI connects: its chunks and the SDK chunk the hosts share.
      assert.deepEqual(
        fs.readdirSync(path.join(target, 'host', 'chunks')).sort(),
        [...fs.readdirSync(path.join(path.dirname(HOST_BUNDLE_PATH), 'chunks')), 'sdk.mjs'].sort(),
      );
      assert.equal(fs.existsSync(path.join(target, 'src')), false, 'sources stay behind');
      assert.equal(await emacsInstaller.isInstalled!({ env }), true);
      fs.writeFileSync(path.join(target, 'stale.el'), '');
      assert.equal((await emacsInstaller.install({ env })).success, true);
      assert.equal(fs.existsSync(path.join(target, 'stale.el')), false, 'reinstall replaces the old copy');

      // A directory the installer did not write is left alone.
      fs.rmSync(path.join(target, INSTALL_MARKER));
      const refused = await emacsInstaller.install({ env });
      assert.equal(refused.success, false);
      assert.match(refused.message, /was not written by this installer/);
      assert.ok(fs.existsSync(path.join(target, 'ide-companion.el')));
    } finally {
      dir.cleanup();
    }
  });

  test('uses $XDG_CONFIG_HOME/emacs when that is the Emacs directory', async () => {
    const { dir, env } = sandbox();
    try {
      fs.mkdirSync(path.join(dir.path, 'config', 'emacs'), { recursive: true });
      const result = await emacsInstaller.install({ env });
      assert.equal(result.success, true, result.message);
      assert.deepEqual(result.changed, [path.join(dir.path, 'config', 'emacs', 'site-lisp', 'ide-companion')]);
      assert.equal(fs.existsSync(path.join(dir.path, '.emacs.d')), false);
    } finally {
      dir.cleanup();
    }
  });

  test('Emacs loads the installed copy and runs its host', { skip: skipUnless(hasEmacs, 'emacs', 'apt-get install -y emacs-nox') }, async () => {
    const { dir, env } = sandbox();
    try {
      const result = await emacsInstaller.install({ env });
      assert.equal(result.success, true, result.message);
      const target = result.changed![0]!;
      const r = emacsBatch(
        [
          '--eval',
          `(progn (add-to-list 'load-path ${elispString(target)}) (require 'ide-companion)
                  (princ (format "host=%s\\n" (ide-companion--host-file)))
                  (ide-companion-mode 1)
                  (princ (format "ready=%s\\n" (and (ide-companion--wait-ready 20) (plist-get ide-companion--ready :port))))
                  (princ (format "%s\\n" (ide-companion--status-text)))
                  (ide-companion-mode -1))`,
        ],
        { env, cwd: dir.path },
      );
      assert.equal(r.status, 0, r.output);
      assert.match(r.output, new RegExp(`host=${path.join(target, 'host', 'ide-companion-bridge.mjs').replace(/[.]/g, '\\.')}`));
      assert.match(r.output, /ready=\d+/, r.output);
      // Its folder too, left empty (the last companion to stop removes it).
      assert.equal(fs.existsSync(path.join(dir.path, 'gemini', 'ide')), false, 'the discovery file is gone after the mode is off');
    } finally {
      dir.cleanup();
    }
  });
});
