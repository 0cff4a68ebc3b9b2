/**
 * What is the micro end's own: `ide-companion install micro` / `uninstall
 * micro` as micro users install plugins (MICRO_CONFIG_HOME, XDG_CONFIG_HOME,
 * ~/.config/micro), leaving nothing it made; and hostile file names and text
 * through micro's diff and its Lua JSON, byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectGemini, makeTempDir, repoRoot, waitFor } from '@ide-companion/testkit';
import { microDriver } from './driver.js';
import { skipMicro, type MicroSession } from './harness.js';

const BIN = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

function cli(args: string[], env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Every path under `dir`, relative. */
function tree(dir: string): string[] {
  return fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).sort() : [];
}

test('install micro copies the plugin and its host where micro loads plugins; uninstall leaves nothing it made', async (t) => {
  const tmp = makeTempDir('ide-companion-micro-install-');
  t.after(() => tmp.cleanup());
  const home = path.join(tmp.path, 'home');
  fs.mkdirSync(home);
  const cases: Array<[Record<string, string>, string]> = [
    [{ HOME: home }, path.join(home, '.config', 'micro', 'plug', 'ide-companion')],
    [{ HOME: home, XDG_CONFIG_HOME: path.join(tmp.path, 'xdg') }, path.join(tmp.path, 'xdg', 'micro', 'plug', 'ide-companion')],
    [{ HOME: home, MICRO_CONFIG_HOME: path.join(tmp.path, 'my micro') }, path.join(tmp.path, 'my micro', 'plug', 'ide-companion')],
  ];
  for (const [env, target] of cases) {
    const before = tree(tmp.path);
    const installed = cli(['install', 'micro'], env);
    assert.equal(installed.status, 0, installed.out);
    for (const file of ['ide-companion.lua', 'repo.json', 'help/ide-companion.md', 'host/ide-companion-bridge.mjs', 'host/chunks/sdk.mjs'])
      assert.ok(fs.existsSync(path.join(target, file)), `${file} in ${target}`);
    // micro's own plugin list names it (micro parses repo.json; its Name is an identifier).
    const repo = JSON.parse(fs.readFileSync(path.join(target, 'repo.json'), 'utf8')) as Array<{ Name: string }>;
    assert.match(repo[0]!.Name, /^[_A-Za-z0-9]+$/);
    // Again: an upgrade in place.
    assert.equal(cli(['install', 'micro'], env).status, 0);
    const removed = cli(['uninstall', 'micro'], env);
    assert.equal(removed.status, 0, removed.out);
    assert.deepEqual(tree(tmp.path), before, `uninstall left what install made (${JSON.stringify(env)})`);
  }
  // A folder the installer did not write is left alone.
  const foreign = path.join(home, '.config', 'micro', 'plug', 'ide-companion');
  fs.mkdirSync(foreign, { recursive: true });
  fs.writeFileSync(path.join(foreign, 'mine.lua'), '-- the user\n');
  assert.notEqual(cli(['install', 'micro'], { HOME: home }).status, 0);
  assert.notEqual(cli(['uninstall', 'micro'], { HOME: home }).status, 0);
  assert.equal(fs.readFileSync(path.join(foreign, 'mine.lua'), 'utf8'), '-- the user\n');
});

const HOSTILE_NAMES = [
  'sp ace.txt',
  `q"uo'te.txt`,
  '$(touch pwned).txt',
  'back\\slash.txt',
  '-dash.txt',
  'ünï cödé ✓.txt',
  '[x] (y) %z.txt',
  'proposal for a.txt',
];
const HOSTILE_TEXT = [
  'quotes " and \' and \\ backslashes \\n (not a newline)\n',
  'crlf\r\nlines\r\n',
  'no final newline',
  'tabs\tand\u0001control\u001fcharacters\u007f\n',
  'emoji 😀 and 𝄞, bidi \u202e and \u2028 separators\n',
  '{"type":"request","id":1}\n]]\n--[[\n',
  '',
];

test(
  'hostile file names and text: shown in micro as proposed, the user’s text accepted byte for byte, nothing run or written beside',
  { skip: skipMicro, timeout: 5 * 60_000 },
  async (t) => {
    const files = Object.fromEntries(HOSTILE_NAMES.map((name) => [name, 'original\n']));
    const s = await microDriver.start(files);
    t.after(() => s.close());
    const gemini = await connectGemini(s);
    t.after(() => gemini.close());
    for (const [i, name] of HOSTILE_NAMES.entries()) {
      const file = path.join(s.workspace, name);
      await s.open(file);
      const proposal = HOSTILE_TEXT[i % HOSTILE_TEXT.length]!;
      // What a user can type there: micro keeps a buffer's line endings (a CRLF proposal stays CRLF).
      const edited = `${proposal}${proposal.includes('\r\n') ? '\r\n' : '\n'}edited by the user ✓ "\\ $(x)`;
      const outcome = gemini.client.openDiff(file, proposal);
      outcome.catch(() => undefined);
      // micro shows a CRLF text with its line endings as the file format, the same bytes.
      assert.equal(await s.shownProposal(file), proposal, `the proposal for ${name} as micro shows it`);
      await s.editProposal!(file, edited);
      await s.accept(file);
      assert.deepEqual(await outcome, { status: 'accepted', content: edited }, `the accepted text for ${name}`);
      assert.equal(await s.showsProposal(file), false);
    }
    // Names and text were data: nothing ran, no file appeared beside the workspace's own.
    assert.deepEqual(fs.readdirSync(s.workspace).sort(), [...HOSTILE_NAMES].sort());
    await s.ping();
  },
);

test(
  'after an accept the agent’s write is reread into the buffer without micro’s "changed on disk" question',
  { skip: skipMicro, timeout: 2 * 60_000 },
  async (t) => {
    const s = await microDriver.start({ 'w.txt': 'before\n' });
    t.after(() => s.close());
    const gemini = await connectGemini(s);
    t.after(() => gemini.close());
    const file = path.join(s.workspace, 'w.txt');
    await s.open(file);
    const outcome = gemini.client.openDiff(file, 'after\n');
    await s.shownProposal(file);
    await s.accept(file);
    assert.equal((await outcome).status, 'accepted');
    // The agent writes the file; micro checks the pane's file at its next event (a job's line is one), before the host's reload comes.
    fs.writeFileSync(file, 'after\n');
    await s.ping();
    await waitFor(async () => (await s.bufferText!(file)) === 'after\n', 'the buffer reread', 20_000);
    await s.ping();
    const micro = (s as typeof s & { micro: MicroSession }).micro;
    assert.equal(await micro.run<string>('return tostring(micro.InfoBar().HasPrompt)'), 'false', `micro asks whether to reload:\n${micro.tmux.screen()}`);
  },
);
