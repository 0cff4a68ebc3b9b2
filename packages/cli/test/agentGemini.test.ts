/**
 * `ide-companion agent` with the real Gemini CLI 0.61.0 in ACP mode (`--acp`),
 * offline with scripted model turns (`--fake-responses` works in ACP mode), beside
 * a real companion: the editor's selection reaches the agent (seen on the ACP wire
 * through a tap: the fake model records no requests). Gemini asks permission for a
 * write with the edit as the tool call's `diff`, then writes through
 * fs/write_text_file: the diff opens in the editor once, at the permission; an
 * accept with edits lands those bytes at the write, a reject leaves the file and the
 * agent hears it. A permission without a diff (a shell command) is asked in the
 * terminal and obeyed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestCompanion } from '@ide-companion/server/testing';
import { ensureDiscoveryDir } from '@ide-companion/server';
import {
  GEMINI_TEST_SETTINGS,
  findGeminiCli,
  functionCallTurn,
  geminiEnv,
  makeGeminiRunDirs,
  skipUnless,
  textTurn,
  waitFor,
  writeFileTurns,
  type FakeTurn,
} from '@ide-companion/testkit';
import { binEnv } from './support/clientCommands.js';
import { ACP_TAP, answerPermission, logLines, startAgentTerminal } from './support/agentTerminal.js';

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
    await term.stop();
    await t.cleanup();
    dirs.cleanup();
  };
  return { dirs, t, file, term, wire, cleanup };
}

/** The answer on the wire to the agent's request of `method` (its first), matched by id (a number or a string). */
function answerTo(wire: Wire[], method: string): { request: Wire; answer: Wire | undefined } | undefined {
  const request = wire.find((w) => w.dir === '<' && w.line.includes(`"method":"${method}"`));
  if (!request) return undefined;
  const { id } = JSON.parse(request.line) as { id: unknown };
  const answer = wire.find((w) => {
    if (w.dir !== '>') return false;
    const m = JSON.parse(w.line) as { id?: unknown; method?: unknown };
    return m.method === undefined && m.id === id;
  });
  return { request, answer };
}

/** The kind of the option the permission was answered with. */
function permissionAnswerKind(wire: Wire[]): string | undefined {
  const asked = answerTo(wire, 'session/request_permission');
  if (!asked?.answer) return undefined;
  const params = (JSON.parse(asked.request.line) as { params: { options: Array<{ optionId: string; kind: string }> } }).params;
  const picked = (JSON.parse(asked.answer.line) as { result?: { outcome?: { optionId?: string } } }).result?.outcome?.optionId;
  return params.options.find((o) => o.optionId === picked)?.kind;
}

test(
  'agent + gemini --acp: the selection reaches the agent; the diff opens once, at the permission; an edited accept lands those bytes',
  { skip, timeout: 180_000 },
  async () => {
    const r = await geminiRun('accept', writeFileTurns('a.txt', 'new\n', 'Wrote it.'));
    try {
      await r.term.waitOut(/IDE: connected to Test IDE/, 'the companion connection', 60_000);
      await r.term.waitOut(/\[agent: /, 'the agent started', 90_000);
      // Gemini offers its approval modes in session/new: /mode lists them and switches through session/set_mode.
      const offered = r.wire().find((w) => w.dir === '<' && w.line.includes('"availableModes"'));
      assert.ok(offered, 'session/new answered with modes');
      r.term.type('/mode');
      await r.term.waitOut(/ {2}\* default: Default.*\n(?: {2}- .*\n)*? {2}- autoEdit: Auto Edit/, "Gemini's modes, default current", 30_000);
      r.term.type('/mode default');
      await r.term.waitOut(/\[mode: default \(Default\)\]/, 'session/set_mode answered', 30_000);
      const setMode = r.wire().find((w) => w.dir === '>' && w.line.includes('"session/set_mode"'));
      assert.ok(setMode, 'session/set_mode on the wire');
      assert.match(setMode.line, /"modeId":"default"/);
      r.term.type('please change a.txt');
      const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 90_000);
      assert.equal(shown.filePath, r.file);
      assert.equal(shown.newContent, 'new\n');
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n', 'nothing written before the accept');
      r.t.companion.diffs.accept(shown.id, 'new, edited by the user\n');
      await r.term.waitOut(/wrote a\.txt as accepted in the editor \(with your edits\)/, 'the write of the accepted bytes', 30_000);
      await r.term.waitOut(/Wrote it\./, 'the model turn after the tool result', 60_000);
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'new, edited by the user\n');
      assert.equal(r.t.view.shown.length, 1, 'reviewed once: the write after the accepted permission opens no second diff');
      assert.doesNotMatch(r.term.out(), /The agent asks permission/);
      // At the wire: the prompt carried the editor's context, the permission was allowed once, the write answered with success.
      const prompt = r.wire().find((w) => w.dir === '>' && w.line.includes('"session/prompt"'));
      assert.ok(prompt, 'a session/prompt on the wire');
      assert.match(prompt.line, /SELECTED-TEXT-42/);
      assert.ok(prompt.line.includes(JSON.stringify(`Active file: ${r.file}`).slice(1, -1)), prompt.line);
      assert.equal(permissionAnswerKind(r.wire()), 'allow_once');
      const write = answerTo(r.wire(), 'fs/write_text_file');
      assert.ok(write, 'gemini asked fs/write_text_file');
      assert.ok(write.answer && !write.answer.line.includes('"error"'), `the write answered with success: ${write.answer?.line}`);
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  },
);

test('agent + gemini --acp: a reject in the editor leaves the file and the agent hears it', { skip, timeout: 180_000 }, async () => {
  const r = await geminiRun('reject', writeFileTurns('a.txt', 'new\n', 'Understood.'));
  try {
    await r.term.waitOut(/\[agent: /, 'the agent started', 90_000);
    r.term.type('please change a.txt');
    const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 90_000);
    r.t.companion.diffs.reject(shown.id);
    await r.term.waitOut(/rejected in the editor: a\.txt was not changed/, 'the reject told', 30_000);
    await r.term.waitOut(/\n> $/, 'the turn ended and the prompt is back', 60_000);
    assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n');
    // The agent heard it: the permission answered with its reject option, and it asked no write.
    assert.equal(permissionAnswerKind(r.wire()), 'reject_once');
    assert.ok(!r.wire().some((w) => w.line.includes('"fs/write_text_file"')), 'gemini did not ask to write');
    r.term.type('/quit');
    assert.equal(await r.term.exit(), 0, r.term.err());
  } finally {
    await r.cleanup();
  }
});

test(
  'agent + gemini --acp: a permission without a diff (a shell command) is asked in the terminal; refused, it is obeyed',
  { skip, timeout: 180_000 },
  async () => {
    const r = await geminiRun('deny', [functionCallTurn('run_shell_command', { command: 'touch refused.txt' }), textTurn('Fine.')]);
    try {
      await r.term.waitOut(/\[agent: /, 'the agent started', 90_000);
      r.term.type('please run it');
      await answerPermission(r.term, 'reject_once');
      await r.term.waitOut(/\n> $/, 'the turn ended and the prompt is back', 60_000);
      assert.equal(r.t.view.shown.length, 0, 'no diff opened');
      assert.equal(fs.existsSync(path.join(r.dirs.workspace, 'refused.txt')), false, 'the refused command did not run');
      assert.equal(permissionAnswerKind(r.wire()), 'reject_once');
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  },
);
