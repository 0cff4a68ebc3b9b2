/**
 * Codex CLI (issue 31), the real pinned CLI, against `ide-companion serve`,
 * offline (a custom provider with `wire_api = "responses"`: testkit's
 * Responses API mock on loopback, no sign-in): serve and codex share a
 * CODEX_HOME, serve owns the IPC socket in it ($CODEX_HOME/ipc/ipc.sock), and
 * `/ide` in codex turns the IDE context on; the file saved in the project
 * (serve's active file) reaches the model's request in Codex's own words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  codexCommand,
  codexDaemonPids,
  askCodexWithIde,
  findCodexCli,
  makeCodexHome,
  skipUnless,
  startResponsesMock,
  stopCodexDaemons,
  waitFor,
  which,
} from '@ide-companion/testkit';
import { serveDirs, startServe } from './support/serveInTmux.js';

const codex = findCodexCli();
const skip =
  skipUnless(codex !== undefined, 'Codex CLI 0.171.0', 'run scripts/install-codex-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test("codex's /ide in the project takes serve's context: the file saved there reaches the model as the active file", { skip, timeout: 120_000 }, async (t) => {
  const dirs = serveDirs('ide-companion-codex-serve-');
  const { project } = dirs;
  const home = path.join(dirs.root, 'home');
  const model = await startResponsesMock(['Hello.', 'Done.']);
  const codexHome = makeCodexHome(home, { baseUrl: model.baseUrl, project });
  const { tui } = await startServe(t, dirs, model, { HOME: home, CODEX_HOME: codexHome }, 'codex there takes the context with /ide', [160, 45]);
  const socket = path.join(codexHome, 'ipc', 'ipc.sock');
  assert.ok(fs.lstatSync(socket).isSocket(), 'serve owns the IPC socket');
  // A save in the project: serve's active file.
  fs.writeFileSync(path.join(project, 'notes.md'), 'the saved file\n');
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  tui.start(codexCommand(codex!, { home }), { cwd: project });
  const text = await askCodexWithIde(tui, model, 'what am I looking at');
  assert.ok(text.includes('## Active file: notes.md'), `the active file reaches the model: ${text}`);
  assert.ok(text.endsWith('## My request for Codex:\nwhat am I looking at'), `the request follows the context: ${text}`);
  // Issue 39: Codex CLI's TUI leaves its `app-server --managed-daemon` running (parent PID 1) once it ends; the test ends it.
  await tui.stop();
  const left = codexDaemonPids(codexHome);
  t.diagnostic(`Codex daemons left by the TUI: ${left.length}`);
  assert.deepEqual(stopCodexDaemons(codexHome).sort(), left.sort());
  await waitFor(() => codexDaemonPids(codexHome).length === 0 || undefined, 'no Codex daemon left for this CODEX_HOME', 5_000);
});
