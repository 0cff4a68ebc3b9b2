/** Workspace roots and terminals: what ties a `gemini` run inside Neovim to this Neovim. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipUnless, waitFor, ideEnvInFile } from '@ide-companion/testkit';
import { hasNvim, startNeovim, startWithClient, TIMEOUT, type NeovimSession } from './harness.js';

const skip = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');

async function workspaceOf(s: NeovimSession): Promise<string> {
  return (await s.discovery()).content.workspacePath;
}

async function waitForWorkspace(s: NeovimSession, expected: string[], what: string): Promise<void> {
  const want = expected.join(path.delimiter);
  await waitFor(async () => (await workspaceOf(s)) === want, `${what}: workspacePath ${want}`, TIMEOUT).catch(async (err) => {
    throw new Error(`${(err as Error).message}; it is ${await workspaceOf(s)}`);
  });
}

describe('Neovim workspace and terminals', { skip, timeout: 120_000 }, () => {
  test(':cd, :tcd and :lcd rewrite the discovery file and the terminal env; configured roots stay', async () => {
    const s = await startNeovim({ setup: `{ roots = { vim.env.TMPDIR .. '/extra' } }` });
    try {
      const [other, tabDir, winDir, extra] = ['other', 'tabdir', 'windir', 'extra'].map((d) => path.join(s.tmp, d)) as [string, string, string, string];
      for (const dir of [other, tabDir, winDir, extra]) fs.mkdirSync(dir);
      await waitForWorkspace(s, [s.workspace, extra], 'start');
      await s.nvim.command(`tabnew | tcd ${tabDir}`);
      await waitForWorkspace(s, [s.workspace, tabDir, extra], ':tcd');
      await s.nvim.command(`vsplit | lcd ${winDir}`);
      await waitForWorkspace(s, [s.workspace, tabDir, winDir, extra], ':lcd');
      await s.nvim.command('tabclose');
      await waitForWorkspace(s, [s.workspace, extra], 'tab closed');
      await s.nvim.command(`cd ${other}`);
      await waitForWorkspace(s, [other, extra], ':cd');
      await waitFor(
        async () => (await s.lua('return vim.env.GEMINI_CLI_IDE_WORKSPACE_PATH')) === [other, extra].join(path.delimiter),
        'vim.env follows',
        TIMEOUT,
      );
    } finally {
      await s.close();
    }
  });

  test(':Gemini and :terminal get the env that names this Neovim: its pid (also in the discovery file name), port and token', async () => {
    const s = await startNeovim({ setup: `{ terminal = { cmd = { 'sh', '-c', 'env > "$0"' } } }` });
    try {
      const discovery = await s.discovery();
      assert.equal(path.basename(discovery.path), `gemini-ide-server-${s.pid}-${discovery.content.port}.json`);
      const viaCommand = path.join(s.tmp, 'gemini-env.txt');
      await s.nvim.command(`Gemini ${viaCommand}`);
      await waitFor(() => fs.existsSync(viaCommand) && fs.readFileSync(viaCommand, 'utf8').includes('GEMINI_CLI_IDE_PID'), ':Gemini ran', TIMEOUT);
      const viaTerminal = path.join(s.tmp, 'terminal-env.txt');
      await s.nvim.command(`terminal sh -c 'env > ${viaTerminal}'`);
      await waitFor(() => fs.existsSync(viaTerminal) && fs.readFileSync(viaTerminal, 'utf8').includes('GEMINI_CLI_IDE_PID'), ':terminal ran', TIMEOUT);
      const expected = {
        GEMINI_CLI_IDE_AUTH_TOKEN: discovery.content.authToken,
        GEMINI_CLI_IDE_PID: String(s.pid),
        GEMINI_CLI_IDE_SERVER_PORT: String(discovery.content.port),
        GEMINI_CLI_IDE_WORKSPACE_PATH: s.workspace,
      };
      assert.deepEqual(ideEnvInFile(viaCommand), expected);
      assert.deepEqual(ideEnvInFile(viaTerminal), expected);
    } finally {
      await s.close();
    }
  });

  test('two Neovims on one folder each give their terminals their own pid and port', async () => {
    const first = await startNeovim();
    const second = await startNeovim();
    try {
      const a = await first.discovery();
      const b = await second.discovery();
      assert.notEqual(a.content.port, b.content.port);
      assert.equal(await first.lua('return vim.env.GEMINI_CLI_IDE_PID'), String(first.pid));
      assert.equal(await second.lua('return vim.env.GEMINI_CLI_IDE_PID'), String(second.pid));
      assert.equal(await second.lua('return vim.env.GEMINI_CLI_IDE_SERVER_PORT'), String(b.content.port));
    } finally {
      await first.close();
      await second.close();
    }
  });

  test('focusing Neovim again (FocusGained) makes its file the newest', async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' } });
    try {
      await s.nvim.command('edit a.txt');
      await s.nvim.command('split b.txt');
      const first = await c.waitForContext((ctx) => {
        const f = ctx.workspaceState?.openFiles?.[0];
        return f?.path.endsWith('b.txt') ? f : undefined;
      }, 'b.txt active');
      await new Promise((r) => setTimeout(r, 20));
      await s.nvim.command('doautocmd FocusGained');
      const again = await c.waitForContext((ctx) => {
        const f = ctx.workspaceState?.openFiles?.[0];
        return f && f.timestamp > first.timestamp ? f : undefined;
      }, 'a newer focus timestamp');
      assert.equal(again.path, first.path);
    } finally {
      await c.close();
      await s.close();
    }
  });
});
