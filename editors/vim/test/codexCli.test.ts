/**
 * Codex CLI (issue 31), the real pinned CLI (offline: a custom provider on
 * testkit's Responses API mock), beside this Vim: Vim's companion (its host)
 * owns Codex's IPC socket in CODEX_HOME, `/ide` in codex turns the IDE
 * context on, and the selection made in Vim reaches the model's request in
 * Codex's words; :GeminiHealth says this companion routes Codex CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  codexCommand,
  askCodexWithIde,
  findCodexCli,
  makeCodexHome,
  makeTempDir,
  skipUnless,
  startResponsesMock,
  Tmux,
  waitFor,
  which,
} from '@ide-companion/testkit';
import { skipVim, startVim } from './harness.js';

const codex = findCodexCli();
const skip =
  skipVim ||
  skipUnless(codex !== undefined, 'Codex CLI 0.171.0', 'run scripts/install-codex-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test(
  "codex's /ide beside Vim: the selection made in Vim reaches the model; :GeminiHealth says the companion routes Codex CLI",
  { skip, timeout: 120_000 },
  async (t) => {
    const dirs = makeTempDir('ide-companion-vim-codex-');
    const home = path.join(dirs.path, 'home');
    const model = await startResponsesMock(['Hello.', 'Done.']);
    const s = await startVim({ files: { 'a.txt': 'alpha line\nbeta line\ngamma line\n' }, env: { CODEX_HOME: path.join(home, '.codex') } });
    const tui = new Tmux(160, 45);
    t.after(async () => {
      await tui.stop();
      await model.close();
      await s.close();
      dirs.cleanup();
    });
    const socket = path.join(home, '.codex', 'ipc', 'ipc.sock');
    await waitFor(() => fs.existsSync(socket), "Vim's companion to own Codex's socket", 10_000);
    makeCodexHome(home, { baseUrl: model.baseUrl, project: s.workspace });
    const health = await s.ex('GeminiHealth');
    assert.ok(health.includes(`Codex CLI: this companion routes ${socket}`), health);

    // The user selects "beta" in Vim.
    await s.ex('edit a.txt');
    s.keys('2', 'G', '0', 'v', 'e');
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    tui.start(codexCommand(codex!, { home }), { cwd: s.workspace });
    const text = await askCodexWithIde(tui, model, 'what is selected');
    assert.ok(text.includes('## Active file: a.txt\n'), `the active file: ${text}`);
    assert.ok(text.includes('## Active selection of the file:\nbeta\n'), `the selection: ${text}`);
    assert.ok(text.endsWith('## My request for Codex:\nwhat is selected'), `the request: ${text}`);
  },
);
