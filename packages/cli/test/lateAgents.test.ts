/**
 * An agent first run after the editor started (issue 39, item 3): its folder
 * (~/.qwen, ~/.claude, ~/.copilot, ~/.codex, ~/.local/share/amp) appears after
 * `serve` started, and it is served within seconds, not at the next start;
 * `list` and `doctor` say which agents are served and, for each other, why.
 * At the wire for every agent, with the real Qwen Code where it is installed.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import {
  IDE_COMPANION_BIN,
  askCodexIdeContext,
  connectClaudeClient,
  connectCopilotClient,
  connectRecordingClient,
  findQwenCode,
  makeQwenHome,
  makeTempDir,
  qwenCommand,
  skipUnless,
  startOpenAiMock,
  waitFor,
  waitQwenIdeConnected,
  which,
} from '@ide-companion/testkit';
import { runBin } from './support/clientCommands.js';
import { serveDirs, startServe } from './support/serveInTmux.js';

/** The environment of a user who has none of the agents yet: a fresh HOME, none of their variables. */
function freshUserEnv(home: string, tmpdir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TMPDIR: tmpdir };
  for (const name of [
    'QWEN_HOME',
    'CLAUDE_CONFIG_DIR',
    'COPILOT_HOME',
    'CODEX_HOME',
    'AMP_DATA_HOME',
    'AMP_API_KEY',
    'XDG_DATA_HOME',
    'IDE_COMPANION_AGENTS',
    'GEMINI_CLI_IDE_SERVER_PORT',
    'GEMINI_CLI_IDE_WORKSPACE_PATH',
    'GEMINI_CLI_IDE_AUTH_TOKEN',
    'GEMINI_CLI_IDE_PID',
  ])
    delete env[name];
  return env;
}

/**
 * `serve --json` in a fresh project, as a user with none of the agents' variables and a home holding only `homeDirs`;
 * `serveEnv` added for serve alone. Stopped and removed after the test, unless the test stopped it itself.
 */
async function serveFresh(t: TestContext, options: { homeDirs?: string[]; serveEnv?: NodeJS.ProcessEnv } = {}) {
  const tmp = makeTempDir('ide-companion-late-agents-');
  const home = path.join(tmp.path, 'home');
  const tmpdir = path.join(tmp.path, 'tmp');
  const project = path.join(tmp.path, 'proj');
  const env = freshUserEnv(home, tmpdir);
  for (const dir of [home, tmpdir, project, ...(options.homeDirs ?? []).map((d) => path.join(home, d))]) fs.mkdirSync(dir);
  const child = spawn(process.execPath, [IDE_COMPANION_BIN, 'serve', '--json'], {
    cwd: project,
    env: { ...env, ...options.serveEnv },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: any[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (l) => events.push(JSON.parse(l)));
  child.stderr!.resume();
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    tmp.cleanup();
  });
  const { port } = (await waitFor(() => events.find((e) => e.event === 'listening'), 'serve listening', 20_000)) as { port: number };
  return { root: tmp.path, home, project, env, child, events, port };
}

test(
  'agents whose folders appear after serve started are served within seconds; list and doctor say which are served and why the others are not',
  { timeout: 60_000 },
  async (t) => {
    const { root, home, project, env, child, events, port } = await serveFresh(t);
    assert.deepEqual(fs.readdirSync(home), [], 'nothing made in a home without the agents');

    // Before: served Gemini CLI alone, and each other agent's folder missing, in list and doctor.
    const before = await runBin(['list', '--json'], { cwd: project, env });
    const row = (JSON.parse(before.stdout) as any[]).find((r) => r.port === port);
    assert.deepEqual(row.agents, ['gemini']);
    for (const agent of ['qwen', 'claude', 'copilot', 'codex', 'amp', 'droid']) assert.equal(row.notServed[agent]?.why, 'folder missing', agent);
    assert.equal(row.notServed.qwen.folder, path.join(home, '.qwen'));
    const listText = await runBin(['list'], { cwd: project, env: { ...env, PATH: path.dirname(process.execPath) } });
    assert.match(listText.stdout, new RegExp(`Qwen Code: not installed \\(no qwen on PATH, no ${path.join(home, '.qwen').replace(/[.]/g, '\\.')}\\)`));
    // With the command on PATH, it is an agent not run yet.
    const bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'codex'), '#!/bin/sh\n', { mode: 0o755 });
    const doctor = await runBin(['doctor'], { cwd: project, env: { ...env, PATH: `${bin}${path.delimiter}${env['PATH']}` } });
    assert.match(doctor.stdout, /\[agents\] it serves Gemini CLI\n/);
    assert.ok(
      doctor.stdout.includes(`[agents] Codex CLI: not served yet: no ${path.join(home, '.codex')}; served within seconds of its first run, which makes it`),
      doctor.stdout,
    );

    // The user runs each agent for the first time: its folder appears.
    const madeAt = Date.now();
    for (const folder of ['.qwen', '.claude', '.copilot', '.codex', path.join('.local', 'share', 'amp'), '.factory'])
      fs.mkdirSync(path.join(home, folder), { recursive: true });
    const served = await waitFor(() => events.findLast((e) => e.event === 'agents' && e.served.length === 7), 'every agent served', 10_000);
    const took = Date.now() - madeAt;
    assert.deepEqual(served.served, ['gemini', 'qwen', 'claude', 'copilot', 'codex', 'amp', 'droid']);
    // Amp's parent (~/.local/share) was missing too: found by the slow poll (2 s), the others by the watch at once.
    assert.ok(took < 5_000, `served ${took} ms after the folders appeared`);

    // Each connects as it would.
    const qwenLock = JSON.parse(fs.readFileSync(path.join(home, '.qwen', 'ide', `${port}.lock`), 'utf8'));
    const qwen = await connectRecordingClient({ port, token: qwenLock.authToken });
    const claudeLock = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'ide', `${port}.lock`), 'utf8'));
    assert.deepEqual(claudeLock.workspaceFolders, [fs.realpathSync(project)]);
    const claude = await connectClaudeClient({ port, token: claudeLock.authToken });
    const copilotLock = JSON.parse(fs.readFileSync(path.join(home, '.copilot', 'ide', `${port}.lock`), 'utf8'));
    const copilot = await connectCopilotClient(copilotLock);
    assert.ok(fs.existsSync(path.join(home, '.local', 'share', 'amp', 'ide', `${port}.json`)), "Amp's lock file");
    // Factory Droid's is named by its face's own port.
    const droidLocks = fs.readdirSync(path.join(home, '.factory', 'ide')).filter((n) => n.endsWith('.lock'));
    assert.equal(droidLocks.length, 1, "Droid's lock file");
    const codex = await askCodexIdeContext(path.join(home, '.codex', 'ipc', 'ipc.sock'), fs.realpathSync(project));
    assert.equal(codex.resultType, 'success', JSON.stringify(codex));
    await waitFor(() => events.findLast((e) => e.event === 'sessions')?.count === 3, 'Qwen, Claude and Copilot sessions connected', 10_000);
    await Promise.all([qwen.close(), claude.close(), copilot.close()]);

    const after = await runBin(['list', '--json'], { cwd: project, env });
    const rowAfter = (JSON.parse(after.stdout) as any[]).find((r) => r.port === port);
    assert.deepEqual(rowAfter.agents, ['gemini', 'qwen', 'claude', 'copilot', 'codex', 'amp', 'droid']);
    assert.deepEqual(rowAfter.notServed, {});
    const listAfter = await runBin(['list'], { cwd: project, env });
    assert.match(listAfter.stdout, /Gemini CLI, Qwen Code, Claude Code, opencode, GitHub Copilot CLI, Codex CLI, Amp, Factory Droid/);

    // Stopped, it leaves none of the files it wrote late.
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    for (const file of [
      path.join(home, '.qwen', 'ide', `${port}.lock`),
      path.join(home, '.claude', 'ide', `${port}.lock`),
      path.join(home, '.copilot', 'ide', `${port}.lock`),
      path.join(home, '.local', 'share', 'amp', 'ide', `${port}.json`),
      path.join(home, '.codex', 'ipc', 'ipc.sock'),
      path.join(home, '.factory', 'ide', droidLocks[0]!),
    ])
      assert.equal(fs.existsSync(file), false, file);
  },
);

test('list and doctor: an agent left out by the user is "not chosen"', { timeout: 60_000 }, async (t) => {
  const { home, project, env, port } = await serveFresh(t, { homeDirs: ['.qwen'], serveEnv: { IDE_COMPANION_AGENTS: 'gemini,claude' } });
  assert.equal(fs.existsSync(path.join(home, '.qwen', 'ide')), false, 'not chosen: no lock file though its folder is there');
  const doctor = await runBin(['doctor'], { cwd: project, env });
  assert.ok(doctor.stdout.includes("[agents] Qwen Code: not chosen (the editor's agents option or IDE_COMPANION_AGENTS leaves it out)"), doctor.stdout);
  assert.match(doctor.stdout, /\[agents\] it serves Gemini CLI, Claude Code, opencode/);
  const list = JSON.parse((await runBin(['list', '--json'], { cwd: project, env })).stdout) as any[];
  assert.equal(list.find((r) => r.port === port).notServed.qwen.why, 'not chosen');
});

// Issue 39, Deliver: doctor says why each agent is not served; "not chosen" above, "folder missing" in the first test.
test('doctor: an agent whose folder was refused is "refused", with the reason; one not on PATH is "not installed"', { timeout: 60_000 }, async (t) => {
  // QWEN_HOME names a file: its ide folder cannot be made there, so the face is refused.
  const scratch = makeTempDir('ide-companion-refused-');
  t.after(() => scratch.cleanup());
  const notAFolder = path.join(scratch.path, 'qwen-home');
  fs.writeFileSync(notAFolder, 'a file, not a folder\n');
  const { home, project, env, port } = await serveFresh(t, { serveEnv: { QWEN_HOME: notAFolder } });
  const row = (JSON.parse((await runBin(['list', '--json'], { cwd: project, env })).stdout) as any[]).find((r) => r.port === port);
  assert.equal(row.notServed.qwen?.why, 'refused', JSON.stringify(row.notServed));
  // PATH holds node alone: no agent's command is found.
  const doctor = await runBin(['doctor'], { cwd: project, env: { ...env, PATH: path.dirname(process.execPath) } });
  assert.match(doctor.stdout, /\[agents\] Qwen Code: refused: .+ \(see the editor's log\)\n/);
  assert.ok(doctor.stdout.includes(`[agents] GitHub Copilot CLI: not installed (no copilot on PATH, no ${path.join(home, '.copilot')})`), doctor.stdout);
  assert.ok(
    doctor.stdout.includes(`[agents] Claude Code, opencode: not installed (no claude or opencode on PATH, no ${path.join(home, '.claude')})`),
    doctor.stdout,
  );
});

const qwen = findQwenCode();
const skipQwen =
  skipUnless(qwen !== undefined, 'Qwen Code 0.24.4', 'run scripts/install-qwen-code.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

test('the real Qwen Code, first run after serve started (no ~/.qwen then): it connects', { skip: skipQwen, timeout: 240_000 }, async (t) => {
  const dirs = serveDirs('ide-companion-late-qwen-');
  const home = path.join(dirs.root, 'home');
  fs.mkdirSync(home);
  const model = await startOpenAiMock([{ text: 'Done.' }]);
  // serve in a home with no ~/.qwen, and none of the variables that name one.
  const { serve, tui } = await startServe(t, dirs, model, { HOME: home, QWEN_HOME: '', IDE_COMPANION_AGENTS: '' }, `cd ${dirs.project} && gemini`, [200, 50]);
  assert.match(serve.screen(), /Not served yet: .*Qwen Code \(no [^)]*\.qwen\)/);
  // Qwen Code's first run makes ~/.qwen (here with its settings for the test, as a user's first run leaves them).
  const qwenHome = makeQwenHome(path.join(home, '.qwen'));
  await serve.waitForText('Now serving Gemini CLI, Qwen Code', 10_000);
  tui.start(qwenCommand(qwen!, { home, tmpdir: dirs.tmpdir, qwenHome, baseUrl: model.baseUrl }), { cwd: dirs.project });
  assert.match(await waitQwenIdeConnected(tui), /Connected to IDE Companion \(terminal\)/);
});

// Issue 39, item 15: opencode reads Claude Code's lock files; a user of opencode without ~/.claude was not served unless they named it.
test(
  "opencode first run after serve started (its data folder appears, no ~/.claude): Claude Code's face serves it, ~/.claude/ide made where opencode looks",
  { timeout: 60_000 },
  async (t) => {
    const { home, events, port } = await serveFresh(t);
    assert.ok(
      events.some((e) => typeof e.message === 'string' && e.message.startsWith('Claude Code and opencode not served yet')),
      'the log names opencode with Claude Code',
    );
    fs.mkdirSync(path.join(home, '.local', 'share', 'opencode'), { recursive: true });
    await waitFor(() => events.find((e) => e.event === 'agents' && e.served.includes('claude')), 'Claude Code and opencode served', 10_000);
    assert.ok(events.some((e) => e.message === "Claude Code and opencode served: opencode's folder appeared"));
    const lock = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'ide', `${port}.lock`), 'utf8'));
    assert.equal((fs.statSync(path.join(home, '.claude')).mode & 0o777).toString(8), '700');
    // As opencode 1.18.33 dials: the token, no subprotocol, its clientInfo.
    const opencode = await connectClaudeClient({ port, token: lock.authToken, protocol: null, clientName: 'opencode' });
    await waitFor(() => events.findLast((e) => e.event === 'sessions')?.count === 1, 'its session', 10_000);
    await opencode.close();
  },
);

test(
  "opencode already used when serve starts (its data folder there, no ~/.claude): served from the start through Claude Code's face",
  { timeout: 60_000 },
  async (t) => {
    const { home, events, port } = await serveFresh(t, { homeDirs: ['.local', '.local/share', '.local/share/opencode'] });
    const lockFile = path.join(home, '.claude', 'ide', `${port}.lock`);
    await waitFor(() => fs.existsSync(lockFile) || undefined, "Claude Code's lock file, where opencode looks", 10_000);
    assert.ok(
      !events.some((e) => typeof e.message === 'string' && /^Claude Code( and opencode)? not served yet/.test(e.message)),
      'served at once, not awaited',
    );
    const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
    const opencode = await connectClaudeClient({ port, token: lock.authToken, protocol: null, clientName: 'opencode' });
    await waitFor(() => events.findLast((e) => e.event === 'sessions')?.count === 1, 'its session', 10_000);
    await opencode.close();
  },
);
