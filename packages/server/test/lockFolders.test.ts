/**
 * The agents' lock folders are the user's (issues 27 and 30): a `~/.claude`
 * that is a link to the user's own folder silently turned the Claude face
 * off (the link was refused), a 0755 `~/.qwen` was chmod-ed to 0700, and
 * `~/.qwen/ide` and `~/.claude/ide` were made for users of neither agent.
 * Now a link to a folder the user owns is used, the user's folders keep
 * their modes, only the `ide` folder we make gets 0700, and an agent's
 * folders are made only when the user has it (its folder exists) or named it.
 * HOME is the test's; an agent's own variable (QWEN_HOME, CLAUDE_CONFIG_DIR)
 * counts as having it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import { makeTempDir } from '@ide-companion/testkit';
import { Companion, type CompanionOptions } from '../src/companion.js';
import { silentLogger } from '../src/logger.js';

const mode = (p: string): string => (fs.statSync(p).mode & 0o777).toString(8);

/** A companion with HOME=`home` (so `home/.qwen`, `home/.claude`); `env` set while it is made and starts. */
async function companionWith(t: TestContext, options: Partial<CompanionOptions> = {}, env: Record<string, string> = {}) {
  const tmp = makeTempDir('ide-companion-lockdirs-');
  const home = path.join(tmp.path, 'home');
  fs.mkdirSync(path.join(home, 'ws'), { recursive: true });
  const vars = { HOME: home, QWEN_HOME: '', CLAUDE_CONFIG_DIR: '', IDE_COMPANION_AGENTS: '', ...env };
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  // Read as the companion is made (the agents) and as it starts (the folders).
  Object.assign(process.env, vars);
  const companion = new Companion({
    ideInfo: { name: 'test-ide', displayName: 'Test IDE' },
    workspaceRoots: [path.join(home, 'ws')],
    tmpdir: tmp.path,
    logger: silentLogger,
    handleSignals: false,
    unixSocket: false,
    ...options,
  });
  t.after(async () => {
    await companion.stop();
    tmp.cleanup();
  });
  return {
    home,
    tmp: tmp.path,
    companion,
    start: async () => {
      try {
        await companion.start();
      } finally {
        for (const [k, v] of Object.entries(saved)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
      }
    },
  };
}

test('a ~/.claude that is a link to a folder the user owns is used: the Claude face is on, its lock file in the linked folder', async (t) => {
  const c = await companionWith(t, {});
  const real = path.join(c.tmp, 'dotfiles', 'claude');
  fs.mkdirSync(real, { recursive: true });
  fs.symlinkSync(real, path.join(c.home, '.claude'));
  await c.start();
  assert.ok(c.companion.agents.includes('claude'), `agents: ${c.companion.agents.join(', ')}`);
  assert.ok(fs.existsSync(path.join(real, 'ide', `${c.companion.port}.lock`)));
  assert.equal(mode(path.join(real, 'ide')), '700');
});

test("the user's 0755 ~/.qwen keeps its mode; the ide folder we make in it is 0700", async (t) => {
  const c = await companionWith(t, {});
  fs.mkdirSync(path.join(c.home, '.qwen'), { mode: 0o755 });
  fs.chmodSync(path.join(c.home, '.qwen'), 0o755);
  await c.start();
  assert.ok(fs.existsSync(path.join(c.home, '.qwen', 'ide', `${c.companion.port}.lock`)));
  assert.equal(mode(path.join(c.home, '.qwen')), '755');
  assert.equal(mode(path.join(c.home, '.qwen', 'ide')), '700');
});

test("an ide folder of the user's keeps its mode too", async (t) => {
  const c = await companionWith(t, {});
  fs.mkdirSync(path.join(c.home, '.claude', 'ide'), { recursive: true });
  fs.chmodSync(path.join(c.home, '.claude', 'ide'), 0o755);
  await c.start();
  assert.ok(fs.existsSync(path.join(c.home, '.claude', 'ide', `${c.companion.port}.lock`)));
  assert.equal(mode(path.join(c.home, '.claude', 'ide')), '755');
});

test('a user of neither Qwen Code nor Claude Code: no ~/.qwen or ~/.claude made, Gemini CLI served alone', async (t) => {
  const c = await companionWith(t, {});
  await c.start();
  assert.deepEqual(fs.readdirSync(c.home), ['ws']);
  assert.deepEqual(c.companion.agents, ['gemini']);
});

test('Copilot CLI by the same rule: an empty COPILOT_HOME names no folder, so a user without ~/.copilot gets none and is not served it', async (t) => {
  // Before: Copilot's own check counted COPILOT_HOME set to "" as having it (QWEN_HOME and CLAUDE_CONFIG_DIR did not
  // count empty), and ~/.copilot was made for a user who never installed Copilot CLI.
  const c = await companionWith(t, { unixSocket: true }, { COPILOT_HOME: '' });
  await c.start();
  assert.deepEqual(fs.readdirSync(c.home), ['ws']);
  assert.deepEqual(c.companion.agents, ['gemini']);
});

test('an agent named in `agents` gets its folders made (0700), the one not named none', async (t) => {
  const c = await companionWith(t, { agents: ['gemini', 'qwen'] });
  await c.start();
  // .local: the note of the folders made, for uninstall.
  assert.deepEqual(fs.readdirSync(c.home).sort(), ['.local', '.qwen', 'ws']);
  assert.equal(mode(path.join(c.home, '.qwen')), '700');
  assert.equal(mode(path.join(c.home, '.qwen', 'ide')), '700');
  assert.deepEqual(c.companion.agents, ['gemini', 'qwen']);
});

test('an agent named in IDE_COMPANION_AGENTS gets its folders made', async (t) => {
  const c = await companionWith(t, {}, { IDE_COMPANION_AGENTS: 'claude' });
  await c.start();
  assert.deepEqual(fs.readdirSync(c.home).sort(), ['.claude', '.local', 'ws']);
  assert.deepEqual(c.companion.agents, ['gemini', 'claude']);
});

test("an agent's own variable naming its folder counts as having it: the folder is made", async (t) => {
  const c = await companionWith(t, {}, { QWEN_HOME: '' });
  const qwenHome = path.join(c.tmp, 'qwen-home');
  process.env['QWEN_HOME'] = qwenHome;
  t.after(() => delete process.env['QWEN_HOME']);
  await c.start();
  assert.ok(fs.existsSync(path.join(qwenHome, 'ide', `${c.companion.port}.lock`)));
  assert.deepEqual(c.companion.agents, ['gemini', 'qwen']);
});

test('Amp by the same rule: a user without its data folder gets none and is not served it; one with it is, its ide folder 0700', async (t) => {
  const none = await companionWith(t, {}, { XDG_DATA_HOME: '', AMP_DATA_HOME: '' });
  await none.start();
  assert.deepEqual(fs.readdirSync(none.home), ['ws']);
  assert.equal(none.companion.agents.includes('amp'), false);

  // Its data folder where XDG_DATA_HOME says (made before the companion, which decides its agents as it is made).
  const data = makeTempDir('ide-companion-amp-data-');
  t.after(() => data.cleanup());
  fs.mkdirSync(path.join(data.path, 'amp'), { mode: 0o755 });
  const has = await companionWith(t, {}, { XDG_DATA_HOME: data.path, AMP_DATA_HOME: '' });
  await has.start();
  const lock = path.join(data.path, 'amp', 'ide', `${has.companion.port}.json`);
  assert.equal(has.companion.lockFilePath('amp'), lock);
  assert.equal(mode(lock), '600');
  assert.equal(mode(path.dirname(lock)), '700');
  assert.equal(mode(path.join(data.path, 'amp')), '755', "the user's folder keeps its mode");
  assert.ok(has.companion.agents.includes('amp'));
});

test('Amp named in IDE_COMPANION_AGENTS: its data folder and ide folder are made', async (t) => {
  const c = await companionWith(t, {}, { IDE_COMPANION_AGENTS: 'amp', XDG_DATA_HOME: '', AMP_DATA_HOME: '' });
  await c.start();
  const ide = path.join(c.home, '.local', 'share', 'amp', 'ide');
  assert.ok(fs.existsSync(path.join(ide, `${c.companion.port}.json`)));
  assert.equal(mode(ide), '700');
  assert.equal(mode(path.dirname(ide)), '700');
  assert.deepEqual(c.companion.agents, ['gemini', 'amp']);
});

test("Amp's CLI token (AMP_API_KEY) set: the user has Amp, its folders are made and it is served", async (t) => {
  const c = await companionWith(t, {}, { XDG_DATA_HOME: '', AMP_DATA_HOME: '', AMP_API_KEY: 'sgamp_test' });
  await c.start();
  assert.ok(fs.existsSync(path.join(c.home, '.local', 'share', 'amp', 'ide', `${c.companion.port}.json`)));
  assert.ok(c.companion.agents.includes('amp'));
});
