/**
 * `ide-companion agent` with a small ACP agent of ours (test/fixtures/fakeAcpAgent.mjs,
 * raw JSON lines so that it can misbehave) beside a real companion: the editor's
 * context in the prompt, writes through the editor's diff or asked in the terminal,
 * paths outside the workspace refused, reads with line/limit, and bad agents
 * (malformed lines, a 64 MiB line, a crash, a hang) told clearly with nothing written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, waitFor } from '@ide-companion/testkit';
import { MAX_TERMINALS } from '@ide-companion/client/acp/terminals';
import { splitAgentArgv } from '../src/commands/agent.js';
import { binEnv, setup } from './support/clientCommands.js';
import { FAKE_AGENT, logLines, startAgentTerminal } from './support/agentTerminal.js';

interface Msg {
  id?: number;
  method?: string;
  params?: { prompt?: Array<{ type: string; text?: string; resource?: { text: string; uri: string } }>; modeId?: string; sessionId?: string };
  result?: unknown;
  error?: { message: string };
}

async function run(mode: string, extra: string[] = [], options: { start?: boolean; flags?: string[] } = {}) {
  const s = await setup({ start: options.start ?? true });
  const log = path.join(s.tmp, 'agent-log.jsonl');
  const term = startAgentTerminal([...(options.flags ?? []), '--', process.execPath, FAKE_AGENT, mode, log, ...extra], {
    cwd: s.workspace,
    env: binEnv(s.tmp),
  });
  const messages = (): Msg[] => (fs.existsSync(log) ? (logLines(fs.readFileSync(log, 'utf8')) as Msg[]) : []);
  const cleanup = async () => {
    // SIGTERM first: the command then kills its agent and the agent's terminals.
    await term.stop();
    await s.cleanup();
  };
  await term.waitOut(/\[agent: fake-agent 1\.0\.0/, 'the agent started');
  return { s, term, messages, cleanup };
}

async function quit(term: ReturnType<typeof startAgentTerminal>): Promise<void> {
  term.type('/quit');
  assert.equal(await term.exit(), 0, term.err());
}

test('agent: arguments: ours first, then -- or the first word starts the command', () => {
  assert.deepEqual(splitAgentArgv(['--cwd', '/x', 'gemini', '--acp']), { own: ['--cwd', '/x'], command: ['gemini', '--acp'] });
  assert.deepEqual(splitAgentArgv(['--no-ide', '--', '--weird', 'a']), { own: ['--no-ide'], command: ['--weird', 'a'] });
  assert.deepEqual(splitAgentArgv(['--list']), { own: ['--list'], command: [] });
});

test("agent: the prompt carries the editor's selection; a write opens the editor's diff and an edited accept lands those bytes", async () => {
  const s = await setup();
  const file = path.join(s.workspace, 'w.txt');
  fs.writeFileSync(file, 'old\n');
  s.companion.context.focus(file, { cursor: { line: 3, character: 2 }, selectedText: 'the selected words' });
  const log = path.join(s.tmp, 'log.jsonl');
  const term = startAgentTerminal(['--', process.execPath, FAKE_AGENT, 'write', log, file, 'proposed\n'], { cwd: s.workspace, env: binEnv(s.tmp) });
  try {
    await term.waitOut(/IDE: connected to Test IDE/, 'the editor connected');
    await term.waitOut(/\[agent: /, 'the agent started');
    term.type('change it');
    await term.waitOut(/Hello from the fake agent\.\n\[plan\]\n {2}\[x\] think\n {2}\[ \] write\n/, 'the streamed message and the plan');
    await term.waitOut(/1\) Allow \(allow_once\)/, 'the permission question');
    term.type('1');
    const shown = await waitFor(() => s.view.shown[0], 'the diff in the editor');
    assert.equal(shown.newContent, 'proposed\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n', 'nothing written before the accept');
    s.companion.diffs.accept(shown.id, 'proposed, then edited\r\nby the user');
    await term.waitOut(/write ok/, 'the agent told of the write');
    assert.equal(fs.readFileSync(file, 'utf8'), 'proposed, then edited\r\nby the user');
    const messages = logLines(fs.readFileSync(log, 'utf8')) as Msg[];
    const prompt = messages.find((m) => m.method === 'session/prompt')!.params!.prompt!;
    assert.match(prompt[0]!.text!, new RegExp(`Active file: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\nCursor: line 3, character 2`));
    assert.equal(prompt[1]!.type, 'resource');
    assert.equal(prompt[1]!.resource!.text, 'the selected words');
    assert.equal(prompt[2]!.text, 'change it');
    await quit(term);
  } finally {
    if (term.child.exitCode === null) term.child.kill('SIGKILL');
    await s.cleanup();
  }
});

test('agent: a reject in the editor writes nothing and the agent gets an error', async () => {
  const s = await setup();
  const file = path.join(s.workspace, 'r.txt');
  fs.writeFileSync(file, 'keep\n');
  const log = path.join(s.tmp, 'log.jsonl');
  const term = startAgentTerminal(['--', process.execPath, FAKE_AGENT, 'write', log, file, 'nope\n'], { cwd: s.workspace, env: binEnv(s.tmp) });
  try {
    await term.waitOut(/\[agent: /, 'the agent started');
    term.type('go');
    await term.waitOut(/1\) Allow/, 'the permission question');
    term.type('1');
    const shown = await waitFor(() => s.view.shown[0], 'the diff');
    s.companion.diffs.reject(shown.id);
    await term.waitOut(/write failed: The user rejected the change to r\.txt in the editor/, 'the agent heard the reject');
    assert.equal(fs.readFileSync(file, 'utf8'), 'keep\n');
    await quit(term);
  } finally {
    if (term.child.exitCode === null) term.child.kill('SIGKILL');
    await s.cleanup();
  }
});

test('agent: a path outside the workspace is refused before any diff; the agent gets an error', async () => {
  const outside = makeTempDir('acp-outside-');
  const target = path.join(outside.path, 'escape.txt');
  const r = await run('write', [target, 'x']);
  try {
    r.term.type('go');
    await r.term.waitOut(/1\) Allow/, 'the permission question');
    r.term.type('1');
    await r.term.waitOut(/write failed: .*outside the workspace/, 'the refusal told to the agent');
    assert.match(r.term.out(), /refused the agent's write: .*outside the workspace/);
    assert.equal(r.s.view.shown.length, 0);
    assert.equal(fs.existsSync(target), false);
    await quit(r.term);
  } finally {
    await r.cleanup();
    outside.cleanup();
  }
});

test('agent: without an editor the write is asked in the terminal, said once; a no writes nothing, a yes writes', async () => {
  const s = await setup({ start: false });
  const file = path.join(s.workspace, 'n.txt');
  const log = path.join(s.tmp, 'log.jsonl');
  const term = startAgentTerminal(['--', process.execPath, FAKE_AGENT, 'write', log, file, 'hello\n'], { cwd: s.workspace, env: binEnv(s.tmp) });
  try {
    await term.waitOut(/IDE: not connected/, 'no editor, said');
    await term.waitOut(/\[agent: /, 'the agent started');
    term.type('first');
    await term.waitOut(/1\) Allow/, 'the permission question');
    term.type('1');
    await term.waitOut(/The agent wants to write n\.txt \(new file, 1 lines\)\.\n {2}1\) write it\n {2}2\) do not write it\n/, 'the write asked here');
    term.type('2');
    await term.waitOut(/write failed: The user rejected the change to n\.txt in the terminal/, 'the agent heard the no');
    assert.equal(fs.existsSync(file), false);
    await term.waitOut(/\n> $/, 'the prompt back');
    const mark = term.out().length;
    term.type('second');
    await term.waitOut(/1\) Allow/, 'the permission question again', 10_000, mark);
    term.type('1');
    await term.waitOut(/1\) write it/, 'the write asked again', 10_000, mark);
    term.type('1');
    await term.waitOut(/write ok/, 'the agent heard the yes', 10_000, mark);
    assert.equal(fs.readFileSync(file, 'utf8'), 'hello\n');
    assert.equal(term.out().match(/no editor connected/g)?.length, 1, 'said once');
    await quit(term);
  } finally {
    if (term.child.exitCode === null) term.child.kill('SIGKILL');
    await s.cleanup();
  }
});

test('agent: fs/read_text_file answers from the file with line and limit', async () => {
  const s = await setup();
  const file = path.join(s.workspace, 'lines.txt');
  fs.writeFileSync(file, 'one\ntwo\nthree\n');
  const log = path.join(s.tmp, 'log.jsonl');
  const term = startAgentTerminal(['--', process.execPath, FAKE_AGENT, 'read', log, file], { cwd: s.workspace, env: binEnv(s.tmp) });
  try {
    await term.waitOut(/\[agent: /, 'the agent started');
    term.type('read');
    await term.waitOut(/read: "two\\n"/, 'line 2, one line');
    await quit(term);
  } finally {
    if (term.child.exitCode === null) term.child.kill('SIGKILL');
    await s.cleanup();
  }
});

test('agent: malformed lines are told (bounded) and skipped; the turn and the terminal go on', async () => {
  const r = await run('malformed');
  try {
    r.term.type('go');
    await r.term.waitOut(/the agent wrote a line that is not JSON, ignored: "this is not json"/, 'the garbage told');
    await r.term.waitOut(/JSON that is not a JSON-RPC 2\.0 message, ignored: "\[1,2,3\]"/, 'the array told');
    await r.term.waitOut(/escapes: .* done\n/, 'the chunk with terminal escapes');
    await r.term.waitOut(/\n> $/, 'the turn ended and the prompt is back');
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    assert.doesNotMatch(r.term.out(), /[\u001b\u0007\r]/, 'no terminal control reaches the screen');
    r.term.type('/ide status');
    await r.term.waitOut(/Connected to Test IDE \(diffs in the editor\)/, '/ide status answered');
    await quit(r.term);
  } finally {
    await r.cleanup();
  }
});

test('agent: a 64 MiB line is dropped with a clear message; the session goes on', { timeout: 120_000 }, async () => {
  const r = await run('huge');
  try {
    r.term.type('go');
    await r.term.waitOut(/the agent sent a message too large: over 32 MiB/, 'the huge line told', 60_000);
    await r.term.waitOut(/\n> $/, 'the turn ended and the prompt is back', 60_000);
    await quit(r.term);
  } finally {
    await r.cleanup();
  }
});

test('agent: an agent that crashes mid-turn is told with its exit code and last output; exit 3, nothing written', async () => {
  const r = await run('crash');
  try {
    r.term.type('go');
    await r.term.waitOut(/the agent \(.*\) exited with code 7; its last output:\nfake agent: something broke/, 'the crash told');
    assert.equal(await r.term.exit(), 3);
    assert.deepEqual(r.s.view.shown, []);
    assert.deepEqual(fs.readdirSync(r.s.workspace), []);
  } finally {
    await r.cleanup();
  }
});

test('agent: Ctrl-C cancels a running turn with session/cancel; a second Ctrl-C at the idle prompt quits', async () => {
  const r = await run('hang');
  try {
    r.term.type('go');
    await r.term.waitOut(/Hello from the fake agent/, 'the turn running');
    r.term.child.kill('SIGINT');
    await r.term.waitOut(/\[cancelling the turn\]/, 'the cancel told');
    await r.term.waitOut(/\[turn ended: cancelled\]\n> $/, 'the turn ended as cancelled');
    assert.ok(
      r.messages().some((m) => m.method === 'session/cancel'),
      'session/cancel sent',
    );
    r.term.child.kill('SIGINT');
    await r.term.waitOut(/\[Ctrl-C again to quit\]/, 'the first idle Ctrl-C');
    r.term.child.kill('SIGINT');
    assert.equal(await r.term.exit(), 0, r.term.err());
  } finally {
    await r.cleanup();
  }
});

test('agent: an agent that ignores the cancel is given up on after the grace; the terminal stays usable', async () => {
  const r = await run('deaf');
  try {
    r.term.type('go');
    await r.term.waitOut(/Hello from the fake agent/, 'the turn running');
    r.term.type('/cancel');
    await r.term.waitOut(/did not end the turn within 5000 ms of the cancel; stopped waiting for it\]\n> $/, 'given up on', 20_000);
    r.term.type('/ide status');
    await r.term.waitOut(/Connected to Test IDE/, 'still answering');
    await quit(r.term);
  } finally {
    await r.cleanup();
  }
});

test('agent: a command that cannot start is told; exit 3', async () => {
  const s = await setup({ start: false });
  try {
    const term = startAgentTerminal(['--no-ide', 'no-such-acp-agent-xyz'], { cwd: s.workspace, env: binEnv(s.tmp) });
    assert.equal(await term.exit(), 3);
    assert.match(term.out(), /could not start no-such-acp-agent-xyz: spawn no-such-acp-agent-xyz ENOENT/);
  } finally {
    await s.cleanup();
  }
});

test('agent --list: the known ACP agents, found on PATH or not', async () => {
  const dir = makeTempDir('acp-list-');
  try {
    const fake = path.join(dir.path, 'goose');
    fs.writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
    const found = startAgentTerminal(['--list'], { cwd: dir.path, env: { ...process.env, PATH: dir.path } });
    assert.equal(await found.exit(), 0);
    assert.match(found.out(), new RegExp(`^found +goose acp +Goose +${fake.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    assert.match(found.out(), /^- +gemini --acp +Gemini CLI +npm i -g @google\/gemini-cli$/m);
    fs.rmSync(fake);
    const none = startAgentTerminal(['--list'], { cwd: dir.path, env: { ...process.env, PATH: dir.path } });
    assert.equal(await none.exit(), 1);
  } finally {
    dir.cleanup();
  }
});

test('agent: an agent that never answers initialize is stopped after --timeout; exit 3', async () => {
  const s = await setup({ start: false });
  try {
    const term = startAgentTerminal(['--no-ide', '--timeout', '1500', '--', process.execPath, FAKE_AGENT, 'mute', path.join(s.tmp, 'log.jsonl')], {
      cwd: s.workspace,
      env: binEnv(s.tmp),
    });
    assert.equal(await term.exit(), 3);
    assert.match(term.out(), /the agent \(.*\) did not answer initialize \(start-up time allowed: 1500 ms\)/);
  } finally {
    await s.cleanup();
  }
});

test("agent: /mode lists the agent's modes (current marked) and switches with session/set_mode; its current_mode_update is shown", async () => {
  const { term, messages, cleanup } = await run('modes');
  try {
    assert.match(term.out(), /\[agent: fake-agent 1\.0\.0\. .*\/mode: the agent's modes; \/mode ID: switch to one\]/, '/mode named at start');
    let from = term.out().length;
    term.type('/help');
    await term.waitOut(/\/mode: the agent's modes/, '/help names /mode', undefined, from);
    from = term.out().length;
    term.type('/mode');
    await term.waitOut(
      /Modes \(\* current; \/mode ID switches\):\n {2}\* ask: Ask, asks before edits\n {2}- code: Code\n {2}- locked: Locked\n/,
      'the modes, ask current',
      undefined,
      from,
    );
    from = term.out().length;
    term.type('/mode plan');
    await term.waitOut(/\[unknown mode plan; the agent offers: ask, code, locked\]/, 'an unknown id named with the offered ones', undefined, from);
    assert.equal(messages().filter((m) => m.method === 'session/set_mode').length, 0, 'an id the agent did not offer is not sent');
    // One the agent offered but refuses: its error told, the mode unchanged.
    from = term.out().length;
    term.type('/mode locked');
    await term.waitOut(/\[session\/set_mode failed: .*no mode locked.*\]/, "the agent's refusal told", undefined, from);
    from = term.out().length;
    term.type('/mode');
    await term.waitOut(/ {2}\* ask: Ask/, 'ask still current', undefined, from);
    from = term.out().length;
    term.type('/mode code');
    await term.waitOut(/\[mode: code \(Code\)\]/, 'the switch told', undefined, from);
    const set = messages().filter((m) => m.method === 'session/set_mode');
    assert.deepEqual(
      set.map((m) => m.params),
      [
        { sessionId: 'fake-session', modeId: 'locked' },
        { sessionId: 'fake-session', modeId: 'code' },
      ],
    );
    from = term.out().length;
    term.type('/mode');
    await term.waitOut(/ {2}- ask: Ask, asks before edits\n {2}\* code: Code\n/, 'code now current', undefined, from);
    // The agent switches itself back to ask during the turn: shown, and /mode follows it.
    from = term.out().length;
    term.type('go');
    await term.waitOut(/\[mode: ask\]/, 'the current_mode_update shown', undefined, from);
    await term.waitOut(/\[x\] think\n {2}\[ \] write\n/, 'the turn ended', undefined, from);
    from = term.out().length;
    term.type('/mode');
    await term.waitOut(/ {2}\* ask: Ask, asks before edits\n {2}- code: Code\n/, 'ask current again', undefined, from);
    await quit(term);
  } finally {
    await cleanup();
  }
});

test('agent: an agent without modes: /help does not name /mode, and /mode says so', async () => {
  const { term, messages, cleanup } = await run('read', [path.join('/nonexistent', 'x')]);
  try {
    assert.doesNotMatch(term.out(), /\/mode/);
    let from = term.out().length;
    term.type('/help');
    await term.waitOut(/\/quit \(Ctrl-C twice\): leave\n/, '/help', undefined, from);
    assert.doesNotMatch(term.out().slice(from), /\/mode/);
    from = term.out().length;
    term.type('/mode code');
    await term.waitOut(/\[the agent offers no modes\]/, '/mode ID refused', undefined, from);
    term.type('/mode');
    await term.waitOut(/The agent offers no modes\./, '/mode', undefined, from);
    assert.equal(messages().filter((m) => m.method === 'session/set_mode').length, 0);
    await quit(term);
  } finally {
    await cleanup();
  }
});

/** The agent's terminal/create of `node -e SCRIPT`, with the fake agent's flags first. */
async function runTerminal(flags: string[], script: string) {
  return run('terminal', [...flags, '--', process.execPath, '-e', script]);
}

/** The JSON the fake agent told after `label: ` in its message. */
async function told(term: ReturnType<typeof startAgentTerminal>, label: string): Promise<unknown> {
  const m = await term.waitOut(new RegExp(`\\n${label}: (.*)\\n`), `the agent's ${label}`);
  return JSON.parse(m[1]!);
}

/** No such process, or a zombie (dead, waiting for whoever adopted it to reap it). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

test("agent: terminal/create runs the command (argv, the session's folder, the agent's env): its output shown prefixed and cleaned, and returned with the exit code", async () => {
  const script =
    "console.log('line one'); console.log(process.cwd()); console.log(process.env.FAKE_AGENT_VAR); process.stderr.write('to stderr \\u001b[31mred\\u001b[0m\\n'); process.exit(5)";
  const r = await runTerminal([], script);
  try {
    r.term.type('run it');
    await r.term.waitOut(/\[\$1 the agent runs: .* -e console\.log/, 'the command announced');
    const exit = await told(r.term, 'exit');
    assert.deepEqual(exit, { exitCode: 5, signal: null });
    const out = (await told(r.term, 'output')) as { output: string; truncated: boolean; exitStatus: unknown };
    const cwd = fs.realpathSync(r.s.workspace);
    assert.match(out.output, new RegExp(`^line one\\n${cwd.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\nfrom-agent\\n`));
    assert.ok(out.output.includes('to stderr \u001b[31mred\u001b[0m\n'), 'stderr kept, as it was, for the agent');
    assert.equal(out.truncated, false);
    assert.deepEqual(out.exitStatus, { exitCode: 5, signal: null });
    await r.term.waitOut(/released: \{\}; then output: "Invalid params: no terminal term-1 \(unknown or released\)"/, 'released, then unknown');
    const screen = r.term.out();
    assert.match(screen, /^\$1 \| line one$/m);
    assert.match(screen, /^\$1 \| from-agent$/m);
    assert.match(screen, /^\$1 \| to stderr .*red.*$/m);
    assert.match(screen, /^\[\$1 exited with code 5\]$/m);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    assert.doesNotMatch(screen, /[\u001b\u0007\r]/, 'no terminal control reaches the screen');
    await r.term.waitOut(/\n> $/, 'the prompt back');
    await quit(r.term);
  } finally {
    await r.cleanup();
  }
});

test('agent: terminal/create with a cwd outside the workspace is refused, nothing run; the agent gets an error', async () => {
  const outside = makeTempDir('acp-term-outside-');
  const r = await runTerminal(['--cwd', outside.path], "require('fs').writeFileSync('ran', 'x')");
  try {
    r.term.type('run it');
    await r.term.waitOut(/create failed: .*outside the workspace/, 'the refusal told to the agent');
    assert.match(r.term.out(), /\[refused the agent's command .*outside the workspace/);
    assert.equal(fs.existsSync(path.join(outside.path, 'ran')), false);
    assert.deepEqual(fs.readdirSync(r.s.workspace), []);
    await quit(r.term);
  } finally {
    await r.cleanup();
    outside.cleanup();
  }
});

test('agent: terminal/output keeps the last outputByteLimit bytes, cut at a character boundary, truncated: true', async () => {
  const r = await runTerminal(['--limit', '5'], "process.stdout.write('aaaa' + '\\u00e9'.repeat(10))");
  try {
    r.term.type('run it');
    const out = (await told(r.term, 'output')) as { output: string; truncated: boolean };
    // 24 bytes; the last 5 start inside an é (2 bytes each): 4 bytes, two whole characters, are kept.
    assert.equal(out.output, '\u00e9\u00e9');
    assert.equal(out.truncated, true);
    assert.match(r.term.out(), /^\$1 \| aaaa\u00e9{10}$/m, 'the user sees all of it');
    await quit(r.term);
  } finally {
    await r.cleanup();
  }
});

test('agent: terminal/kill stops the running command (and its group); wait_for_exit then tells the signal', async () => {
  const r = await runTerminal(['--kill'], "console.log('started'); setInterval(() => {}, 1000)");
  try {
    r.term.type('run it');
    await r.term.waitOut(/\nkilled\n/, 'the kill answered');
    assert.deepEqual(await told(r.term, 'exit'), { exitCode: null, signal: 'SIGTERM' });
    assert.match(r.term.out(), /^\[\$1 killed by SIGTERM\]$/m);
    await quit(r.term);
  } finally {
    await r.cleanup();
  }
});

const LEFT_RUNNING =
  "const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); console.log('pids ' + process.pid + ' ' + c.pid); setInterval(() => {}, 1000)";

test('agent: a terminal left running is killed at /quit, with what it started: no process left', async () => {
  const r = await runTerminal(['--leave'], LEFT_RUNNING);
  try {
    r.term.type('run it');
    const m = await r.term.waitOut(/\$1 \| pids (\d+) (\d+)\n/, 'the pids');
    const pids = [Number(m[1]), Number(m[2])];
    await r.term.waitOut(/created term-1\n/, 'the turn over, the command still running');
    assert.deepEqual(
      pids.map((p) => gone(p)),
      [false, false],
      'still running after the turn',
    );
    await quit(r.term);
    // The command and its child: the group was killed; the command was reaped before we exited, its child by init.
    await waitFor(() => pids.every((p) => gone(p)), `pids ${pids.join(', ')} gone`, 5_000);
  } finally {
    await r.cleanup();
  }
});

test("agent: Ctrl-C during a turn kills the turn's commands too", async () => {
  const r = await runTerminal([], LEFT_RUNNING);
  try {
    r.term.type('run it');
    const m = await r.term.waitOut(/\$1 \| pids (\d+) (\d+)\n/, 'the pids');
    const pids = [Number(m[1]), Number(m[2])];
    r.term.child.kill('SIGINT');
    await r.term.waitOut(/\[cancelling the turn\]/, 'the cancel told');
    await r.term.waitOut(/\[\$1 killed by SIGTERM\]/, 'the command killed');
    await waitFor(() => pids.every((p) => gone(p)), `pids ${pids.join(', ')} gone`, 5_000);
    await quit(r.term);
  } finally {
    await r.cleanup();
  }
});

test(`agent: at most ${MAX_TERMINALS} terminals at once: one more is refused with an error, told`, async () => {
  const r = await run('terminal', ['--count', String(MAX_TERMINALS + 1), '--leave', '--', 'sleep', '30']);
  try {
    r.term.type('run them');
    await r.term.waitOut(/create failed: .*too many terminals \(16 not released\): release one first\n/, 'the last one refused');
    assert.equal(r.term.out().match(/^created term-\d+$/gm)?.length, MAX_TERMINALS);
    assert.match(r.term.out(), /\[refused the agent's command sleep 30: 16 terminals are open\]/);
    await quit(r.term);
  } finally {
    await r.cleanup();
  }
});

test('agent: a command that exits leaving a child on its output is told ended; the release kills that child', async () => {
  const r = await run('terminal', ['--', 'sh', '-c', 'sleep 60 & echo "bg $!"']);
  try {
    r.term.type('run it');
    const m = await r.term.waitOut(/\$1 \| bg (\d+)\n/, 'the child started');
    const pid = Number(m[1]);
    // Without the drain after 'exit', the pipes held by the sleep would hold the exit for its 60 s.
    assert.deepEqual(await r.term.waitOut(/\nexit: (.*)\n/, 'the exit told', 10_000).then((x) => JSON.parse(x[1]!) as unknown), {
      exitCode: 0,
      signal: null,
    });
    await r.term.waitOut(/released: \{\}/, 'released');
    await waitFor(() => gone(pid), `the child ${pid} gone`, 5_000);
    await quit(r.term);
  } finally {
    await r.cleanup();
  }
});
