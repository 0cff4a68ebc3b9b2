/**
 * `ide-companion check` against our own companion (the library function and
 * the real bin), its exit codes, and its catalogue kept in step with docs/check.md.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import { startTestCompanion } from '@ide-companion/server/testing';
import { connectEditorClient, makeTempDir, repoRoot, runNode, waitFor, type RunResult } from '@ide-companion/testkit';
import { AGENT_LOCKS, type DiscoveryFile } from '@ide-companion/protocol';
import { ampIdeDir, claudeIdeDir, copilotIdeDir, droidIdeDir, qwenIdeDir } from '@ide-companion/shared/agentPaths';
import { CHECK_PROPOSAL_LABEL, CHECKS, estimateTokenBits, exitCodeOf, nonLoopbackAddresses, runCheck, type CheckReport } from '../src/check/index.js';

const BIN = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');

/** Our companion in a private tmpdir, with a file open in it. */
async function startOurCompanion(options: Parameters<typeof startTestCompanion>[0] = {}) {
  const t = await startTestCompanion(options);
  const file = path.join(t.workspace, 'main.ts');
  fs.writeFileSync(file, 'export const x = 1;\n');
  t.companion.context.focus(file, { cursor: { line: 1, character: 8 } });
  return { ...t, file };
}

/** The environment with every agent's folder (Qwen's, Claude's, Copilot's, Amp's lock files, Codex's socket) under `tmp`. */
function agentHomesIn(tmp: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    QWEN_HOME: path.join(tmp, 'qwen'),
    CLAUDE_CONFIG_DIR: path.join(tmp, 'claude'),
    COPILOT_HOME: path.join(tmp, 'copilot'),
    AMP_DATA_HOME: tmp,
    CODEX_HOME: path.join(tmp, 'codex'),
    // Factory Droid's folder is in the home directory (~/.factory/ide).
    HOME: tmp,
  };
}

function failures(report: CheckReport): string[] {
  return report.results.filter((r) => r.status === 'fail').map((r) => `${r.id}: ${r.reason}`);
}

/** Runs `ide-companion ARGS` to its exit (no time limit of its own: the test's applies). */
function runBin(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; onSpawn?: (child: ChildProcess) => void } = {}): Promise<RunResult> {
  const run = runNode([BIN, ...args], { cwd: options.cwd ?? repoRoot, env: options.env ?? process.env, timeoutMs: 0 });
  options.onSpawn?.(run.child);
  return run;
}

test('our companion passes every check through the library, and check leaves no diff open and no file changed', { timeout: 120_000 }, async () => {
  const h = await startOurCompanion({ agents: ['gemini', 'qwen', 'claude', 'copilot', 'codex', 'amp', 'droid'] });
  try {
    const before = fs.readFileSync(h.file, 'utf8');
    // Where this companion's Qwen, Claude, Copilot, Amp and Droid lock files and its Codex socket are: their faces are checked too.
    const env = agentHomesIn(h.tmp);
    const report = await runCheck({ port: h.companion.port, token: h.companion.authToken, tmpdir: h.tmp, env });
    assert.deepEqual(failures(report), []);
    assert.equal(exitCodeOf(report), 0);
    assert.equal(report.results.length, CHECKS.length);
    const notPassed = report.results.filter((r) => r.status !== 'pass').map((r) => r.id);
    // Only the interface probe may be skipped, on a machine with loopback only.
    assert.deepEqual(notPassed, nonLoopbackAddresses().length === 0 ? ['security.interfaces'] : []);
    assert.equal(report.target.discoveryFile, h.companion.discoveryFilePath);

    assert.ok(h.view.shown.length >= 3, `diffs shown: ${h.view.shown.length}`);
    assert.deepEqual(h.companion.diffs.list(), [], 'every diff the check opened is closed');
    assert.equal(h.view.closed.length, h.view.shown.length);
    // Every diff is of a file in check's own hidden folder in the workspace (a companion shows none outside its roots), removed after.
    for (const diff of h.view.shown) assert.match(path.relative(h.workspace, diff.filePath), /^\.ide-companion-check-[^/]+\/[^/]+$/, diff.filePath);
    assert.equal(fs.readFileSync(h.file, 'utf8'), before);
    assert.deepEqual(fs.readdirSync(h.workspace), ['main.ts']);
    await waitFor(() => h.companion.sessionList.length === 0, 'the check to end its sessions');
  } finally {
    await h.cleanup();
  }
});

test(
  'without a discovery file naming its roots, check asks them on its own session: its diffs are in the workspace, and it opens no session more',
  { timeout: 120_000 },
  async () => {
    const h = await startOurCompanion({ agents: ['gemini'] });
    const elsewhere = makeTempDir();
    try {
      // Each session the companion sees, by id, in each of two runs: with its discovery file, then without (another tmpdir).
      const seen = new Set<string>();
      const stop = h.companion.onDidChangeSessions((list) => list.forEach((s) => seen.add(s.id)));
      const sessionsOf = async (tmpdir: string) => {
        seen.clear();
        const report = await runCheck({ port: h.companion.port, token: h.companion.authToken, tmpdir, env: agentHomesIn(h.tmp) });
        assert.deepEqual(failures(report), []);
        await waitFor(() => h.companion.sessionList.length === 0, 'the check to end its sessions');
        return { report, sessions: seen.size };
      };
      const named = await sessionsOf(h.tmp);
      assert.equal(named.report.target.discoveryFile, h.companion.discoveryFilePath);
      const shownBefore = h.view.shown.length;
      const asked = await sessionsOf(elsewhere.path);
      stop();
      assert.equal(asked.report.target.discoveryFile, undefined);
      assert.equal(asked.sessions, named.sessions, 'as many sessions as with the discovery file');
      assert.ok(h.view.shown.length - shownBefore >= 3, `diffs shown: ${h.view.shown.length - shownBefore}`);
      for (const diff of h.view.shown.slice(shownBefore))
        assert.match(path.relative(h.workspace, diff.filePath), /^\.ide-companion-check-[^/]+\/[^/]+$/, diff.filePath);
      assert.deepEqual(fs.readdirSync(h.workspace), ['main.ts']);
    } finally {
      elsewhere.cleanup();
      await h.cleanup();
    }
  },
);

test(
  'a companion that serves neither Qwen Code, Claude Code, Copilot CLI, Codex CLI, Amp nor Factory Droid has their checks skipped, saying so',
  { timeout: 120_000 },
  async () => {
    const h = await startOurCompanion({ agents: ['gemini'] });
    try {
      const env = agentHomesIn(h.tmp);
      const report = await runCheck({ port: h.companion.port, token: h.companion.authToken, tmpdir: h.tmp, env, diffs: false });
      const agents = report.results.filter((r) => r.group === 'agents');
      assert.deepEqual(
        agents.map((r) => r.status),
        agents.map(() => 'skip'),
      );
      assert.equal(agents.length, 15);
      assert.match(agents[14]!.reason, /no editor serves Codex CLI/);
      assert.match(agents[0]!.reason, /does not serve Qwen Code/);
      assert.match(agents[2]!.reason, /does not serve GitHub Copilot CLI/);
      assert.match(agents[4]!.reason, /names this companion's IDE: this companion does not serve Factory Droid/);
      assert.match(agents[6]!.reason, /does not serve Amp/);
      assert.match(agents[9]!.reason, /does not serve Claude Code/);
    } finally {
      await h.cleanup();
    }
  },
);

test(
  "each agent's lock file is checked against that agent's own schema (protocol's AGENT_LOCKS): a field its CLI needs taken out fails it",
  { timeout: 120_000 },
  async () => {
    const h = await startOurCompanion({ agents: ['gemini', 'qwen', 'claude', 'copilot', 'amp', 'droid'] });
    try {
      const env = agentHomesIn(h.tmp);
      // A field each CLI reads that no hand-written rule of check named before for Qwen, Claude and Copilot.
      const field = 'ideName';
      const dirs = { qwen: qwenIdeDir(env), claude: claudeIdeDir(env), copilot: copilotIdeDir(env), amp: ampIdeDir(env), droid: droidIdeDir(env) };
      for (const contract of AGENT_LOCKS) {
        // Droid's is named by its face's own port.
        const file = contract.ownPort ? h.companion.lockFilePath(contract.agent)! : path.join(dirs[contract.agent], contract.fileName(h.companion.port));
        assert.equal(path.dirname(file), dirs[contract.agent]);
        const json = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
        assert.ok(field in json, `${file} has ${field}`);
        delete json[field];
        fs.writeFileSync(file, JSON.stringify(json), { mode: 0o600 });
      }
      const report = await runCheck({ port: h.companion.port, token: h.companion.authToken, tmpdir: h.tmp, env, diffs: false });
      for (const contract of AGENT_LOCKS) {
        const result = report.results.find((r) => r.id === `agents.${contract.agent}.lockFile`)!;
        assert.equal(result.status, 'fail', `${contract.agent}: ${result.reason}`);
        assert.match(result.reason, /is not what .* reads \(ideName: /, contract.agent);
        assert.ok(result.reason.endsWith(contract.refusal), result.reason);
      }
    } finally {
      await h.cleanup();
    }
  },
);

test('the real bin: check --port --token --json exits 0 on our companion and finds its discovery file', { timeout: 120_000 }, async () => {
  const h = await startOurCompanion();
  try {
    const r = await runBin(['check', '--port', String(h.companion.port), '--token', h.companion.authToken, '--json'], {
      env: { ...process.env, TMPDIR: h.tmp },
    });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const report = JSON.parse(r.stdout) as CheckReport & { exitCode: number };
    assert.equal(report.exitCode, 0);
    assert.equal(report.summary.fail, 0);
    assert.equal(report.target.discoveryFile, h.companion.discoveryFilePath);
    assert.equal(report.results.find((x) => x.id === 'discovery.fileMode')?.status, 'pass');
    assert.ok(!r.stdout.includes(h.companion.authToken), 'the report never shows the token');
  } finally {
    await h.cleanup();
  }
});

// check wrote its report and its notice as they came: a companion's ideInfo holding OSC 52 or a C1 CSI
// (which JSON does not escape) reached the terminal, where status, list and context clean what they print.
test("the real bin: a companion's escapes reach the terminal from neither the report, its JSON, nor the notice", { timeout: 120_000 }, async () => {
  const h = await startOurCompanion({ ideInfo: { name: 'test\x1b]52;c;aGk\x07ide', displayName: 'Test\x9b2J IDE' } });
  try {
    const env = { ...process.env, TMPDIR: h.tmp };
    for (const json of [false, true]) {
      const r = await runBin(['check', '--port', String(h.companion.port), '--token', h.companion.authToken, '--no-diffs', ...(json ? ['--json'] : [])], {
        env,
      });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      assert.match(r.stderr, /^ide-companion check: checking Test2J IDE on port /);
      assert.match(r.stdout, /test\]52;c;aGkide/);
      // eslint-disable-next-line no-control-regex
      for (const out of [r.stdout, r.stderr]) assert.doesNotMatch(out, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    }
  } finally {
    await h.cleanup();
  }
});

// Regression: check filled a live editor with unlabelled test proposals, without a word first.
test('the real bin says first that it will open test diffs there, labels each one as its own, and --no-diffs opens none', { timeout: 120_000 }, async () => {
  const h = await startOurCompanion();
  try {
    const env = { ...process.env, TMPDIR: h.tmp };
    const r = await runBin(['check', '--port', String(h.companion.port), '--json'], { env });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const notice = r.stderr.split('\n')[0]!;
    assert.match(
      notice,
      new RegExp(
        `^ide-companion check: checking ${h.companion.ideInfo.displayName} on port ${h.companion.port}\\. It will open and close a few test diffs there .*--no-diffs skips them`,
      ),
    );
    assert.ok(h.view.shown.length >= 3);
    for (const diff of h.view.shown) {
      assert.ok(diff.newContent.startsWith(CHECK_PROPOSAL_LABEL), `unlabelled proposal: ${diff.newContent.slice(0, 80)}`);
      assert.doesNotMatch(diff.newContent, /answered in the Gemini CLI terminal/);
    }
    assert.match(CHECK_PROPOSAL_LABEL, /ide-companion check.*closed automatically/);

    const shownBefore = h.view.shown.length;
    const quiet = await runBin(['check', '--port', String(h.companion.port), '--no-diffs', '--json'], { env });
    assert.equal(quiet.code, 0, quiet.stderr + quiet.stdout);
    assert.match(quiet.stderr, /without opening any diff \(--no-diffs\)/);
    assert.equal(h.view.shown.length, shownBefore, '--no-diffs opened a diff');
    const report = JSON.parse(quiet.stdout) as CheckReport;
    for (const id of ['diff.relativePath', 'diff.open', 'diff.closeDiffJson', 'diff.closeDiffSilent', 'security.bodyLimit']) {
      assert.equal(report.results.find((x) => x.id === id)?.status, 'skip', id);
    }
    assert.equal(report.results.find((x) => x.id === 'session.isolation')?.status, 'pass');
  } finally {
    await h.cleanup();
  }
});

test('the real bin without options checks the companion the CLI would choose for the cwd', { timeout: 120_000 }, async () => {
  const h = await startOurCompanion();
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: h.tmp, GEMINI_CLI_IDE_PID: String(process.pid) };
    delete env['GEMINI_CLI_IDE_SERVER_PORT'];
    delete env['GEMINI_CLI_IDE_AUTH_TOKEN'];
    const r = await runBin(['check', '--json'], { cwd: h.workspace, env });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const report = JSON.parse(r.stdout) as CheckReport;
    assert.equal(report.target.port, h.companion.port);
    assert.equal(report.target.tokenFrom, 'discovery');
    assert.equal(report.summary.fail, 0);
  } finally {
    await h.cleanup();
  }
});

test('the human report names every check with its verdict; --port alone reads the token from the discovery file', { timeout: 120_000 }, async () => {
  const h = await startOurCompanion();
  try {
    const r = await runBin(['check', '--file', h.companion.discoveryFilePath!], { env: { ...process.env, TMPDIR: h.tmp } });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    for (const check of CHECKS) assert.match(r.stdout, new RegExp(`(PASS|SKIP)  ${check.id.replace(/\./g, '\\.')} `));
    assert.match(r.stdout, /0 failed/);

    // --port alone: the token comes from the discovery file naming that port.
    const byPort = await runBin(['check', '--port', String(h.companion.port), '--json'], { env: { ...process.env, TMPDIR: h.tmp } });
    assert.equal(byPort.code, 0, byPort.stderr + byPort.stdout);
    assert.equal((JSON.parse(byPort.stdout) as CheckReport).target.tokenFrom, 'file');
  } finally {
    await h.cleanup();
  }
});

test('a token the companion refuses fails transport.initialize, skips the probes that need it, and exits 1', { timeout: 120_000 }, async () => {
  const h = await startOurCompanion();
  try {
    const r = await runBin(['check', '--port', String(h.companion.port), '--token', 'f'.repeat(64), '--json'], { env: { ...process.env, TMPDIR: h.tmp } });
    assert.equal(r.code, 1, r.stderr + r.stdout);
    const report = JSON.parse(r.stdout) as CheckReport;
    const status = (id: string) => report.results.find((x) => x.id === id)?.status;
    assert.equal(status('transport.initialize'), 'fail');
    assert.match(report.results.find((x) => x.id === 'transport.initialize')!.reason, /401.*--token/);
    // Judged with a token that does not work, these would pass for the wrong reason.
    for (const id of ['security.auth.wrong', 'security.host', 'security.origin', 'diff.open', 'session.stillAnswering']) assert.equal(status(id), 'skip', id);
    assert.deepEqual(
      failures(report).map((f) => f.split(':')[0]),
      ['transport.initialize'],
    );
  } finally {
    await h.cleanup();
  }
});

test('Ctrl-C in the middle of a run closes the diff check had opened', { timeout: 120_000 }, async () => {
  const h = await startOurCompanion();
  h.view.hang = true;
  try {
    let child: ChildProcess | undefined;
    const done = runBin(['check', '--port', String(h.companion.port), '--token', h.companion.authToken, '--timeout', '60000'], {
      env: { ...process.env, TMPDIR: h.tmp },
      onSpawn: (c) => (child = c),
    });
    await waitFor(() => h.view.shown.length > 0, 'check to open a diff', 60_000);
    child!.kill('SIGINT');
    const r = await done;
    assert.equal(r.code, 130, r.stderr);
    assert.deepEqual(h.companion.diffs.list(), []);
    assert.deepEqual(
      h.view.closed.map((d) => d.reason),
      ['closedByCli'],
      "closed by check's closeDiff, not by a session timing out",
    );
  } finally {
    await h.cleanup();
  }
});

test('check exits 2 when nothing answers on the port', { timeout: 60_000 }, async () => {
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  const tmp = makeTempDir();
  try {
    const r = await runBin(['check', '--port', String(port), '--token', 'x'.repeat(64), '--json'], { env: { ...process.env, TMPDIR: tmp.path } });
    assert.equal(r.code, 2, r.stderr + r.stdout);
    const report = JSON.parse(r.stdout) as CheckReport;
    assert.equal(report.reachable, false);
    assert.equal(report.results.find((x) => x.id === 'transport.reachable')?.status, 'fail');
  } finally {
    tmp.cleanup();
  }
});

test('check exits 2 with a message on usage errors', async () => {
  const tmp = makeTempDir();
  try {
    const env = { ...process.env, TMPDIR: tmp.path };
    for (const args of [
      ['--token', 'abc'],
      ['--port', 'abc', '--token', 'x'],
      ['--port', '1234'],
      ['--file', path.join(tmp.path, 'missing.json')],
      ['--bogus'],
    ]) {
      const r = await runBin(['check', ...args], { env });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}`);
      assert.match(r.stderr, /ide-companion check: /, args.join(' '));
    }
  } finally {
    tmp.cleanup();
  }
});

// check wrote its usage errors itself, raw: a --file path holding OSC 52 reached the terminal as given.
test("check's usage errors reach the terminal without control characters", async () => {
  const tmp = makeTempDir();
  try {
    const missing = path.join(tmp.path, 'x\x1b]52;c;aGk\x07.json');
    const r = await runBin(['check', '--file', missing], { env: { ...process.env, TMPDIR: tmp.path } });
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /^ide-companion check: .*x\]52;c;aGk\.json: /);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(r.stderr, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  } finally {
    tmp.cleanup();
  }
});

/*
 * check with no companion around (issue 30) passed on Gemini CLI's VS Code
 * advice, "To install the extension, run /ide install.", and added its own
 * period after it. Now it says what works for every editor, once.
 */
test('check with no companion for the folder: the advice that works here, no /ide install, no double period (exit 2)', async () => {
  const tmp = makeTempDir();
  try {
    const env: NodeJS.ProcessEnv = { TMPDIR: tmp.path, PATH: process.env['PATH'], HOME: tmp.path };
    const r = await runBin(['check'], { cwd: tmp.path, env });
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /no companion to check for this directory: .*ide-companion serve` in this folder\. Or pass --port and --token, or --file\.\n$/);
    assert.doesNotMatch(r.stderr, /\/ide install|\.\./);
  } finally {
    tmp.cleanup();
  }
});

test('token strength: 32 random bytes in hex pass, a UUID and short tokens fall under 128 bits', () => {
  assert.equal(estimateTokenBits('a3'.repeat(32)).bits >= 128, false, 'two distinct characters are not random');
  assert.equal(estimateTokenBits('0123456789abcdef'.repeat(4)).bits, 256);
  assert.deepEqual(estimateTokenBits('0b0a6e3c-5d9e-4c1e-9a43-2f1b7c3d9e10'), { bits: 122, looksLike: 'a UUID' });
  assert.ok(estimateTokenBits('Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWo').bits >= 128);
  assert.ok(estimateTokenBits('12345678').bits < 128);
});

test('docs/check.md describes every check of the catalogue', () => {
  const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'check.md'), 'utf8');
  const missing = CHECKS.filter((c) => !doc.includes(`\`${c.id}\``)).map((c) => c.id);
  assert.deepEqual(missing, []);
});

/*
 * check against `serve` (issue 30): serve's status line filled with check's
 * own probes refused, as if under attack. check's requests now carry a proof
 * that they come from a holder of the token; serve logs their refusals below
 * the warnings. A request without the proof, or with a forged one, is still
 * refused and still a warning.
 */
/**
 * `ide-companion serve --json` in a folder `ws` of a temp dir that is its HOME
 * and TMPDIR (`prepare` readies that dir first), ended after `t`; resolves
 * once it listens, with its output so far and its JSON log entries.
 */
async function serveJson(t: TestContext, prepare?: (home: string) => void) {
  const tmp = makeTempDir();
  t.after(() => tmp.cleanup());
  const workspace = path.join(tmp.path, 'ws');
  fs.mkdirSync(workspace);
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: tmp.path, TMPDIR: tmp.path };
  prepare?.(tmp.path);
  const serve = spawn(process.execPath, [BIN, 'serve', '--json'], { cwd: workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((resolve) => serve.once('exit', resolve));
  t.after(async () => {
    serve.kill('SIGTERM');
    await exited;
  });
  const port = await waitFor(() => Number(/"port":(\d+)/.exec(out)?.[1]) || undefined, `serve to listen:\n${out}`, 60_000);
  return {
    home: tmp.path,
    workspace,
    env,
    port,
    out: () => out,
    entries: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level?: string; message?: string }),
  };
}

test("check against serve: its deliberate probes are no warnings in serve's log; a stranger's refusals still are", { timeout: 120_000 }, async (t) => {
  // A user of Claude Code: its face is served, and check probes its WebSocket too.
  const serve = await serveJson(t, (home) => fs.mkdirSync(path.join(home, '.claude')));
  const { workspace, env, port } = serve;
  const warnings = () => serve.entries().filter((e) => e.level === 'warn' && (e.message === 'request refused' || e.message === 'WebSocket upgrade refused'));
  const r = await runBin(['check', '--no-diffs', '--json'], { cwd: workspace, env });
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  assert.match(serve.out(), /request refused \(ide-companion check's probe\)/, 'check probed, and serve refused');
  assert.match(serve.out(), /WebSocket upgrade refused \(ide-companion check's probe\)/, "and Claude Code's face too");
  assert.deepEqual(warnings(), []);
  for (const headers of [{}, { 'x-ide-companion-check': 'ab'.repeat(32) }] as Array<Record<string, string>>) {
    const refused = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: { Authorization: 'Bearer wrong', ...headers }, body: '{}' });
    assert.equal(refused.status, 401);
  }
  await waitFor(() => warnings().length === 2 || undefined, `two warnings:\n${serve.out()}`, 5_000);
});

test("check against serve, diffs too: its relative openDiff is no warning in serve's log; a stranger's still is", { timeout: 120_000 }, async (t) => {
  const serve = await serveJson(t);
  const { workspace, env } = serve;
  const refusals = (level: string) => serve.entries().filter((e) => e.level === level && e.message?.startsWith('openDiff refused'));
  const r = await runBin(['check', '--json'], { cwd: workspace, env });
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  const report = JSON.parse(r.stdout) as CheckReport;
  assert.equal(report.results.find((c) => c.id === 'diff.relativePath')?.status, 'pass', 'check still sees the relative path refused');
  assert.equal(refusals('info').length, 1, `check's refusal is logged, below the warnings:\n${serve.out()}`);
  assert.deepEqual(refusals('warn'), []);
  // A client with the token but without check's proof: its refusal is still a warning.
  const ideDir = path.join(serve.home, 'gemini', 'ide');
  const discovery = JSON.parse(
    fs.readFileSync(
      path.join(
        ideDir,
        fs.readdirSync(ideDir).find((f) => f.endsWith('.json'))!,
      ),
      'utf8',
    ),
  ) as DiscoveryFile;
  const stranger = await connectEditorClient(discovery, 10_000);
  t.after(() => stranger.close());
  const result = await stranger.client.callTool({ name: 'openDiff', arguments: { filePath: 'relative.txt', newContent: 'x\n' } });
  assert.equal(result.isError, true);
  await waitFor(() => refusals('warn').length === 1 || undefined, `a warning for the stranger's refusal:\n${serve.out()}`, 5_000);
});
