/**
 * The real, pinned agent CLIs against an end (issue 19's flows, once for
 * every end): Qwen Code and Claude Code in tmux beside the end, each with a
 * scripted model on loopback that proposes a write. The agent connects to the
 * end (its `/ide` names the end), sends the end's selection with the prompt,
 * and its proposal is shown in the end: edited there and accepted, the user's
 * text is what the agent writes, byte for byte; rejected, nothing is written.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { claudeProposeWriteTurns, startAnthropicMock } from '../anthropicMock.js';
import { claudeCommand, findClaudeCode, makeClaudeHome, waitClaudeIdeConnected } from '../claudeCode.js';
import { skipUnless, which } from '../external.js';
import { submitLine } from '../geminiTui.js';
import { proposeWriteTurns, startOpenAiMock } from '../openAiMock.js';
import { findQwenCode, makeQwenHome, qwenCommand, waitQwenIdeConnected } from '../qwenCode.js';
import { Tmux } from '../tmux.js';
import { sleep, waitFor } from '../wait.js';
import type { Scenario, ScenarioContext } from './scenarios.js';

const AGENT_TIMEOUT_MS = 60_000;
const EDITED = 'the user’s line 😀\n';

/** Selects "line" of "original line" when the end can select; says so when it cannot. Returns whether it did. */
async function selectWord(ctx: ScenarioContext, file: string): Promise<boolean> {
  await ctx.session.open(file);
  if (!ctx.session.select) {
    const reason = ctx.driver.unsupported.select;
    if (!reason) throw new Error(`the ${ctx.driver.name} driver has no select and gives no reason in its unsupported table`);
    ctx.note(`the selection step is left out: ${reason}`);
    return false;
  }
  await ctx.session.select({ start: { line: 1, character: 10 }, end: { line: 1, character: 14 }, backward: false });
  // The agent reads the context when it sends the prompt: give the event time to arrive.
  await sleep(700);
  return true;
}

/** The end lists the agent among its connected ones, where it has a status to read; says so where it has none. */
async function listsAgent(ctx: ScenarioContext, agent: string): Promise<void> {
  if (!ctx.session.agentStatus) {
    const reason = ctx.driver.unsupported.agentStatus;
    if (!reason) throw new Error(`the ${ctx.driver.name} driver has no agentStatus and gives no reason in its unsupported table`);
    ctx.note(`the end's own agent list is not checked: ${reason}`);
    return;
  }
  let last = '';
  await waitFor(
    async () => {
      last = await ctx.session.agentStatus!();
      return last.includes(agent);
    },
    `${ctx.driver.name} to list ${agent}`,
    AGENT_TIMEOUT_MS,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; it says: ${last}`);
  });
}

/** The end shows the agent's proposal; the user rewrites it and accepts; the agent writes the user's text. */
async function editAndAccept(ctx: ScenarioContext, tui: Tmux, file: string, proposed: string): Promise<void> {
  const shown = await ctx.session.shownProposal(file).catch((err: Error) => {
    throw new Error(`${err.message}\n--- agent screen ---\n${tui.screen()}`);
  });
  assert.equal(shown.replace(/\n$/, ''), proposed.replace(/\n$/, ''));
  await ctx.session.editProposal!(file, EDITED);
  await ctx.session.accept(file);
  await waitFor(() => fs.readFileSync(file, 'utf8') === EDITED, "the agent to write the user's text", AGENT_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}; the file holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- agent screen ---\n${tui.screen()}`);
  });
}

export const REAL_AGENT_SCENARIOS: readonly Scenario[] = [
  {
    name: 'Qwen Code (the real CLI): /ide names the end and the end lists it, the selection goes with the prompt, its write edited and accepted in the end lands byte for byte, a rejected one changes nothing',
    needs: ['faces:qwen', 'editProposal'],
    requires: () =>
      skipUnless(findQwenCode() !== undefined, 'Qwen Code 0.24.4', 'run scripts/install-qwen-code.sh') ||
      skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux'),
    timeoutMs: 300_000,
    files: { 'qwen-real.txt': 'original line\n' },
    async run(ctx) {
      const file = ctx.file('qwen-real.txt');
      const model = await startOpenAiMock([
        ...proposeWriteTurns(file, 'line from the model\n'),
        { tool: 'write_file', args: { file_path: file, content: 'rejected text\n' } },
        { text: 'Done.' },
      ]);
      const tui = new Tmux(200, 50);
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-qwen-home-'));
      ctx.defer(async () => {
        await tui.stop();
        await model.close();
        fs.rmSync(home, { recursive: true, force: true });
      });
      makeQwenHome(ctx.session.qwenHome);
      tui.start(qwenCommand(findQwenCode()!, { home, tmpdir: ctx.session.tmpdir, qwenHome: ctx.session.qwenHome, baseUrl: model.baseUrl }), {
        cwd: ctx.session.workspace,
      });
      assert.ok((await waitQwenIdeConnected(tui)).includes(`Connected to ${ctx.driver.displayName}`));
      await listsAgent(ctx, 'Qwen Code');
      const selected = await selectWord(ctx, file);
      await submitLine(tui, 'please change qwen-real.txt');
      await editAndAccept(ctx, tui, file, 'line from the model\n');
      // The first request, the user's prompt: Qwen Code put the editor's context before it.
      const messages = (JSON.parse(model.agentRequests()[0] ?? '{}') as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
      const last = messages.filter((m) => m.role === 'user').at(-1)?.content;
      const prompt = typeof last === 'string' ? last : ((last as Array<{ text?: string }> | undefined) ?? []).map((p) => p.text ?? '').join('\n');
      assert.ok(prompt.includes(`Active file:\n  Path: ${file}`), prompt.slice(-600));
      if (selected) assert.match(prompt, /Selected text:\n```\nline\n```/);

      await submitLine(tui, 'once more');
      await ctx.session.shownProposal(file);
      await ctx.session.reject(file);
      await waitFor(async () => !(await ctx.session.showsProposal(file)), 'the proposal to close', AGENT_TIMEOUT_MS);
      // Time for Qwen Code to act on the outcome: it must not write.
      await sleep(2_000);
      assert.equal(fs.readFileSync(file, 'utf8'), EDITED, 'the rejected proposal never reached the file');
    },
  },
  {
    name: 'Claude Code (the real CLI): /ide names the end and the end lists it, the selection goes with the prompt, its write edited and accepted in the end lands byte for byte, a rejected one changes nothing',
    needs: ['faces:claude', 'editProposal'],
    requires: () =>
      skipUnless(findClaudeCode() !== undefined, 'Claude Code 2.1.332', 'run scripts/install-claude-code.sh') ||
      skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux'),
    timeoutMs: 300_000,
    files: { 'claude-real.txt': 'original line\n' },
    async run(ctx) {
      const file = ctx.file('claude-real.txt');
      const model = await startAnthropicMock([
        ...claudeProposeWriteTurns(file, 'line from the model\n'),
        { tool: 'Write', args: { file_path: file, content: 'rejected text\n' } },
        { text: 'Done.' },
      ]);
      const tui = new Tmux(160, 50);
      // Claude Code reads its lock files from HOME/.claude/ide: there, the folder the end writes them to.
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-claude-home-'));
      fs.symlinkSync(ctx.session.claudeConfigDir, path.join(home, '.claude'));
      ctx.defer(async () => {
        await tui.stop();
        await model.close();
        fs.rmSync(home, { recursive: true, force: true });
      });
      makeClaudeHome(home, [ctx.session.workspace]);
      tui.start(claudeCommand(findClaudeCode()!, { home, baseUrl: model.baseUrl }), { cwd: ctx.session.workspace });
      await waitClaudeIdeConnected(tui, ctx.driver.displayName);
      await listsAgent(ctx, 'Claude Code');
      const selected = await selectWord(ctx, file);
      await tui.submit('please change claude-real.txt');
      await editAndAccept(ctx, tui, file, 'line from the model\n');
      if (selected)
        assert.ok(
          (model.agentRequests()[0] ?? '').includes(`The user selected the lines 1 to 1 from ${file}:\\nline\\n`),
          "the end's selection reaches the model",
        );

      await tui.submit('once more');
      await ctx.session.shownProposal(file);
      await ctx.session.reject(file);
      await waitFor(() => tui.screen().includes('Rejected write to claude-real.txt'), 'Claude Code to hear the rejection', AGENT_TIMEOUT_MS).catch(
        (err: Error) => {
          throw new Error(`${err.message}\n--- agent screen ---\n${tui.screen()}`);
        },
      );
      assert.equal(fs.readFileSync(file, 'utf8'), EDITED, 'the rejected proposal never reached the file');
    },
  },
];
