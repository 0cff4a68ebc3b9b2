/**
 * `ide-companion agent -- qwen --acp` with the real Qwen Code (pinned, .tools/qwen-code), offline against
 * our OpenAI-compatible mock on loopback, beside a real companion. In `--approval-mode default` Qwen asks
 * permission for a write with the edit as the tool call's `diff`, then writes through fs/write_text_file,
 * as Gemini does: the diff opens once in the editor, at the permission. Checked at the model: the selection
 * reaches its request; an edited accept lands the user's bytes; a reject leaves the file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestCompanion } from '@ide-companion/server/testing';
import { ensureDiscoveryDir } from '@ide-companion/server';
import { findQwenCode, makeQwenHome, makeTempDir, proposeWriteTurns, qwenArgv, skipUnless, startOpenAiMock, waitFor } from '@ide-companion/testkit';
import { binEnv } from './support/clientCommands.js';
import { startAgentTerminal } from './support/agentTerminal.js';

const qwen = findQwenCode();
const skip = skipUnless(qwen !== undefined, 'the pinned Qwen Code (.tools/qwen-code)', 'run scripts/install-qwen-code.sh or .ci/run');

async function qwenRun(name: string, after: string) {
  const dir = makeTempDir(`acp-qwen-${name}-`);
  const workspace = path.join(dir.path, 'ws');
  const tmpdir = path.join(dir.path, 'tmp');
  const home = path.join(dir.path, 'home');
  fs.mkdirSync(workspace);
  fs.mkdirSync(tmpdir);
  const file = path.join(workspace, 'a.txt');
  fs.writeFileSync(file, 'old\n');
  const turns = proposeWriteTurns(file, 'new\n');
  turns[2] = { text: after };
  const mock = await startOpenAiMock(turns);
  const t = await startTestCompanion({ tmp: tmpdir, workspace });
  ensureDiscoveryDir(tmpdir);
  t.companion.context.focus(file, { cursor: { line: 1, character: 1 }, selectedText: 'SELECTED-TEXT-42' });
  // Qwen's own IDE mode off (as Gemini's in agentGemini.test.ts): under `agent` we are its IDE.
  fs.mkdirSync(home);
  const qwenHome = makeQwenHome(path.join(home, '.qwen'));
  fs.writeFileSync(
    path.join(qwenHome, 'settings.json'),
    JSON.stringify({ ide: { enabled: false }, general: { enableAutoUpdate: false }, privacy: { usageStatisticsEnabled: false } }),
  );
  const env = binEnv(tmpdir, { HOME: home, QWEN_HOME: qwenHome });
  const term = startAgentTerminal(['--', ...qwenArgv(qwen!, mock.baseUrl), '--acp', '--approval-mode', 'default'], { cwd: workspace, env });
  const cleanup = async () => {
    await term.stop();
    await t.cleanup();
    await mock.close();
    dir.cleanup();
  };
  return { file, mock, t, term, cleanup };
}

test(
  'agent + qwen --acp: the selection reaches the model; the write is reviewed once in the editor; an edited accept lands those bytes',
  { skip, timeout: 240_000 },
  async () => {
    const r = await qwenRun('accept', 'Wrote it.');
    try {
      await r.term.waitOut(/\[agent: Qwen Code/, 'the agent started', 120_000);
      r.term.type('please change a.txt');
      const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 120_000);
      assert.equal(shown.filePath, r.file);
      assert.equal(shown.newContent, 'new\n');
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n', 'nothing written before the accept');
      r.t.companion.diffs.accept(shown.id, 'new, edited by the user\n');
      await r.term.waitOut(/wrote a\.txt as accepted in the editor \(with your edits\)/, 'the accepted bytes written', 60_000);
      await r.term.waitOut(/Wrote it\./, 'the model turn after the tool result', 60_000);
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'new, edited by the user\n');
      assert.equal(r.t.view.shown.length, 1, 'reviewed once');
      assert.match(r.mock.agentRequests()[0]!, /SELECTED-TEXT-42/);
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  },
);

test('agent + qwen --acp: a reject in the editor leaves the file', { skip, timeout: 240_000 }, async () => {
  const r = await qwenRun('reject', 'Understood.');
  try {
    await r.term.waitOut(/\[agent: Qwen Code/, 'the agent started', 120_000);
    r.term.type('please change a.txt');
    const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 120_000);
    r.t.companion.diffs.reject(shown.id);
    await r.term.waitOut(/rejected in the editor: a\.txt was not changed/, 'the reject told', 30_000);
    await r.term.waitOut(/\n> $/, 'the turn ended and the prompt is back', 60_000);
    assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n');
    r.term.type('/quit');
    assert.equal(await r.term.exit(), 0, r.term.err());
  } finally {
    await r.cleanup();
  }
});
