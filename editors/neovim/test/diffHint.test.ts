/**
 * The diff's keys and the unsaved-changes warning are on screen when the diff
 * opens, whichever window had focus. Regression: on Neovim 0.7.2, with the
 * :Gemini terminal focused (Terminal mode), ":w accepts, :q! rejects" and the
 * warning went only to :messages, never to the screen. Neovim runs with its
 * UI in tmux; a real MCP client opens the diffs. Then Neovim is killed with a
 * diff open, and its host must still exit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDiscoveryFile } from '@ide-companion/protocol';
import { discoveryFileOf, makeTempDir, shellCommand, skipUnless, Tmux, waitFor, which, processRunning } from '@ide-companion/testkit';
import { PLUGIN_ROOT } from '../src/pluginFiles.js';
import { attachWhenListening, connectFromDiscovery, hasNvim, nvimPath, TIMEOUT } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim') || skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test('with the terminal focused in Terminal mode, the diff shows its keys and the unsaved-changes warning on screen', { skip, timeout: 120_000 }, async (t) => {
  const tmp = makeTempDir('ide-companion-nvim-hint-');
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'plain.txt'), 'plain\n');
  fs.writeFileSync(path.join(workspace, 'dirty.txt'), 'on disk\n');
  const tmux = new Tmux(200, 50);
  t.after(async () => {
    await tmux.stop();
    tmp.cleanup();
  });
  const socket = path.join(tmp.path, 'nvim.sock');
  const setup = `require('ide_companion').setup({ terminal = { cmd = { 'sh' } }, log_file = '${path.join(tmp.path, 'host.log')}' })`;
  const env: Record<string, string> = {
    TMPDIR: tmp.path,
    TERM: 'xterm-256color',
    XDG_CACHE_HOME: path.join(tmp.path, 'cache'),
    XDG_STATE_HOME: path.join(tmp.path, 'state'),
    XDG_DATA_HOME: path.join(tmp.path, 'data'),
    XDG_CONFIG_HOME: path.join(tmp.path, 'config'),
  };
  tmux.start(
    shellCommand(
      [nvimPath!, '--clean', '-n', '--listen', socket, '-c', 'let g:ide_companion_auto_setup = v:false', '-c', `set rtp^=${PLUGIN_ROOT}`, '-c', `lua ${setup}`],
      env,
    ),
    { cwd: workspace },
  );
  const { nvim, lua } = await attachWhenListening(socket, TIMEOUT);
  const pid = (await nvim.call('getpid')) as number;
  const dir = path.join(tmp.path, 'gemini', 'ide');
  const name = await waitFor(() => discoveryFileOf(dir, pid), 'the discovery file', TIMEOUT);
  const c = await connectFromDiscovery(parseDiscoveryFile(fs.readFileSync(path.join(dir, name), 'utf8')));
  t.after(() => c.close());

  // dirty.txt has unsaved changes; then the user is typing in the :Gemini terminal.
  await nvim.command('edit dirty.txt');
  await nvim.input('ccunsaved work<Esc>');
  await waitFor(async () => (await lua('return vim.bo.modified')) === true, 'dirty.txt modified', TIMEOUT);
  await nvim.command('Gemini');
  await waitFor(async () => ((await nvim.mode) as { mode: string }).mode === 't', 'Terminal mode', TIMEOUT);

  const plain = path.join(workspace, 'plain.txt');
  await c.client.callTool({ name: 'openDiff', arguments: { filePath: plain, newContent: 'plain, proposed\n' } });
  await tmux.waitForText(':w accepts, :q! rejects · Gemini CLI proposes changes to plain.txt', TIMEOUT);
  await lua("vim.fn.win_gotoid(vim.fn.win_findbuf(require('ide_companion.diff').list()[1].proposal)[1])");
  await nvim.command('write');
  await c.waitForNotification('ide/diffAccepted', (p) => p.filePath === plain);

  // Back in the terminal, in Terminal mode, for the second diff.
  await nvim.command('Gemini');
  await waitFor(async () => ((await nvim.mode) as { mode: string }).mode === 't', 'Terminal mode again', TIMEOUT);
  const dirty = path.join(workspace, 'dirty.txt');
  await c.client.callTool({ name: 'openDiff', arguments: { filePath: dirty, newContent: 'proposed\n' } });
  const screen = await tmux.waitForText(/:w accepts, :q! rejects · dirty\.txt has unsaved changes/, TIMEOUT);
  assert.match(screen, /unsaved changes \(diff against disk; kept in its buffer\)/);
  assert.deepEqual(await lua("return vim.api.nvim_buf_get_lines(vim.fn.bufnr('dirty.txt'), 0, -1, false)"), ['unsaved work']);

  // Regression: Neovim 0.10 killed (SIGTERM) with this diff open left its host running, waiting on diff closes it never answered.
  const hostPid = await lua<number>("return vim.fn.jobpid(require('ide_companion.host').state.job)");
  await tmux.stop();
  await waitFor(() => !processRunning(hostPid), 'the host to exit after Neovim was killed', TIMEOUT).catch((err: Error) => {
    if (processRunning(hostPid)) process.kill(hostPid, 'SIGKILL');
    throw err;
  });
  assert.equal(discoveryFileOf(dir, pid), undefined, 'the discovery file is gone');
});
