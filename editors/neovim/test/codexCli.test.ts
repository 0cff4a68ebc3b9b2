/**
 * Codex CLI (issue 31), the real pinned CLI (offline: a custom provider on
 * testkit's Responses API mock), beside this Neovim: Neovim's companion owns
 * Codex's IPC socket (CODEX_HOME/ipc/ipc.sock), `/ide` in codex turns the
 * IDE context on, and the selection made in Neovim reaches the model's
 * request in Codex's own words (the active file, the selected text, the tabs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { codexCommand, askCodexWithIde, findCodexCli, makeCodexHome, skipUnless, startResponsesMock, waitFor, which } from '@ide-companion/testkit';
import { besideNeovim } from './agentBeside.js';
import { hasNvim } from './harness.js';

const codex = findCodexCli();
const skip =
  skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(codex !== undefined, 'Codex CLI 0.171.0', 'run scripts/install-codex-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test("codex's /ide beside Neovim: the selection made in Neovim reaches the model", { skip, timeout: 120_000 }, async (t) => {
  const { s, model, tui } = await besideNeovim(
    t,
    { files: { 'a.txt': 'alpha line\nbeta line\ngamma line\n', 'b.txt': 'other\n' }, codex: true },
    () => startResponsesMock(['Hello.', 'Done.']),
    [160, 45],
  );
  const home = path.join(s.tmp, 'home');
  makeCodexHome(home, { baseUrl: 'http://127.0.0.1:9/v1', project: s.workspace });
  // The mock's address, now that it is known.
  const config = path.join(home, '.codex', 'config.toml');
  fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('http://127.0.0.1:9/v1', model.baseUrl));
  await waitFor(() => fs.existsSync(path.join(home, '.codex', 'ipc', 'ipc.sock')), "Neovim's companion to own Codex's socket", 10_000);

  await s.nvim.command('edit b.txt');
  await s.nvim.command('edit a.txt');
  await s.nvim.input('2G0ve');
  await new Promise((resolve) => setTimeout(resolve, 500));

  tui.start(codexCommand(codex!, { home }), { cwd: s.workspace });
  const text = await askCodexWithIde(tui, model, 'what is selected');
  assert.ok(text.includes('## Active file: a.txt\n'), `the active file: ${text}`);
  assert.ok(text.includes('## Active selection of the file:\nbeta\n'), `the selection: ${text}`);
  assert.ok(text.includes('## Open tabs:\n- a.txt: a.txt\n- b.txt: b.txt\n'), `the tabs: ${text}`);
  assert.ok(text.endsWith('## My request for Codex:\nwhat is selected'), `the request: ${text}`);
});
