/**
 * A package from git whose build step did not run has no host: it runs the host of the `ide-companion`
 * package on PATH, and `ide-companion-doctor' says which host it found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ideCompanionOnPath, makeTempDir, skipUnless } from '@ide-companion/testkit';
import { LISP_FILES, PACKAGE_ROOT } from '../src/packageFiles.js';
import { emacsBatch, hasEmacs } from './emacs.js';

const skip = skipUnless(hasEmacs, 'emacs', 'apt-get install -y emacs-nox');

test('without a host of its own the package runs the ide-companion package host on PATH, and says so', { skip }, () => {
  const dir = makeTempDir();
  try {
    // The package alone (no host/, no ../jsonlines/host/), and an `ide-companion` linked into a package with a host.
    const lisp = path.join(dir.path, 'from-git', 'emacs');
    for (const file of LISP_FILES) fs.cpSync(path.join(PACKAGE_ROOT, file), path.join(lisp, file));
    const { host, binDir } = ideCompanionOnPath(dir.path, 'editors/jsonlines/host/ide-companion-bridge.mjs');
    const r = emacsBatch(
      ['-L', lisp, '-l', 'ide-companion', '--eval', '(let ((found (ide-companion--host-found))) (princ (format "%s|%s\\n" (car found) (cdr found))))'],
      { env: { ...process.env, PATH: `${binDir}:${process.env['PATH']}` } },
    );
    assert.equal(r.status, 0, r.output);
    assert.match(r.output, new RegExp(`^${host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\|the ide-companion package on PATH$`, 'm'));
  } finally {
    dir.cleanup();
  }
});
