/**
 * `ide-companion agent -- claude-agent-acp` with the real adapter (Zed's claude-agent-acp, pinned by
 * scripts/install-claude-agent-acp.sh; it runs the Claude Code bundled in the Claude Agent SDK), offline
 * against our Anthropic Messages mock on loopback, beside a real companion. The adapter does not write
 * through fs/write_text_file: Claude Code writes the file itself once `session/request_permission` is
 * allowed, and that request's tool call carries the edit as a `diff`. So the diff is reviewed at the
 * permission: it opens in the editor, an accept allows the write (the user's edits are written over the
 * agent's version once it reports its write), a reject refuses it. Checked at the model: the selection
 * reaches its request, the refusal and the user's edits are what it hears next.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestCompanion } from '@ide-companion/server/testing';
import { ensureDiscoveryDir } from '@ide-companion/server';
import {
  claudeAgentAcpEnv,
  findClaudeAgentAcp,
  makeClaudeHome,
  makeTempDir,
  skipUnless,
  startAnthropicMock,
  waitFor,
  type ScriptedTurn,
} from '@ide-companion/testkit';
import { binEnv } from './support/clientCommands.js';
import { answerPermission, startAgentTerminal } from './support/agentTerminal.js';

const adapter = findClaudeAgentAcp();
const skip = skipUnless(adapter !== undefined, 'the pinned claude-agent-acp (.tools/claude-agent-acp)', 'run scripts/install-claude-agent-acp.sh or .ci/run');

async function claudeRun(name: string, script: (ws: string) => ScriptedTurn[]) {
  const dir = makeTempDir(`acp-claude-${name}-`);
  const workspace = path.join(dir.path, 'ws');
  const tmpdir = path.join(dir.path, 'tmp');
  fs.mkdirSync(workspace);
  fs.mkdirSync(tmpdir);
  const file = path.join(workspace, 'a.txt');
  fs.writeFileSync(file, 'old\n');
  const { home } = makeClaudeHome(path.join(dir.path, 'home'), [workspace]);
  const mock = await startAnthropicMock(script(workspace));
  const t = await startTestCompanion({ tmp: tmpdir, workspace });
  ensureDiscoveryDir(tmpdir);
  t.companion.context.focus(file, { cursor: { line: 1, character: 1 }, selectedText: 'SELECTED-TEXT-42' });
  const env = claudeAgentAcpEnv(binEnv(tmpdir), { home, baseUrl: mock.baseUrl });
  const term = startAgentTerminal(['--', process.execPath, adapter!.script], { cwd: workspace, env });
  const cleanup = async () => {
    await term.stop();
    await t.cleanup();
    await mock.close();
    dir.cleanup();
  };
  return { workspace, file, mock, t, term, cleanup };
}

test(
  'agent + claude-agent-acp: the selection reaches the model; a Write opens the diff; an edited accept lands those bytes and the agent hears it',
  { skip, timeout: 300_000 },
  async () => {
    const r = await claudeRun('accept', (ws) => [
      { tool: 'Read', args: { file_path: path.join(ws, 'a.txt') } },
      { tool: 'Write', args: { file_path: path.join(ws, 'a.txt'), content: 'new\n' } },
      { text: 'Wrote it.' },
    ]);
    try {
      await r.term.waitOut(/IDE: connected to Test IDE/, 'the companion connection', 60_000);
      await r.term.waitOut(/\[agent: Claude Agent/, 'the agent started', 120_000);
      r.term.type('please change a.txt');
      const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 120_000);
      assert.equal(shown.filePath, r.file);
      assert.equal(shown.newContent, 'new\n');
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n', 'nothing written before the accept');
      assert.doesNotMatch(r.term.out(), /The agent asks permission/, 'the edit is reviewed in the editor, not asked in the terminal');
      r.t.companion.diffs.accept(shown.id, 'new, edited by the user\n');
      await r.term.waitOut(/wrote your edits to a\.txt over the agent's version/, 'the edits written', 60_000);
      // The turn over (the prompt back): a line typed while a turn runs is refused, not queued.
      await r.term.waitOut(/Wrote it\.\n> /, 'the model turn after the tool result, and the prompt', 60_000);
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'new, edited by the user\n');
      // The model's first request carried the editor's context: the selection (an embedded resource) and the active file.
      const first = r.mock.agentRequests()[0]!;
      assert.match(first, /SELECTED-TEXT-42/);
      assert.ok(first.includes(JSON.stringify(`Active file: ${r.file}`).slice(1, -1)), 'the active file in the model request');
      // The allowed write succeeded at the model (a tool_result that is not an error).
      const third = JSON.parse(r.mock.agentRequests()[2]!) as { messages: Array<{ content: unknown }> };
      assert.doesNotMatch(JSON.stringify(third.messages.at(-1)), /"is_error":true/);
      // The next prompt tells the agent its change was edited.
      const before = r.mock.agentRequests().length;
      const mark = r.term.out().length;
      r.term.type('thanks');
      await r.term.waitOut(/Done\./, 'the second turn', 120_000, mark);
      const next = r.mock.agentRequests()[before]!;
      assert.match(next, /The user edited your change to a\.txt in the editor before accepting it/);
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  },
);

test(
  'agent + claude-agent-acp: an Edit (a fragment) opens the whole file in the diff; a reject leaves the file and the model hears it',
  { skip, timeout: 300_000 },
  async () => {
    const r = await claudeRun('reject', (ws) => [
      { tool: 'Read', args: { file_path: path.join(ws, 'a.txt') } },
      { tool: 'Edit', args: { file_path: path.join(ws, 'a.txt'), old_string: 'old', new_string: 'new' } },
      { text: 'Understood.' },
    ]);
    try {
      await r.term.waitOut(/\[agent: Claude Agent/, 'the agent started', 120_000);
      r.term.type('please change a.txt');
      const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 120_000);
      assert.equal(shown.newContent, 'new\n', 'the fragment applied to the whole file');
      r.t.companion.diffs.reject(shown.id);
      await r.term.waitOut(/rejected in the editor: a\.txt was not changed/, 'the reject told', 30_000);
      await r.term.waitOut(/Understood\./, 'the model turn after the tool result', 60_000);
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n');
      const last = JSON.parse(r.mock.agentRequests().at(-1)!) as { messages: Array<{ content: unknown }> };
      assert.match(JSON.stringify(last.messages.at(-1)), /"is_error":true/);
      assert.match(JSON.stringify(last.messages.at(-1)), /User refused permission/);
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  },
);

test(
  'agent + claude-agent-acp: a permission without a diff (Bash) is asked in the terminal and obeyed: refused, then allowed',
  { skip, timeout: 300_000 },
  async () => {
    const r = await claudeRun('bash', () => [
      { tool: 'Bash', args: { command: 'touch refused.txt', description: 'Create refused.txt' } },
      { tool: 'Bash', args: { command: 'touch allowed.txt', description: 'Create allowed.txt' } },
      { text: 'Ran it.' },
    ]);
    try {
      await r.term.waitOut(/\[agent: Claude Agent/, 'the agent started', 120_000);
      r.term.type('please run the commands');
      await answerPermission(r.term, 'reject_once');
      const mark = r.term.out().length;
      await answerPermission(r.term, 'allow_once', mark);
      await r.term.waitOut(/Ran it\./, 'the turn ended', 120_000);
      assert.equal(fs.existsSync(path.join(r.workspace, 'refused.txt')), false, 'the refused command did not run');
      assert.equal(fs.existsSync(path.join(r.workspace, 'allowed.txt')), true, 'the allowed command ran');
      assert.equal(r.t.view.shown.length, 0, 'no diff opened');
      const second = JSON.parse(r.mock.agentRequests()[1]!) as { messages: Array<{ content: unknown }> };
      assert.match(JSON.stringify(second.messages.at(-1)), /User refused permission/);
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  },
);
