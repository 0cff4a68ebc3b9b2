/**
 * Two Emacsen on one folder, each with its own companion: terminals started
 * in each (term, vterm, shell) carry the env that ties them to that Emacs and no
 * other. Leaving Emacs removes its discovery file and leaves no host behind.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discoveryFileOf, skipUnless, waitFor, processRunning } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { elispString, startEmacs, TIMEOUT, VTERM_DIR, type EmacsSession } from './harness.js';

const skip = skipEmacsInTmux || skipUnless(VTERM_DIR !== undefined, 'vterm', 'apt-get install -y elpa-vterm');

/** Runs `env` in a new terminal of `kind` in Emacs (M-x shell for `shell`) and returns its GEMINI_CLI_IDE_* variables. */
async function terminalEnv(emacs: EmacsSession, kind: 'term' | 'vterm' | 'shell', out: string): Promise<Record<string, string>> {
  const command = `env | grep '^GEMINI_CLI_IDE_' > ${out}.tmp; mv ${out}.tmp ${out}`;
  if (kind === 'shell') {
    await emacs.eval(
      `(let ((explicit-shell-file-name "/bin/sh")) (with-current-buffer (shell "*shell*") (comint-send-string (get-buffer-process (current-buffer)) ${elispString(`${command}\n`)}) t))`,
    );
  } else {
    await emacs.eval(`(let ((ide-companion-terminal '${kind})) (ide-companion--open-terminal ${elispString(`${command}; sleep 600`)} "*${kind}*") t)`);
  }
  const text = await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8'), `the ${kind} terminal's env`, TIMEOUT);
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('Emacs workspace', { skip, timeout: 180_000 }, () => {
  test("two Emacsen on one folder: each one's term, vterm and shell point at its own companion", async (t) => {
    const first = await startEmacs({ files: { 'a.txt': 'a\n' }, open: ['a.txt'], vterm: true });
    t.after(() => first.close());
    const second = await startEmacs({ sameFolderAs: first, open: ['a.txt'], vterm: true });
    t.after(() => second.close());
    for (const [emacs, n] of [
      [first, 1],
      [second, 2],
    ] as const) {
      const { content } = await emacs.discovery();
      assert.equal(content.workspacePath, first.workspace);
      for (const kind of ['term', 'vterm', 'shell'] as const) {
        const env = await terminalEnv(emacs, kind, path.join(emacs.tmp, `${kind}-${n}.env`));
        assert.equal(env['GEMINI_CLI_IDE_SERVER_PORT'], String(content.port), `${kind} in Emacs ${n}`);
        assert.equal(env['GEMINI_CLI_IDE_PID'], String(emacs.pid), `${kind} in Emacs ${n}`);
        assert.equal(env['GEMINI_CLI_IDE_WORKSPACE_PATH'], first.workspace);
      }
    }
    const ports = await Promise.all([first, second].map(async (e) => (await e.discovery()).content.port));
    assert.notEqual(ports[0], ports[1]);
  });

  test('C-x C-c removes the discovery file and leaves no host', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'a\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const discovery = await emacs.discovery();
    const hostPid = Number((await emacs.eval('(process-id ide-companion--process)')).trim());
    assert.ok(processRunning(hostPid));
    emacs.tmux.keys('C-x', 'C-c');
    await waitFor(() => !processRunning(emacs.pid), 'Emacs to exit', TIMEOUT);
    await waitFor(() => !fs.existsSync(discovery.path), 'the discovery file to go', TIMEOUT);
    await waitFor(() => !processRunning(hostPid), 'the host to exit', TIMEOUT);
    assert.equal(discoveryFileOf(emacs.discoveryDir, emacs.pid), undefined);
  });

  test('ide-companion-stop ends the host and takes the env back; new terminals no longer get it', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'a\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const discovery = await emacs.discovery();
    await emacs.eval('(ide-companion-stop)');
    await waitFor(() => !fs.existsSync(discovery.path), 'the discovery file to go', TIMEOUT);
    assert.equal(await emacs.evalJson('(or (getenv "GEMINI_CLI_IDE_SERVER_PORT") :null)'), null);
    await emacs.eval('(ide-companion-start)');
    const again = await emacs.discovery();
    assert.notEqual(again.path, discovery.path);
    assert.equal(await emacs.evalJson('(getenv "GEMINI_CLI_IDE_SERVER_PORT")'), String(again.content.port));
  });
});
