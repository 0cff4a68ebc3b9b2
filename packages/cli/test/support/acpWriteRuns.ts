/**
 * The review of a write, as every real ACP agent whose edit is reviewed at its permission is tested (agentQwen,
 * agentOpencode, agentCodex): a workspace with `a.txt`, a real companion whose editor shows `SELECTED-TEXT-42`
 * selected in it, the agent under `ide-companion agent` against a model mock; then an edited accept and a
 * reject, written once here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestCompanion, type TestCompanion } from '@ide-companion/server/testing';
import { ensureDiscoveryDir } from '@ide-companion/server';
import { makeTempDir, waitFor } from '@ide-companion/testkit';
import { binEnv } from './clientCommands.js';
import { startAgentTerminal, type AgentTerminal } from './agentTerminal.js';

export interface WriteRunPlace {
  /** The workspace, its `a.txt` (holding "old\n"), the agent's HOME, and the companion's TMPDIR. */
  workspace: string;
  file: string;
  home: string;
  tmpdir: string;
}

export interface AgentSetup {
  /** `ide-companion agent`'s arguments (`--` and the agent's argv). */
  args: string[];
  /** Variables beside binEnv's (HOME is the place's). */
  env: Record<string, string>;
  /** The model mock the agent talks to: its requests, and its close. */
  mock: { agentRequests(): string[]; close(): Promise<void> };
}

export interface WriteRun {
  file: string;
  mock: AgentSetup['mock'];
  t: TestCompanion;
  term: AgentTerminal;
  cleanup(): Promise<void>;
}

/** The place, the companion and `ide-companion agent` started with the agent `setup` configures. */
export async function startWriteRun(name: string, after: string, setup: (place: WriteRunPlace, after: string) => Promise<AgentSetup>): Promise<WriteRun> {
  const dir = makeTempDir(`acp-${name}-`);
  const place = { workspace: path.join(dir.path, 'ws'), tmpdir: path.join(dir.path, 'tmp'), home: path.join(dir.path, 'home'), file: '' };
  for (const folder of [place.workspace, place.tmpdir, place.home]) fs.mkdirSync(folder);
  place.file = path.join(place.workspace, 'a.txt');
  fs.writeFileSync(place.file, 'old\n');
  const agent = await setup(place, after);
  const t = await startTestCompanion({ tmp: place.tmpdir, workspace: place.workspace });
  ensureDiscoveryDir(place.tmpdir);
  t.companion.context.focus(place.file, { cursor: { line: 1, character: 1 }, selectedText: 'SELECTED-TEXT-42' });
  const term = startAgentTerminal(agent.args, { cwd: place.workspace, env: binEnv(place.tmpdir, { HOME: place.home, ...agent.env }) });
  const cleanup = async () => {
    await term.stop();
    await t.cleanup();
    await agent.mock.close();
    dir.cleanup();
  };
  return { file: place.file, mock: agent.mock, t, term, cleanup };
}

/** How the agent writes, for the tests below. */
export interface WriteReviewOptions {
  /**
   * The agent writes the file itself once allowed (codex-acp), not through fs/write_text_file (Qwen, opencode):
   * the user's edits are then written over its version.
   */
  writesItself?: boolean;
  /** After a reject, what the model's next request carries (the agent told it of the refusal); asked with one more prompt when the turn ended. */
  rejectHeard?: RegExp;
}

/**
 * The two tests of an agent (`label`, e.g. "qwen --acp"; `banner`, its name as `agent` prints it): the selection
 * reaches the model and an edited accept lands the user's bytes, reviewed once; a reject leaves the file.
 * `setup` configures the agent in the place, its model mock answering: read a.txt, write "new\n" to it, then `after`.
 */
export function writeReviewTests(
  label: string,
  banner: RegExp,
  skip: string | false,
  setup: (place: WriteRunPlace, after: string) => Promise<AgentSetup>,
  options: WriteReviewOptions = {},
): void {
  const written = options.writesItself ? /wrote your edits to a\.txt over the agent's version/ : /wrote a\.txt as accepted in the editor \(with your edits\)/;
  const name = label.split(' ')[0]!;
  test(
    `agent + ${label}: the selection reaches the model; the write is reviewed once in the editor; an edited accept lands those bytes`,
    { skip, timeout: 240_000 },
    async () => {
      const r = await startWriteRun(`${name}-accept`, 'Wrote it.', setup);
      try {
        await r.term.waitOut(banner, 'the agent started', 120_000);
        r.term.type('please change a.txt');
        const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 120_000);
        assert.equal(shown.filePath, r.file);
        assert.equal(shown.newContent, 'new\n');
        assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n', 'nothing written before the accept');
        r.t.companion.diffs.accept(shown.id, 'new, edited by the user\n');
        await r.term.waitOut(written, 'the accepted bytes written', 60_000);
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

  test(`agent + ${label}: a reject in the editor leaves the file`, { skip, timeout: 240_000 }, async () => {
    const r = await startWriteRun(`${name}-reject`, 'Understood.', setup);
    try {
      await r.term.waitOut(banner, 'the agent started', 120_000);
      r.term.type('please change a.txt');
      const shown = await waitFor(() => r.t.view.shown[0], 'the diff in the editor', 120_000);
      r.t.companion.diffs.reject(shown.id);
      await r.term.waitOut(/rejected in the editor: a\.txt was not changed/, 'the reject told', 30_000);
      await r.term.waitOut(/\n> $/, 'the turn ended and the prompt is back', 60_000);
      assert.equal(fs.readFileSync(r.file, 'utf8'), 'old\n');
      if (options.rejectHeard) {
        const before = r.mock.agentRequests().length;
        r.term.type('what happened?');
        const next = await waitFor(() => r.mock.agentRequests()[before], 'the next request to the model', 60_000);
        assert.match(next, options.rejectHeard);
        await r.term.waitOut(/\n> $/, 'the second turn ended', 60_000);
      }
      r.term.type('/quit');
      assert.equal(await r.term.exit(), 0, r.term.err());
    } finally {
      await r.cleanup();
    }
  });
}
