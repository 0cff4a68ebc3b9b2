/**
 * `ide-companion agent` with the real Gemini CLI 0.61.0 in ACP mode (`--acp`),
 * offline with scripted model turns (`--fake-responses` works in ACP mode), beside
 * a real companion: the editor's selection reaches the agent (seen on the ACP wire
 * through a tap: the fake model records no requests), a write opens the diff in the
 * companion, an accept with edits lands those bytes, a reject leaves the file and
 * the agent hears it, and the permission asked in the terminal is obeyed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestCompanion } from '@ide-companion/server/testing';
import { ensureDiscoveryDir } from '@ide-companion/server';
import { GEMINI_TEST_SETTINGS, findGeminiCli, geminiEnv, makeGeminiRunDirs, skipUnless, waitFor, writeFileTurns, type FakeTurn } from '@ide-companion/testkit';
import { binEnv } from './support/clientCommands.js';
import { ACP_TAP, logLines, startAgentTerminal } from './support/agentTerminal.js';

const cli = findGeminiCli();
const skip = skipUnless(cli !== undefined, 'the pinned Gemini CLI (.tools/gemini-cli)', 'run scripts/install-gemini-cli.sh or .ci/run');

interface Wire {
  dir: '>' | '<';
  line: string;
}

async function geminiRun(name: string, turns: FakeTurn[]) {
  const dirs = makeGeminiRunDirs(`acp-gemini-${name}-`, { files: { 'a.txt': 'old\n' }, turns });
  // Gemini's own IDE mode off, as docs/acp.md advises: with it on, gemini --acp also dials the
  // companion and shows its own diff before asking us to write (the user would review twice).
  fs.writeFileSync(path.join(dirs.home, '.gemini', 'settings.json'), JSON.stringify({ ...GEMINI_TEST_SETTINGS, ide: { enabled: false } }));
  const t = await startTestCompanion({ tmp: dirs.tmpdir, workspace: dirs.workspace });
  ensureDiscoveryDir(dirs.tmpdir);
  const file = path.join(dirs.workspace, 'a.txt');
  t.companion.context.focus(file, { cursor: { line: 1, character: 1 }, selectedText: 'SELECTED-TEXT-42' });
  const tap = path.join(dirs.path, 'wire.jsonl');
  const argv = [
    '--',
    process.execPath,
    ACP_TAP,
    tap,
    process.execPath,
    cli!.geminiBin,
    '--acp',
    '--fake-responses',
    dirs.fakeResponses,
    '--model',
    'gemini-2.5-flash',
  ];
  const term = startAgentTerminal(argv, { cwd: dirs.workspace, env: binEnv(dirs.tmpdir, geminiEnv(dirs)) });
  const wire = (): Wire[] => (fs.existsSync(tap) ? (logLines(fs.readFileSync(tap, 'utf8')) as Wire[]) : []);
  const cleanup = async () => {
    if (term.child.exitCode === null) term.child.kill('SIGKILL');
    await t.cleanup();
    dirs.cleanup();
  };
  return { dirs, t, file, term, wire, cleanup };
}

/** Answers the permission question with the option of `kind`, by its number. */
async function answerPermission(term: ReturnType<typeof startAgentTerminal>, kind: 'allow_once' | 'reject_once'): Promise<void> {
  await term.waitOut(/The agent asks permission: .*\n((?: {2}\d\) .*\n)+)/, 'the permission question', 90_000);
  const m = term.out().match(new RegExp(` {2}(\\d)\\) [^\\n]*\\(${kind}\\)`));
  assert.ok(m, `an option of kind ${kind} in:\n${term.out()}`);
  term.type(m[1]!);
}

test('agent + gemini --acp: the selection reaches the agent; an edited accept in the editor lands those bytes', { skip, timeout: 180_000 }, async () => {
  const r = await geminiRun('accept', writeFileTurns('a.txt', 'new\n', 'Wrote it.'));
  try {
    await r.term.waitOut(/IDE: connected to Test IDE/, 'the companion connection', 60_000);
    await r.term.waitOut(/\[agent: /, 'the agent started', 90_000);
    r.term.type('please change a.txt');
    await answerPermission(r.term, 'allow_once');
    const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 60_000);
    assert.equal(shown.filePath, r.file);
    assert.equal(shown.newContent, 'new\n');
    r.t.companion.diffs.accept(shown.id, 'new, edited by the user\n');
    await r.term.waitOut(/accepted in the editor: wrote a\.txt \(with your edits\)/, 'the accept told', 30_000);
    await r.term.waitOut(/Wrote it\./, 'the model turn after the tool result', 60_000);
    assert.equal(fs.readFileSync(r.file, 'utf8'), 'new, edited by the user\n');
    // At the wire: the prompt carried the editor's context, the write was answered with success.
    const prompt = r.wire().find((w) => w.dir === '>' && w.line.includes('"session/prompt"'));
    assert.ok(prompt, 'a session/prompt on the wire');
    assert.match(prompt.line, /SELECTED-TEXT-42/);
    assert.ok(prompt.line.includes(JSON.stringify(`Active file: ${r.file}`).slice(1, -1)), prompt.line);
    const write = r.wire().find((w) => w.dir === '<' && w.line.includes('"fs/write_text_file"'));
    assert.ok(write, 'gemini asked fs/write_text_file');
    const id = (JSON.parse(write.line) as { id: number }).id;
    const answer = r.wire().find((w) => w.dir === '>' && w.line.startsWith(`{"jsonrpc":"2.0","id":${id},`));
    assert.ok(answer && !answer.line.includes('"error"'), `the write answered with success: ${answer?.line}`);
    r.term.type('/quit');
    assert.equal(await r.term.exit(), 0, r.term.err());
  } finally {
    await r.cleanup();
  }
});

test('agent + gemini --acp: a reject in the editor leaves the file and the agent hears it', { skip, timeout: 180_000 }, async () => {
  const r = await geminiRun('reject', writeFileTurns('a.txt', 'new\n', 'Understood.'));
  try {
    await r.term.waitOut(/\[agent: /, 'the agent started', 90_000);
    r.term.type('please change a.txt');
    await answerPermission(r.term, 'allow_once');
    const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 60_000);
    r.t.companion.diffs.reject(shown.id);
    await r.term.waitOut(/rejected in the editor: a\.txt was not written/, 'the reject told', 30_000);
    await r.term.waitOut(/Understood\./, 'the model turn after the tool result', 60_000);
    assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n');
    const write = r.wire().find((w) => w.dir === '<' && w.line.includes('"fs/write_text_file"'));
    const id = (JSON.parse(write!.line) as { id: number }).id;
    const answer = r.wire().find((w) => w.dir === '>' && w.line.startsWith(`{"jsonrpc":"2.0","id":${id},`));
    assert.match(answer?.line ?? '', /"error".*rejected the change to a\.txt/);
    r.term.type('/quit');
    assert.equal(await r.term.exit(), 0, r.term.err());
  } finally {
    await r.cleanup();
  }
});

test('agent + gemini --acp: a permission refused in the terminal is obeyed: no diff, no write', { skip, timeout: 180_000 }, async () => {
  const r = await geminiRun('deny', writeFileTurns('a.txt', 'new\n', 'Fine.'));
  try {
    await r.term.waitOut(/\[agent: /, 'the agent started', 90_000);
    r.term.type('please change a.txt');
    await answerPermission(r.term, 'reject_once');
    await r.term.waitOut(/\n> $/, 'the turn ended and the prompt is back', 60_000);
    assert.equal(r.t.view.shown.length, 0, 'no diff opened');
    assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n');
    assert.ok(!r.wire().some((w) => w.line.includes('"fs/write_text_file"')), 'gemini did not ask to write');
    r.term.type('/quit');
    assert.equal(await r.term.exit(), 0, r.term.err());
  } finally {
    await r.cleanup();
  }
});
