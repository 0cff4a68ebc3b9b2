/**
 * `ide-companion agent -- codex-acp` with the real adapter (Zed's codex-acp, pinned by scripts/install-codex-acp.sh;
 * its native binary carries codex-rs), offline against our Responses API mock on loopback, beside a real companion.
 * Codex writes the file itself (apply_patch) once `session/request_permission` is allowed; that request's tool call
 * carries the patch as `diff`s, one per hunk, each its old and new lines with their context. So the diff is reviewed
 * at the permission, the hunks of a file put together as one review of the whole file; the user's edits are written
 * over Codex's version once it reports the patch applied. Checked at the model: the selection reaches its request,
 * the refusal is what it hears next.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  codexAcpArgv,
  codexAcpEnv,
  findCodexAcp,
  makeCodexHome,
  skipUnless,
  startScriptedResponsesMock,
  waitFor,
  type ResponsesTurn,
} from '@ide-companion/testkit';
import { startWriteRun, writeReviewTests, type WriteRunPlace } from './support/acpWriteRuns.js';
import { answerPermission } from './support/agentTerminal.js';

const codex = findCodexAcp();
const skip = skipUnless(codex !== undefined, 'the pinned codex-acp (.tools/codex-acp)', 'run scripts/install-codex-acp.sh or .ci/run');
const BANNER = /\[agent: Codex /;

/** Codex's freeform apply_patch, its raw input a patch (codex-rs's format). */
function patch(body: string): ResponsesTurn {
  return { tool: 'apply_patch', input: `*** Begin Patch\n${body}*** End Patch\n`, custom: true };
}

function codexSetup(script: (place: WriteRunPlace) => ResponsesTurn[]) {
  return async (place: WriteRunPlace) => {
    const mock = await startScriptedResponsesMock(script(place));
    makeCodexHome(place.home, { baseUrl: mock.baseUrl, project: place.workspace });
    // codexAcpEnv over the place's: its HOME, CODEX_HOME and the mock's key (`agent` passes its environment on).
    const env = codexAcpEnv({}, { home: place.home }) as Record<string, string>;
    return { args: ['--', ...codexAcpArgv(codex!)], env, mock };
  };
}

writeReviewTests(
  'codex-acp',
  BANNER,
  skip,
  (place, after) => codexSetup(({ file }) => [patch(`*** Update File: ${file}\n@@\n-old\n+new\n`), { text: after }])(place),
  // Codex's "No, provide feedback" aborts the turn; the model hears it with the next prompt, as the patch's output.
  { writesItself: true, rejectHeard: /"type":"custom_tool_call_output","call_id":"call_mock_1","output":"[^"]*aborted/ },
);

test(
  'agent + codex-acp: a patch of two hunks in one file is one review of the whole file; an edited accept lands those bytes',
  { skip, timeout: 240_000 },
  async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}\n`);
    const r = await startWriteRun(
      'codex-hunks',
      'Wrote it.',
      codexSetup(({ file }) => {
        fs.writeFileSync(file, lines.join(''));
        return [patch(`*** Update File: ${file}\n@@\n line 1\n-line 2\n+LINE 2\n line 3\n@@\n line 10\n-line 11\n+LINE 11\n line 12\n`), { text: 'Wrote it.' }];
      }),
    );
    try {
      await r.term.waitOut(BANNER, 'the agent started', 120_000);
      r.term.type('please change a.txt');
      const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 120_000);
      const proposed = lines.join('').replace('line 2\n', 'LINE 2\n').replace('line 11\n', 'LINE 11\n');
      assert.equal(shown.newContent, proposed, 'both hunks, in the whole file');
      const edited = proposed.replace('line 6\n', 'line 6, the user\n');
      r.t.companion.diffs.accept(shown.id, edited);
      await r.term.waitOut(/wrote your edits to a\.txt over the agent's version/, 'the edits written', 60_000);
      await r.term.waitOut(/Wrote it\.\n> /, 'the turn ended', 60_000);
      assert.equal(fs.readFileSync(r.file, 'utf8'), edited);
      assert.equal(r.t.view.shown.length, 1, 'one review');
      // Codex sent the two hunks as two diffs of the file (what the review put together).
      const request = r.mock.agentRequests()[1]!;
      assert.match(request, /"type":"custom_tool_call_output","call_id":"call_mock_1","output":"[^"]*Success/);
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  },
);

test(
  'agent + codex-acp: a command is asked in the terminal and obeyed: refused (the turn ends, the model hears it), then allowed',
  { skip, timeout: 240_000 },
  async () => {
    const run = (cmd: string): ResponsesTurn => ({ tool: 'exec_command', args: { cmd } });
    const r = await startWriteRun(
      'codex-exec',
      'Ran it.',
      codexSetup(() => [run('touch refused.txt'), run('touch allowed.txt'), { text: 'Ran it.' }]),
    );
    const ws = (name: string) => `${r.file.slice(0, -'a.txt'.length)}${name}`;
    try {
      await r.term.waitOut(BANNER, 'the agent started', 120_000);
      r.term.type('please run the first command');
      await answerPermission(r.term, 'reject_once');
      await r.term.waitOut(/\[turn ended: cancelled\]\n> /, 'the turn ended by the refusal', 60_000);
      assert.equal(fs.existsSync(ws('refused.txt')), false, 'the refused command did not run');
      const mark = r.term.out().length;
      r.term.type('now the second');
      await answerPermission(r.term, 'allow_once', mark);
      await r.term.waitOut(/Ran it\.\n> /, 'the turn ended', 120_000, mark);
      assert.equal(fs.existsSync(ws('allowed.txt')), true, 'the allowed command ran');
      assert.equal(r.t.view.shown.length, 0, 'no diff opened');
      const [, second, third] = r.mock.agentRequests();
      assert.match(second!, /"type":"function_call_output","call_id":"call_mock_1","output":"aborted by user/);
      assert.match(third!, /"type":"function_call_output","call_id":"call_mock_2","output":"[^"]*Process exited with code 0/);
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  },
);
