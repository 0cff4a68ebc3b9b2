/**
 * `check` against a real editor: headless Neovim running the plugin from
 * editors/neovim. Its diffs open as real tabs, so this pins down that check
 * passes there and leaves no tab or buffer of its own behind.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { makeTempDir, repoRoot, skipUnless, waitFor, which } from '@ide-companion/testkit';
import { runCheck } from '../src/check/index.js';

const nvim = which('nvim');
const plugin = path.join(repoRoot, 'editors', 'neovim');
const available = nvim !== undefined && fs.existsSync(path.join(plugin, 'plugin', 'ide_companion.lua'));

test(
  'check passes on headless Neovim with the plugin and leaves no diff tab or buffer behind',
  { timeout: 180_000, skip: skipUnless(available, 'nvim and editors/neovim', 'apt-get install neovim') },
  async () => {
    const tmp = makeTempDir('ide-companion-check-nvim-');
    const workspace = path.join(tmp.path, 'ws');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'hello\n');
    const socket = path.join(tmp.path, 'nvim.sock');
    const proc = spawn(
      nvim!,
      [
        '--headless',
        '--clean',
        '-n',
        '--listen',
        socket,
        '--cmd',
        'let g:ide_companion_auto_setup = v:false',
        '--cmd',
        `set rtp^=${plugin}`,
        '-c',
        'runtime plugin/ide_companion.lua',
        '-c',
        `lua require('ide_companion').setup({ log_file = '${path.join(tmp.path, 'companion.log')}' })`,
        'a.txt',
      ],
      { cwd: workspace, env: { ...process.env, TMPDIR: tmp.path }, stdio: 'ignore' },
    );
    /** Evaluates `e` in the running Neovim. 0.7 prints --remote-expr results on stderr, newer releases on stdout. */
    const expr = (e: string) => {
      const r = spawnSync(nvim!, ['--server', socket, '--remote-expr', e], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      assert.equal(r.status, 0, `nvim --remote-expr ${e}: ${r.stderr}`);
      return r.stdout.trim() || r.stderr.trim();
    };
    try {
      const dir = path.join(tmp.path, 'gemini', 'ide');
      const file = await waitFor(
        () => fs.existsSync(dir) && fs.readdirSync(dir).find((n) => n.endsWith('.json')),
        "the Neovim companion's discovery file",
        60_000,
        100,
      );
      const report = await runCheck({ file: path.join(dir, file), tmpdir: tmp.path });
      // The diffs really opened in Neovim (small, 11 MiB, two-session), so "no tab left" means they were closed.
      const opened = fs
        .readFileSync(path.join(tmp.path, 'companion.log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('"diff opened"')).length;
      assert.ok(opened >= 3, `diffs opened in Neovim: ${opened}`);
      assert.deepEqual(
        report.results.filter((r) => r.status === 'fail').map((r) => `${r.id}: ${r.reason}`),
        [],
      );
      assert.equal(report.results.find((r) => r.id === 'diff.open')?.status, 'pass');
      assert.equal(expr('tabpagenr("$")'), '1', 'every diff tab closed');
      assert.equal(expr('join(map(getbufinfo({"buflisted": 1}), "fnamemodify(v:val.name, \\":t\\")"), ",")'), 'a.txt');
      assert.equal(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8'), 'hello\n');
    } finally {
      proc.kill('SIGTERM');
      await new Promise((resolve) => (proc.exitCode !== null ? resolve(undefined) : proc.once('exit', resolve)));
      tmp.cleanup();
    }
  },
);
