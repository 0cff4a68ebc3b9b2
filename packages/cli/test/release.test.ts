/**
 * The released package as a user gets it (issue 20): `npm run release` builds
 * the tarball, which is installed with `npm install -g --offline` into a
 * throwaway HOME and npm prefix, with no clone on PATH and nothing inherited
 * from this repository's environment. From that install: `ide-companion
 * install neovim`, then the real gemini 0.61.0 started with `:Gemini` in that
 * Neovim reviews an edit there; `npx ./TARBALL serve` connects gemini; `install
 * vscode` puts the .vsix into code-server; `uninstall` and `npm uninstall -g`
 * leave nothing behind. And the package's own shape: its file list, one
 * version everywhere, no dependencies.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { attach } from 'neovim';
import {
  findGeminiCli,
  geminiArgv,
  makeGeminiRunDirs,
  shellCommand,
  skipUnless,
  submitLine,
  Tmux,
  waitFor,
  waitIdeConnected,
  which,
  writeFileTurns,
} from '@ide-companion/testkit';
import { INSTALL_MARKER } from '@ide-companion/command/pluginInstall';
import { COMPANION_VERSION } from '@ide-companion/shared/version';
import { LISP_FILES } from '@ide-companion/emacs';
import { buildRelease, PACKAGE_NAME, REPO_ROOT, type Release } from '../src/build/release.js';

const cli = findGeminiCli();
const nvim = process.env['IDE_COMPANION_NVIM'] || which('nvim');
/** code-server as scripts/install-code-server.sh leaves it (a user's would be on PATH). */
const CODE_SERVER_ENTRY = path.join(REPO_ROOT, '.tools', 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const codeServer = fs.existsSync(CODE_SERVER_ENTRY);
const skip =
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(nvim !== undefined, 'nvim', 'apt-get install -y neovim') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');
const STEP_MS = 60_000;
const ORIGINAL = 'original line\n';
const PROPOSAL = 'line from the model\n';
const EDITED = 'line the user wrote in Neovim\n';

function listening(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const conn = net.createConnection(socket);
    conn.once('connect', () => (conn.end(), resolve(true)));
    conn.once('error', () => resolve(false));
  });
}

describe('the released package, installed on a fresh machine', { skip, timeout: 12 * 60_000 }, () => {
  const dirs = makeGeminiRunDirs('ide-companion-release-', { files: { 'a.txt': ORIGINAL }, turns: writeFileTurns('a.txt', PROPOSAL) });
  const prefix = path.join(dirs.path, 'prefix');
  const tools = path.join(dirs.path, 'tools');
  let release: Release;
  /** The fresh machine's whole environment: its HOME, its PATH (npm's prefix, node, the system), nothing of this repository. */
  const env: Record<string, string> = {
    HOME: dirs.home,
    TMPDIR: dirs.tmpdir,
    PATH: [tools, path.join(prefix, 'bin'), path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    GEMINI_API_KEY: 'dummy',
    // This machine is a container: without it gemini dials host.docker.internal.
    REMOTE_CONTAINERS: '1',
  };
  const run = (argv: string[], options: { cwd?: string } = {}) =>
    spawnSync(argv[0]!, argv.slice(1), { cwd: options.cwd ?? dirs.workspace, env, encoding: 'utf8', timeout: 120_000 });
  const ok = (argv: string[], options: { cwd?: string } = {}) => {
    const r = run(argv, options);
    assert.equal(r.status, 0, `${argv.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const homeFiles = () => (fs.readdirSync(dirs.home, { recursive: true }) as string[]).filter((f) => !f.startsWith('.npm') && !f.startsWith('.gemini')).sort();

  before(async () => {
    release = await buildRelease(path.join(dirs.path, 'dist-release'));
    fs.mkdirSync(tools);
    // `gemini` on the fresh machine: the pinned CLI with scripted turns, as :Gemini starts it.
    fs.writeFileSync(path.join(tools, 'gemini'), `#!/bin/sh\nexec ${shellCommand(geminiArgv(cli!, dirs.fakeResponses), {}, [])} "$@"\n`, {
      mode: 0o755,
    });
    if (codeServer) fs.writeFileSync(path.join(tools, 'code-server'), `#!/bin/sh\nexec '${process.execPath}' '${CODE_SERVER_ENTRY}' "$@"\n`, { mode: 0o755 });
  });
  after(() => dirs.cleanup());

  test('the tarball holds the bundled commands and every end, nothing from tests or sources, and no dependencies', (t) => {
    const files = execFileSync('tar', ['-tzf', release.tarball], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    const size = fs.statSync(release.tarball).size;
    t.diagnostic(`${path.basename(release.tarball)}: ${files.length} files, ${(size / 1024).toFixed(0)} KiB`);
    for (const want of [
      'package.json',
      'README.md',
      'LICENSE',
      'packages/cli/bin/ide-companion.js',
      'packages/cli/dist/commands/status.cjs',
      'packages/cli/dist/commands/help.cjs',
      'packages/cli/dist/commands/mcp-session.cjs',
      'packages/cli/dist/commands/make-client.cjs',
      'packages/cli/dist/commands/discovery-contract.cjs',
      'packages/cli/bin/ide-companion-serve.mjs',
      'packages/cli/bin/ide-companion-connect.mjs',
      'packages/cli/gemini-extension/ide-companion-mcp.mjs',
      'editors/neovim/lua/ide_companion/init.lua',
      'editors/neovim/host/ide-companion-host.mjs',
      'editors/vim/plugin/ide_companion.vim',
      ...LISP_FILES.map((name) => `editors/emacs/${name}`),
      'editors/jsonlines/host/ide-companion-bridge.mjs',
      'editors/vscode/ide-companion-vscode.vsix',
    ]) {
      assert.ok(files.includes(want), `${want} is missing from the package`);
    }
    const unwanted = files.filter((f) => /(^|\/)(test|src)\//.test(f) || /\.(ts|map)$/.test(f) || f.includes('node_modules'));
    assert.deepEqual(unwanted, []);
    // One copy of the MCP SDK's server side, which serve and the hosts share.
    assert.deepEqual(
      files.filter((f) => f.endsWith('/sdk.mjs')),
      ['packages/server/chunks/sdk.mjs'],
    );
    assert.ok(size < 4 * 1024 * 1024, `the package is ${size} bytes`);
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', release.tarball, 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
    assert.equal(manifest['name'], PACKAGE_NAME);
    assert.equal(manifest['dependencies'], undefined);
    assert.equal(manifest['optionalDependencies'], undefined);
    assert.deepEqual(manifest['bin'], { [PACKAGE_NAME]: 'packages/cli/bin/ide-companion.js' });
    assert.deepEqual(release.artifacts.map((a) => path.basename(a)).sort(), [
      `ide-companion-${COMPANION_VERSION}.tar`,
      `ide-companion-${COMPANION_VERSION}.tgz`,
      `ide-companion-neovim-${COMPANION_VERSION}.tar.gz`,
      `ide-companion-vim-${COMPANION_VERSION}.tar.gz`,
      `ide-companion-vscode-${COMPANION_VERSION}.vsix`,
    ]);
  });

  test('doctor and list start without zod or the client: files of their own, read once a discovery file or a companion is there', () => {
    const command = (file: string) => execFileSync('tar', ['-xzOf', release.tarball, `package/packages/cli/dist/commands/${file}`], { encoding: 'utf8' });
    for (const file of ['doctor.cjs', 'list.cjs']) assert.doesNotMatch(command(file), /\$ZodType/, `${file} holds zod`);
    assert.match(command('doctor.cjs'), /require\("\.\/make-client\.cjs"\)/);
    assert.match(command('discovery-contract.cjs'), /\$ZodType/);
  });

  test('one version: the package, every workspace, the plugins, the extensions, the Emacs package and the MCP serverInfo', () => {
    const versions: Record<string, string> = {};
    const json = (file: string) => JSON.parse(fs.readFileSync(path.join(REPO_ROOT, file), 'utf8')) as { version: string; workspaces?: string[] };
    const root = json('package.json');
    versions['package.json'] = root.version;
    for (const ws of root.workspaces ?? []) versions[`${ws}/package.json`] = json(`${ws}/package.json`).version;
    versions['gemini-extension.json'] = json('packages/cli/gemini-extension/gemini-extension.json').version;
    versions['ide-companion.el'] = /^;; Version: (\S+)$/m.exec(fs.readFileSync(path.join(REPO_ROOT, 'editors/emacs/ide-companion.el'), 'utf8'))?.[1] ?? 'none';
    versions['the .vsix'] = JSON.parse(
      execFileSync('unzip', ['-p', release.artifacts.find((a) => a.endsWith('.vsix'))!, 'extension/package.json'], { encoding: 'utf8' }),
    ).version;
    versions['the tarball'] = JSON.parse(execFileSync('tar', ['-xzOf', release.tarball, 'package/package.json'], { encoding: 'utf8' })).version;
    versions['serverInfo (COMPANION_VERSION)'] = COMPANION_VERSION;
    const distinct = new Set(Object.values(versions));
    assert.equal(distinct.size, 1, JSON.stringify(versions, null, 2));
  });

  test('npm install -g --offline from the tarball, `install neovim`, and gemini 0.61.0 run with :Gemini reviews an edit in that Neovim', async (t) => {
    ok(['npm', 'install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, release.tarball]);
    assert.equal(ok(['ide-companion', '--version']).trim(), COMPANION_VERSION);
    assert.equal(fs.realpathSync(path.join(prefix, 'bin', 'ide-companion')).startsWith(fs.realpathSync(prefix)), true, 'the command is the installed copy');
    const installed = ok(['ide-companion', 'install', 'neovim']);
    assert.match(installed, /Installed the Neovim plugin/);

    const tmux = new Tmux(200, 50);
    t.after(() => tmux.stop());
    const socket = path.join(dirs.path, 'nvim.sock');
    // Neovim as the user starts it: no options but a socket for the test to look in; the plugin loads from the install.
    tmux.start(shellCommand(['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), nvim!, '-n', '--listen', socket, 'a.txt'], {}, []), {
      cwd: dirs.workspace,
    });
    await waitFor(() => listening(socket), 'nvim to listen', STEP_MS);
    const client = attach({ socket, options: { logger: { info() {}, warn() {}, error() {}, debug() {} } as never } });
    t.after(() => client.quit());
    const lua = <T>(code: string, ...args: unknown[]) => client.request('nvim_exec_lua', [code, args]) as Promise<T>;
    await waitFor(async () => (await lua('return require("ide_companion").is_running()')) === true, 'the companion in Neovim', STEP_MS);
    const runtime = await lua<string>("return vim.api.nvim_get_runtime_file('lua/ide_companion/init.lua', false)[1]");
    assert.ok(runtime.startsWith(path.join(dirs.home, '.local', 'share', 'nvim', 'site', 'pack')), `the plugin loaded from ${runtime}`);

    await client.command('Gemini');
    await tmux.waitForText('Type your message', 120_000);
    await waitIdeConnected(tmux, 120_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tmux.screen()}`);
    });
    await submitLine(tmux, 'please write a.txt');
    const file = path.join(dirs.workspace, 'a.txt');
    const diff = await waitFor(
      async () => (await lua<Array<{ path: string; proposal: number }>>("return require('ide_companion.diff').list()")).find((d) => d.path === file),
      'the diff in Neovim',
      STEP_MS,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tmux.screen()}`);
    });
    await lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, { 'line the user wrote in Neovim' })", diff.proposal);
    await lua('vim.fn.win_gotoid(vim.fn.win_findbuf(...)[1])', diff.proposal);
    await client.command('write');
    await waitFor(() => fs.readFileSync(file, 'utf8') === EDITED, "gemini to write the user's text", STEP_MS).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tmux.screen()}`);
    });
  });

  test('`npx ./TARBALL serve` in a project folder: gemini there says Connected to the terminal companion', async (t) => {
    const project = path.join(dirs.path, 'npx-project');
    fs.mkdirSync(project);
    const serve = new Tmux(160, 40);
    const gemini = new Tmux(160, 50);
    t.after(async () => {
      await gemini.stop();
      await serve.stop();
    });
    const cleanEnv = (argv: string[]) => shellCommand(['env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv], {}, []);
    serve.start(cleanEnv(['npx', '--offline', '--yes', path.relative(project, release.tarball), 'serve', '--no-color']), { cwd: project });
    await serve.waitForText(`cd ${project} && gemini`, 120_000);
    gemini.start(cleanEnv(['gemini']), { cwd: project });
    await gemini.waitForText('Type your message', 120_000);
    const { status } = await waitIdeConnected(gemini, 120_000);
    assert.match(status, /Connected to IDE Companion \(terminal\)/);
  });

  test(
    '`install vscode` from the package puts the .vsix into code-server',
    { skip: codeServer ? false : 'code-server is not installed (scripts/install-code-server.sh)' },
    () => {
      const out = ok(['ide-companion', 'install', 'vscode']);
      assert.match(out, /Installed the Gemini CLI companion in code-server/);
      const listed = ok(['code-server', '--list-extensions', '--show-versions']);
      assert.match(listed, new RegExp(`ide-companion\\.ide-companion-vscode@${COMPANION_VERSION.replace(/\./g, '\\.')}`));
    },
  );

  test('the Emacs package file installs with package-install-file and finds its host; the Vim archive is a native package Vim loads', (t) => {
    const artifact = (name: string) => release.artifacts.find((a) => path.basename(a) === name)!;
    const scratch = fs.mkdtempSync(path.join(dirs.path, 'artifacts-'));
    if (which('emacs')) {
      const elpa = path.join(scratch, 'elpa');
      const form = `(progn (setq package-user-dir ${JSON.stringify(elpa)}) (package-initialize) (package-install-file ${JSON.stringify(artifact(`ide-companion-${COMPANION_VERSION}.tar`))}) (require 'ide-companion) (princ (format "HOST=%s" (ide-companion--host-file))))`;
      const r = spawnSync('emacs', ['--batch', '-Q', '--eval', form], { encoding: 'utf8', env: { ...env, HOME: scratch }, timeout: 60_000 });
      const host = /HOST=(\S+)/.exec(r.stdout)?.[1];
      assert.ok(
        host && host.startsWith(path.join(elpa, `ide-companion-${COMPANION_VERSION}`)) && fs.existsSync(host),
        `package-install-file: ${r.stdout}\n${r.stderr}`,
      );
      // One package: every file of it installed and byte-compiled beside the main one.
      const installed = path.join(elpa, `ide-companion-${COMPANION_VERSION}`);
      for (const name of LISP_FILES) assert.ok(fs.existsSync(path.join(installed, `${name}c`)), `${name}c in ${installed}`);
    } else t.diagnostic('emacs is not installed: the Emacs package file is not checked');
    if (which('vim')) {
      const start = path.join(scratch, '.vim', 'pack', 'ide-companion', 'start');
      fs.mkdirSync(start, { recursive: true });
      execFileSync('tar', ['-xzf', artifact(`ide-companion-vim-${COMPANION_VERSION}.tar.gz`), '-C', start]);
      const vimrc = path.join(scratch, '.vimrc');
      fs.writeFileSync(vimrc, 'set nocompatible\nlet g:ide_companion_auto_start = 0\n');
      const r = spawnSync('vim', ['-N', '-es', '-i', 'NONE', '-u', vimrc, '-c', 'if exists(":GeminiStatus") | qa! | else | cq | endif'], {
        encoding: 'utf8',
        env: { ...env, HOME: scratch },
        timeout: 30_000,
      });
      assert.equal(r.status, 0, `Vim did not load the plugin from the archive: ${r.stdout}${r.stderr}`);
      assert.ok(fs.existsSync(path.join(start, 'ide-companion', 'host', 'ide-companion-bridge.mjs')), 'the host is in the archive');
    } else t.diagnostic('vim is not installed: the Vim archive is not checked');
  });

  test('an older plugin is replaced by the next `install`; until then `install` and `doctor` say the versions differ', () => {
    const target = path.join(dirs.home, '.local', 'share', 'nvim', 'site', 'pack', 'ide-companion', 'start', 'ide-companion');
    const marker = path.join(target, INSTALL_MARKER);
    fs.writeFileSync(marker, JSON.stringify({ ...JSON.parse(fs.readFileSync(marker, 'utf8')), version: '0.0.1' }));
    fs.writeFileSync(path.join(target, 'lua', 'ide_companion', 'init.lua'), '-- an older plugin\n');
    assert.match(ok(['ide-companion', 'install']), /neovim\s+Neovim \(editor found, installed 0\.0\.1: run install again for /);
    const doctor = run(['ide-companion', 'doctor']).stdout;
    assert.match(doctor, new RegExp(`Neovim is version 0\\.0\\.1, this ide-companion is ${COMPANION_VERSION.replace(/\./g, '\\.')}`));
    assert.match(doctor, /ide-companion install neovim/);
    ok(['ide-companion', 'install', 'neovim']);
    assert.equal(JSON.parse(fs.readFileSync(marker, 'utf8')).version, COMPANION_VERSION);
    assert.notEqual(fs.readFileSync(path.join(target, 'lua', 'ide_companion', 'init.lua'), 'utf8'), '-- an older plugin\n');
  });

  test('`uninstall EDITOR` removes what install put there, and `npm uninstall -g` leaves nothing behind', () => {
    const before = homeFiles();
    assert.ok(
      before.some((f) => f.includes(path.join('pack', 'ide-companion'))),
      'the Neovim plugin is installed',
    );
    assert.match(ok(['ide-companion', 'uninstall', 'neovim']), /Removed the Neovim plugin/);
    if (codeServer) {
      assert.match(ok(['ide-companion', 'uninstall', 'vscode']), /Uninstalled the extension from code-server/);
      assert.doesNotMatch(ok(['code-server', '--list-extensions']), /ide-companion/);
    }
    // VS Code (code-server too) drops an uninstalled extension from extensions.json and deletes its folder at its next start.
    const extensions = path.join('.local', 'share', 'code-server', 'extensions');
    const listed = path.join(dirs.home, extensions, 'extensions.json');
    const kept = fs.existsSync(listed)
      ? (JSON.parse(fs.readFileSync(listed, 'utf8')) as Array<{ relativeLocation: string }>).map((e) => e.relativeLocation)
      : [];
    const pendingDelete = (f: string) => f.startsWith(extensions + path.sep) && !kept.includes(f.slice(extensions.length + 1).split(path.sep)[0]!);
    assert.deepEqual(
      homeFiles().filter((f) => f.includes('ide-companion') && !pendingDelete(f)),
      [],
      'nothing named ide-companion is left in HOME',
    );
    ok(['npm', 'uninstall', '-g', '--prefix', prefix, PACKAGE_NAME]);
    assert.deepEqual(fs.readdirSync(path.join(prefix, 'bin')), []);
    assert.deepEqual(fs.readdirSync(path.join(prefix, 'lib', 'node_modules')), []);
    assert.notEqual(run(['sh', '-c', 'command -v ide-companion']).status, 0, 'ide-companion is gone from PATH');
  });
});
