import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor } from '@ide-companion/testkit';
import { installers } from '../src/editors.js';
import { BIN, binEnv, runBin, setup } from './support/clientCommands.js';

test('install without EDITOR lists the registry (exit 0)', async () => {
  const s = await setup({ start: false });
  try {
    const r = await runBin(['install', '--json'], { cwd: s.workspace, env: binEnv(s.tmp, { NVIM: '/tmp/nvim.sock' }) });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(
      out.installers.map((i: { id: string }) => i.id),
      (await installers()).map((i) => i.id),
    );
    assert.ok(out.installers.some((i: { id: string }) => i.id === 'neovim'));
    assert.equal(out.detectedEditor.name, 'neovim');
    // Issue 39: the Gemini CLI extension was listed as an editor ("gemini  Gemini CLI (editor found, not installed)").
    const text = await runBin(['install'], { cwd: s.workspace, env: binEnv(s.tmp, { HOME: s.tmp, PATH: path.dirname(process.execPath) }) });
    assert.match(text.stdout, /^ {2}gemini +Gemini CLI extension \(gemini not found, not installed\)$/m);
    assert.match(text.stdout, /^ {2}neovim +Neovim \(editor (not )?found, (not )?installed\)$/m);
  } finally {
    await s.cleanup();
  }
});

test('install of an unknown editor is a usage error naming what exists (exit 2)', async () => {
  const s = await setup({ start: false });
  try {
    const r = await runBin(['install', 'no-such-editor'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no installer for 'no-such-editor' \(available: /);
  } finally {
    await s.cleanup();
  }
});

test("install neovim runs the registry's installer: --dry-run changes nothing, a real run installs", async () => {
  const s = await setup({ start: false });
  try {
    const data = `${s.tmp}/xdg-data`;
    const env = binEnv(s.tmp, { XDG_DATA_HOME: data });
    const dry = await runBin(['install', 'neovim', '--dry-run', '--json'], { cwd: s.workspace, env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(JSON.parse(dry.stdout).success, true);
    assert.equal(fs.existsSync(data), false, 'a dry run writes nothing');
    const real = await runBin(['install', 'Neovim'], { cwd: s.workspace, env });
    assert.equal(real.code, 0, real.stderr);
    assert.match(real.stdout, /^✔ /);
    // Issue 39: the message named Gemini CLI alone; issue 36: every other agent, from AGENTS.
    assert.match(real.stdout, /Qwen Code, Claude Code, opencode, GitHub Copilot CLI, Codex CLI, Amp and Factory Droid find it too/);
    assert.ok(fs.existsSync(`${data}/nvim/site/pack/ide-companion/start/ide-companion`));
  } finally {
    await s.cleanup();
  }
});

// Issue 39, trip 10: the install messages named Gemini CLI alone; Neovim's is checked above, VS Code's in editors/vscode/test/selectionFocus.test.ts.
test("install vim: the message names every agent that finds the companion, as Neovim's does", async () => {
  const s = await setup({ start: false });
  try {
    const home = path.join(s.tmp, 'home');
    fs.mkdirSync(home);
    const real = await runBin(['install', 'vim'], { cwd: s.workspace, env: binEnv(s.tmp, { HOME: home }) });
    assert.equal(real.code, 0, real.stderr);
    assert.match(real.stdout, /^✔ /);
    assert.match(real.stdout, /Qwen Code, Claude Code, opencode, GitHub Copilot CLI, Codex CLI, Amp and Factory Droid find it too/);
    assert.ok(fs.existsSync(path.join(home, '.vim', 'pack', 'ide-companion', 'start', 'ide-companion')));
  } finally {
    await s.cleanup();
  }
});

test("install emacs, micro and kakoune: the message names every agent that finds the companion, as Vim's does", async () => {
  const s = await setup({ start: false });
  try {
    for (const editor of ['emacs', 'micro', 'kakoune']) {
      const home = path.join(s.tmp, `home-${editor}`);
      fs.mkdirSync(home);
      const real = await runBin(['install', editor], { cwd: s.workspace, env: binEnv(s.tmp, { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') }) });
      assert.equal(real.code, 0, `${editor}: ${real.stderr}`);
      assert.match(real.stdout, /Qwen Code, Claude Code, opencode, GitHub Copilot CLI, Codex CLI, Amp and Factory Droid find it too/, editor);
    }
  } finally {
    await s.cleanup();
  }
});

test('install prints no control character an installer line echoes from the environment', async () => {
  const s = await setup({ start: false });
  try {
    // OSC 52 (a clipboard write) in a folder name the installer names in its log
    const data = `${s.tmp}/xdg\x1b]52;c;aGk=\x07data`;
    const env = binEnv(s.tmp, { XDG_DATA_HOME: data });
    const dry = await runBin(['install', 'neovim', '--dry-run'], { cwd: s.workspace, env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stderr, /xdg\]52;c;aGk=data/, 'the installer named the folder');
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    assert.doesNotMatch(dry.stderr + dry.stdout, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  } finally {
    await s.cleanup();
  }
});

test('the registry finds an installer by id, display name or a fork it serves', async () => {
  const { findInstaller } = await import('../src/editors.js');
  assert.equal((await findInstaller('neovim'))?.id, 'neovim');
  assert.equal((await findInstaller('VS Code'))?.id, 'vscode');
  for (const fork of ['cursor', 'Windsurf', 'vscodium', 'vscodefork']) assert.equal((await findInstaller(fork))?.id, 'vscode', fork);
  assert.equal(await findInstaller('no-such-editor'), undefined);
});

/*
 * The names users type (issue 30): `install nvim` was "no installer", and a
 * near miss (`instal`, `install neovin`) printed the whole help or the list
 * with no hint. Now the editors' commands are aliases, and a near miss gets
 * one line naming the command meant.
 */
test('install takes the names users type: nvim, code, gvim (a dry run each)', async () => {
  const s = await setup({ start: false });
  try {
    const env = binEnv(s.tmp, { XDG_DATA_HOME: `${s.tmp}/xdg-data` });
    for (const [name, id] of [
      ['nvim', 'neovim'],
      ['code', 'vscode'],
      ['gvim', 'vim'],
    ] as const) {
      const r = await runBin(['install', name, '--dry-run', '--json'], { cwd: s.workspace, env });
      assert.equal(r.code === 2 ? r.stderr : JSON.parse(r.stdout).editor, id, name);
    }
  } finally {
    await s.cleanup();
  }
});

test("a near miss gets one line naming what was meant: `instal`, `install neovin`; a far one doesn't guess", async () => {
  const s = await setup({ start: false });
  try {
    const env = binEnv(s.tmp);
    const command = await runBin(['instal', 'neovim'], { cwd: s.workspace, env });
    assert.equal(command.code, 2);
    assert.equal(command.stderr, "ide-companion: unknown command 'instal'; did you mean 'ide-companion install'? ('ide-companion --help' lists them)\n");
    assert.equal(command.stdout, '');
    const editor = await runBin(['install', 'neovin'], { cwd: s.workspace, env });
    assert.equal(editor.code, 2);
    assert.match(editor.stderr, /^ide-companion install: no installer for 'neovin'; did you mean 'ide-companion install neovim'\? \(available: /);
    // Issue 39: `help instal` named nothing.
    const help = await runBin(['help', 'instal'], { cwd: s.workspace, env });
    assert.equal(help.code, 2);
    assert.equal(help.stderr, "ide-companion: no command 'instal'; did you mean 'ide-companion help install'? ('ide-companion --help' lists them)\n");
    assert.equal(help.stdout, '');
    const far = await runBin(['install', 'no-such-editor'], { cwd: s.workspace, env });
    assert.doesNotMatch(far.stderr, /did you mean/);
  } finally {
    await s.cleanup();
  }
});

/*
 * "Removes everything" (issue 30): `~/.qwen/ide` and `~/.claude/ide`, made
 * by a companion, stayed after `uninstall`. Now the folders a companion made
 * in the home are noted, and `uninstall EDITOR` removes them once empty;
 * the user's own (`~/.claude` with its settings) stay as they were.
 */
test('uninstall removes the agents’ folders a companion made, once empty, and leaves the user’s', { timeout: 120_000 }, async (t) => {
  const s = await setup({ start: false });
  t.after(() => s.cleanup());
  const home = path.join(s.tmp, 'home');
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), '{}\n');
  const env = binEnv(s.tmp, { HOME: home, QWEN_HOME: '', CLAUDE_CONFIG_DIR: '', XDG_STATE_HOME: '', XDG_DATA_HOME: '' });
  // A companion as the user starts one, naming both agents; stopped as a terminal would.
  const serve = spawn(process.execPath, [BIN, 'serve', '--agents', 'gemini,qwen,claude', '--no-color'], {
    cwd: s.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
  serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((resolve) => serve.once('exit', resolve));
  t.after(() => serve.kill('SIGKILL'));
  await waitFor(() => out.includes('companion for Gemini CLI, Qwen Code, Claude Code') || undefined, `serve to start:\n${out}`, 60_000);
  assert.ok(fs.existsSync(path.join(home, '.qwen', 'ide')) && fs.existsSync(path.join(home, '.claude', 'ide')));
  // While it runs its lock files keep their folders.
  assert.equal((await runBin(['install', 'neovim'], { cwd: s.workspace, env })).code, 0);
  const during = await runBin(['uninstall', 'neovim'], { cwd: s.workspace, env });
  assert.equal(during.code, 0, during.stderr);
  assert.ok(fs.existsSync(path.join(home, '.qwen', 'ide')));
  serve.kill('SIGTERM');
  await exited;
  const after = await runBin(['uninstall', 'neovim'], { cwd: s.workspace, env });
  assert.equal(after.code, 0, after.stderr);
  assert.match(after.stdout, /Removed the empty agent folders it had made: /);
  assert.equal(fs.existsSync(path.join(home, '.qwen')), false);
  assert.deepEqual(fs.readdirSync(path.join(home, '.claude')), ['settings.json']);
  assert.equal(fs.existsSync(path.join(home, '.local', 'state', 'ide-companion')), false, 'the note goes too');
});
