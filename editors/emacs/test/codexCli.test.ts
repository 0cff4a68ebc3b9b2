/**
 * Codex CLI (issue 31), the real pinned CLI (offline: a custom provider on
 * testkit's Responses API mock), beside this Emacs: its companion (the
 * jsonlines host) owns Codex's IPC socket in CODEX_HOME, `/ide` in codex
 * turns the IDE context on, and the region made in Emacs reaches the model's
 * request in Codex's words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { codexCommand, askCodexWithIde, findCodexCli, makeCodexHome, makeTempDir, skipUnless, startResponsesMock, Tmux, waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { startEmacs } from './harness.js';

const codex = findCodexCli();
const skip = skipEmacsInTmux || skipUnless(codex !== undefined, 'Codex CLI 0.171.0', 'run scripts/install-codex-cli.sh');

test("codex's /ide beside Emacs: the region made in Emacs reaches the model", { skip, timeout: 120_000 }, async (t) => {
  const dirs = makeTempDir('ide-companion-emacs-codex-');
  const home = path.join(dirs.path, 'home');
  const model = await startResponsesMock(['Hello.', 'Done.']);
  const emacs = await startEmacs({
    files: { 'a.txt': 'alpha line\nbeta line\ngamma line\n' },
    open: ['a.txt'],
    env: { CODEX_HOME: path.join(home, '.codex') },
  });
  const tui = new Tmux(160, 45);
  t.after(async () => {
    await tui.stop();
    await model.close();
    await emacs.close();
    dirs.cleanup();
  });
  await emacs.discovery();
  await waitFor(() => fs.existsSync(path.join(home, '.codex', 'ipc', 'ipc.sock')), "Emacs's companion to own Codex's socket", 10_000);
  makeCodexHome(home, { baseUrl: model.baseUrl, project: emacs.workspace });

  // The region "beta" on line 2.
  emacs.tmux.keys('M-<', 'C-n', 'C-Space', 'M-f');
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  tui.start(codexCommand(codex!, { home }), { cwd: emacs.workspace });
  const text = await askCodexWithIde(tui, model, 'what is selected');
  assert.ok(text.includes('## Active file: a.txt\n'), `the active file: ${text}`);
  assert.ok(text.includes('## Active selection of the file:\nbeta\n'), `the selection: ${text}`);
  assert.ok(text.endsWith('## My request for Codex:\nwhat is selected'), `the request: ${text}`);
});
