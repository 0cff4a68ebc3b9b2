/**
 * Issue 30, once for every end: the real `gemini` in the end's own agent
 * terminal proposes a write for each way the end's user ends a diff (accept,
 * reject, close, the CLI's own answer); after each, the keyboard is back in
 * the agent's terminal, where typing reaches the agent, and the next prompt
 * typed there (`/ide status`) reaches gemini, which answers it. One gemini
 * per kind of terminal (the end's variants) for all the endings: its scripted
 * turns are one write per ending, in order.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipUnless } from '../external.js';
import { writeFakeResponses, writeFileTurns, type FakeTurn } from '../fakeResponses.js';
import { findGeminiCli } from '../geminiCli.js';
import { geminiArgv, geminiEnv, HEADLESS_TRIGGER_ENV, makeGeminiHome, shellCommand } from '../geminiHome.js';
import { ideStatus, submitLine, waitIdeConnected } from '../geminiTui.js';
import { makeTempDir } from '../tempDir.js';
import { sleep, waitFor } from '../wait.js';
import type { AgentTerminal, DiffEnding } from './driver.js';
import type { Scenario, ScenarioContext } from './scenarios.js';

const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
/** Long enough for a scheduled window or mode change, short enough to fail fast on the old code. */
const KEYBOARD_TIMEOUT_MS = 5_000;
/** How long a quiet end is left alone after the ending keys (Vim's timers move the window). */
const QUIET_SETTLE_MS = 1_500;

const ORDER: readonly DiffEnding[] = ['accept', 'reject', 'close', 'agentAnswer'];
/** Accepted (by the editor or in the CLI), the CLI writes the proposal; rejected or closed, nothing. */
const writes = (how: DiffEnding) => how === 'accept' || how === 'agentAnswer';

/** The scripted turns: per ending a write_file; a rejected write ends the turn, so no model answer follows it. */
function turnsFor(files: ReadonlyArray<[string, DiffEnding]>): FakeTurn[] {
  return files.flatMap(([file, how]) => {
    const turns = writeFileTurns(file, proposalOf(file));
    return writes(how) ? turns : turns.slice(0, 1);
  });
}

const proposalOf = (file: string) => `${path.basename(file)} from the model\n`;
const ORIGINAL = 'original\n';

/** Adds `where` to a failure. */
const explained = (term: AgentTerminal) => async (err: Error) => {
  throw new Error(`${err.message}\n${await term.where()}`);
};

async function runVariant(ctx: ScenarioContext, variant: string): Promise<void> {
  const support = ctx.driver.agentTerminal!;
  const endings = ORDER.filter((how) => support.endings[how] !== undefined);
  const files = endings.map((how) => [ctx.file(`focus-${variant}-${how}.txt`), how] as [string, DiffEnding]);
  for (const [file] of files) fs.writeFileSync(file, ORIGINAL);
  const dirs = makeTempDir('ide-companion-agent-terminal-');
  ctx.defer(() => dirs.cleanup());
  const turns = path.join(dirs.path, 'turns.jsonl');
  writeFakeResponses(turns, turnsFor(files));
  const home = makeGeminiHome(path.join(dirs.path, 'home'));
  // What the end's agent command runs: the pinned CLI with scripted turns, in the end's TMPDIR, keeping the IDE env the end's terminal sets.
  const wrapper = path.join(dirs.path, 'gemini.sh');
  const command = shellCommand(geminiArgv(findGeminiCli()!, turns), geminiEnv({ home, tmpdir: ctx.session.tmpdir }), HEADLESS_TRIGGER_ENV);
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${command} "$@"\n`, { mode: 0o755 });

  const term = await ctx.session.startAgentTerminal!(wrapper, variant);
  ctx.defer(() => term.close());
  const fail = explained(term);
  await waitFor(async () => (await term.screen()).includes('Type your message'), 'gemini to start', START_TIMEOUT_MS, 250).catch(fail);
  const connected = await waitIdeConnected(term, START_TIMEOUT_MS).catch(fail);
  assert.ok(connected.status.startsWith(`Connected to ${ctx.driver.displayName}`), connected.status);

  for (const [file, how] of files) {
    const name = path.basename(file);
    const keys = `${support.endings[how]} (${how})`;
    await submitLine(term, `please write ${name}`, STEP_TIMEOUT_MS).catch(fail);
    await waitFor(() => ctx.session.showsProposal(file), `the diff of ${name}`, STEP_TIMEOUT_MS, 250).catch(fail);
    await term.diffShown(file);
    if (how === 'agentAnswer')
      await waitFor(async () => /Apply this change\?|Allow once/i.test(await term.screen()), "the CLI's question", STEP_TIMEOUT_MS, 250).catch(fail);
    await term.endDiff(file, how);
    if (support.quietAfterEnd) {
      // Nothing asks the editor anything until the user's next keys are typed.
      if (writes(how)) await waitFor(() => fs.readFileSync(file, 'utf8') === proposalOf(file), `gemini wrote ${name}`, STEP_TIMEOUT_MS);
      await sleep(QUIET_SETTLE_MS);
    } else {
      await waitFor(async () => !(await ctx.session.showsProposal(file)), `the diff ended by ${keys}`, STEP_TIMEOUT_MS, 250).catch(fail);
      await waitFor(() => term.hasKeyboard(), `the keyboard in the agent's terminal after ${keys}`, KEYBOARD_TIMEOUT_MS, 100).catch(fail);
      if (writes(how)) await waitFor(() => fs.readFileSync(file, 'utf8') === proposalOf(file), `gemini wrote ${name}`, STEP_TIMEOUT_MS, 100).catch(fail);
    }
    await term.afterEnd?.(file, how);
    // The user's next prompt, typed: gemini answers it below this turn.
    // A new answer, not the screen's older ones (an editor's terminal may not show the prompt line to split on).
    const answer = await ideStatus(term, STEP_TIMEOUT_MS).catch(fail);
    assert.ok(answer.startsWith(`Connected to ${ctx.driver.displayName}`), `gemini's answer to /ide status after ${keys}: ${answer}`);
    assert.equal(await term.hasKeyboard(), true, `the keyboard in the agent's terminal after ${keys} and the next prompt\n${await term.where()}`);
    assert.equal(await ctx.session.showsProposal(file), false, `the diff ended by ${keys}`);
  }
  for (const [file, how] of files)
    if (!writes(how)) assert.equal(fs.readFileSync(file, 'utf8'), ORIGINAL, `the change ${how === 'close' ? 'closed' : 'rejected'} is not written`);
  await term.close();
}

export const AGENT_TERMINAL_SCENARIO: Scenario = {
  name: 'gemini in the end’s agent terminal: after every way a diff ends the keyboard is back in the agent’s terminal and the next prompt typed reaches gemini',
  needs: ['agentTerminal'],
  requires: () => skipUnless(findGeminiCli() !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh'),
  timeoutMs: 10 * 60_000,
  files: {},
  async run(ctx) {
    const support = ctx.driver.agentTerminal;
    if (!support || !ctx.session.startAgentTerminal)
      throw new Error(`the ${ctx.driver.name} driver has no agent terminal and gives no reason in its unsupported table`);
    for (const how of ORDER) if (support.endings[how] === undefined) ctx.note(`${ctx.driver.name} has no ${how} ending of a diff to walk`);
    for (const [variant, skip] of Object.entries(support.variants)) {
      if (skip) {
        ctx.note(`the ${variant} terminal: ${skip}`);
        continue;
      }
      await runVariant(ctx, variant);
    }
  },
};
