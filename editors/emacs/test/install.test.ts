/**
 * `ide-companion install emacs`: the installer copies the package and the
 * bundled host where Emacs users keep site-lisp and prints the lines for the
 * init file; an Emacs whose init file holds them (any version: issue 39, the
 * use-package form it printed broke Emacs 28's start) runs the copied host
 * and gets ready. `uninstall` names those lines again, starts with them left
 * in do not fail, and the folders install made go with it.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, skipUnless } from '@ide-companion/testkit';
import { INSTALL_MARKER } from '@ide-companion/command/pluginInstall';
import { emacsInstaller, initForm } from '../src/installer.js';
import { HOST_BUNDLE_PATH, PACKAGE_ROOT } from '../src/packageFiles.js';
import { emacsBatch, hasEmacs } from './emacs.js';

function sandbox() {
  const dir = makeTempDir('ide-companion-emacs-install-');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: dir.path, XDG_CONFIG_HOME: path.join(dir.path, 'config'), TMPDIR: dir.path };
  for (const key of Object.keys(env)) if (key.startsWith('GEMINI_CLI_IDE_')) delete env[key];
  return { dir, env };
}

describe('Emacs installer', { timeout: 120_000 }, () => {
  // Issue 39, trip 2: the README showed a use-package form Emacs 28 cannot run; its first block is now the printed lines.
  test("the README's init block is exactly the lines install prints", () => {
    const { dir, env } = sandbox();
    try {
      const readme = fs.readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');
      const block = /```elisp\n([\s\S]*?)\n```/.exec(readme)?.[1];
      assert.equal(block, initForm(path.join(dir.path, '.emacs.d', 'site-lisp', 'ide-companion'), env));
      // Nor does any README say install prints a use-package form (it did: "one use-package form").
      for (const file of [path.join(PACKAGE_ROOT, 'README.md'), path.join(PACKAGE_ROOT, '..', '..', 'README.md')]) {
        assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /one use-package form|prints? (only )?a use-package/i, file);
      }
    } finally {
      dir.cleanup();
    }
  });

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
      assert.ok(result.message.includes(initForm(target, env)), result.message);
      assert.match(result.message, /\(add-to-list 'load-path "~\/\.emacs\.d\/site-lisp\/ide-companion"\)/);
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

  test(
    "the printed lines, as the init file of this Emacs, load the copy and run its host; after uninstall the same init starts clean, and install's folders are gone",
    { skip: skipUnless(hasEmacs, 'emacs', 'apt-get install -y emacs-nox') },
    async () => {
      const { dir, env } = sandbox();
      try {
        const result = await emacsInstaller.install({ env });
        assert.equal(result.success, true, result.message);
        const target = result.changed![0]!;
        // What the user pastes: the lines between the blank lines of the message.
        const form = /\n\n(\(add-to-list[\s\S]*?)\n\n/.exec(result.message)?.[1];
        assert.ok(form, result.message);
        const init = path.join(dir.path, '.emacs.d', 'init.el');
        fs.writeFileSync(init, `(setq user-init-file-ran 'before)\n${form}\n(setq user-init-file-ran t)\n`);
        const start = (check: string) => emacsBatch(['-l', init, '--eval', check], { env, cwd: dir.path });
        const loaded = start(
          `(progn (princ (format "ran=%s host=%s\\n" user-init-file-ran (ide-companion--host-file)))
                  (princ (format "ready=%s\\n" (and (ide-companion--wait-ready 20) (plist-get ide-companion--ready :port))))
                  (ide-companion-mode -1))`,
        );
        assert.equal(loaded.status, 0, loaded.output);
        assert.match(loaded.output, new RegExp(`ran=t host=${path.join(target, 'host', 'ide-companion-bridge.mjs').replace(/[.]/g, '\\.')}`));
        assert.match(loaded.output, /ready=\d+/, loaded.output);
        // Its folder too, left empty (the last companion to stop removes it).
        assert.equal(fs.existsSync(path.join(dir.path, 'gemini', 'ide')), false, 'the discovery file is gone after the mode is off');

        const removed = await emacsInstaller.uninstall!({ env });
        assert.equal(removed.success, true, removed.message);
        assert.ok(removed.message.includes(`\n\n${form}\n\n`), `uninstall names the lines install printed: ${removed.message}`);
        assert.match(removed.message, /~\/\.emacs\.d\/init\.el/);
        // The user has not taken them out yet: Emacs starts, the init file runs to its end, no mode.
        const after = start('(princ (format "ran=%s mode=%s\\n" user-init-file-ran (fboundp (quote ide-companion-mode))))');
        assert.equal(after.status, 0, after.output);
        assert.match(after.output, /ran=t mode=nil/);
        assert.doesNotMatch(after.output, /Cannot open load file|error/i);
        assert.equal(fs.existsSync(path.join(dir.path, '.emacs.d', 'site-lisp')), false, 'the site-lisp folder install made');
        assert.deepEqual(fs.readdirSync(path.join(dir.path, '.emacs.d')), ['init.el'], "the Emacs folder stays: it holds the user's init file");
      } finally {
        dir.cleanup();
      }
    },
  );

  // The README's other form, for Emacs 29 and later (use-package built in): the matrix's 29.3 and 30.1 run it.
  const major = hasEmacs ? Number(emacsBatch(['--eval', '(princ emacs-major-version)']).output.trim()) : 0;
  test(
    "the README's use-package form, as the init file of an Emacs from 29, loads the copy and runs its host",
    { skip: skipUnless(hasEmacs, 'emacs', 'apt-get install -y emacs-nox') || (major < 29 && `Emacs ${major} has no use-package built in`) },
    async () => {
      const { dir, env } = sandbox();
      try {
        const readme = fs.readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');
        const form = [...readme.matchAll(/```elisp\n([\s\S]*?)\n```/g)].map((m) => m[1]!).find((b) => b.startsWith('(use-package'));
        assert.ok(form, 'a use-package block in the README');
        const result = await emacsInstaller.install({ env });
        assert.equal(result.success, true, result.message);
        const init = path.join(dir.path, '.emacs.d', 'init.el');
        fs.writeFileSync(init, `${form}\n(setq user-init-file-ran t)\n`);
        const r = emacsBatch(
          [
            '-l',
            init,
            '--eval',
            `(progn (princ (format "ran=%s mode=%s host=%s\\n" user-init-file-ran ide-companion-mode (ide-companion--host-file)))
                    (princ (format "ready=%s\\n" (and (ide-companion--wait-ready 20) (plist-get ide-companion--ready :port))))
                    (ide-companion-mode -1))`,
          ],
          { env, cwd: dir.path },
        );
        assert.equal(r.status, 0, r.output);
        assert.match(r.output, new RegExp(`ran=t mode=t host=${path.join(result.changed![0]!, 'host', 'ide-companion-bridge.mjs').replace(/[.]/g, '\\.')}`));
        assert.match(r.output, /ready=\d+/, r.output);
      } finally {
        dir.cleanup();
      }
    },
  );

  test('uninstall removes the Emacs folder install made, once empty, and only that', async () => {
    const { dir, env } = sandbox();
    try {
      assert.equal((await emacsInstaller.install({ env })).success, true);
      assert.equal((await emacsInstaller.install({ env })).success, true, 'a reinstall keeps what the first install made');
      assert.equal((await emacsInstaller.uninstall!({ env })).success, true);
      assert.equal(fs.existsSync(path.join(dir.path, '.emacs.d')), false, '~/.emacs.d did not exist before install');
      // A site-lisp the user had stays, empty or not.
      fs.mkdirSync(path.join(dir.path, '.emacs.d', 'site-lisp'), { recursive: true });
      assert.equal((await emacsInstaller.install({ env })).success, true);
      assert.equal((await emacsInstaller.uninstall!({ env })).success, true);
      assert.deepEqual(fs.readdirSync(path.join(dir.path, '.emacs.d', 'site-lisp')), []);
    } finally {
      dir.cleanup();
    }
  });
});
