/**
 * Diffs and the workspace's edge (issue 35): one rule in the diff coordinator for every face, a file inside the roots
 * by its real path, read and written by descriptor. A diff for a path outside the roots, or for a link inside them
 * leading out, is refused and its target never shown; a second local user racing swaps of `ws/r.txt` and `ws/sub`
 * for links to root's 0600 file never gets that file shown as a diff's left side, nor Copilot's edited accept
 * written over it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { writePinned } from '@ide-companion/shared/pinnedFiles';
import {
  connectCopilotClient,
  makeSharedWorkspace,
  makeTempDir,
  secondUser,
  skipUnlessSecondUser,
  startSwapRacer,
  waitFor,
  type SecondUser,
  type SharedWorkspace,
} from '@ide-companion/testkit';
import { connectClient, startCompanion, type Harness } from './helpers.js';

const text = (r: any): string => (r.content as Array<{ text: string }>).map((c) => c.text).join('');

test('a diff outside the roots, or for a link inside them leading out, is refused on every face, and the outside text never shown', async (t) => {
  const h = await startCompanion({ agents: ['gemini', 'copilot'] });
  t.after(() => h.cleanup());
  const outsideDir = makeTempDir();
  t.after(() => outsideDir.cleanup());
  const secret = path.join(outsideDir.path, 'secret.txt');
  fs.writeFileSync(secret, 'outside secret\n', { mode: 0o600 });
  fs.symlinkSync(secret, path.join(h.workspace, 'link.txt'));
  fs.symlinkSync(outsideDir.path, path.join(h.workspace, 'linkdir'));

  const gemini = await connectClient(h.companion);
  t.after(() => gemini.close());
  for (const filePath of [secret, path.join(h.workspace, 'link.txt'), path.join(h.workspace, 'linkdir', 'secret.txt'), path.join(outsideDir.path, 'new.txt')]) {
    const r: any = await gemini.client.callTool({ name: 'openDiff', arguments: { filePath, newContent: 'proposal\n' } });
    assert.equal(r.isError, true, filePath);
    assert.match(text(r), /outside the workspace folders/, filePath);
  }
  const lock = JSON.parse(fs.readFileSync(h.companion.lockFilePath('copilot')!, 'utf8'));
  const copilot = await connectCopilotClient(lock);
  t.after(() => copilot.close());
  const r: any = await copilot.client.callTool({
    name: 'open_diff',
    arguments: { original_file_path: path.join(h.workspace, 'link.txt'), new_file_contents: 'proposal\n', tab_name: '[Copilot CLI] - link.txt' },
  });
  assert.match(text(r), /outside the workspace folders/);
  assert.equal(h.view.shown.length, 0, 'no diff shown');
  assert.ok(!h.view.shown.some((d) => d.originalContent === 'outside secret\n'));

  // Inside: a new file and a link to a file inside still open, the link as its target's text.
  fs.writeFileSync(path.join(h.workspace, 'in.txt'), 'inside\n');
  fs.symlinkSync(path.join(h.workspace, 'in.txt'), path.join(h.workspace, 'in-link.txt'));
  for (const name of ['in-link.txt', 'new.txt']) {
    const ok: any = await gemini.client.callTool({ name: 'openDiff', arguments: { filePath: path.join(h.workspace, name), newContent: 'proposal\n' } });
    assert.notEqual(ok.isError, true, text(ok));
  }
  assert.deepEqual(
    h.view.shown.map((d) => d.originalContent),
    ['inside\n', undefined],
  );
});

/** 128 KiB of text. */
const BULK = `${'x'.repeat(1023)}\n`.repeat(128);

/** Rounds per race and their bound in time. */
const ROUNDS = 300;
const RACE_MS = 240_000;
const skip = skipUnlessSecondUser();

/** The coordinator's word on an edited accept's replace: put in place, or refused. */
type Outcome = 'landed' | 'refused';

async function sharedCompanion(
  t: import('node:test').TestContext,
): Promise<{ h: Harness; shared: SharedWorkspace; user: SecondUser; outcomes: Array<(o: Outcome) => void> }> {
  const user = secondUser() as SecondUser;
  const shared = makeSharedWorkspace(user, { 'r.txt': 'the workspace file\n', 'sub/r.txt': 'the workspace file\n' });
  t.after(() => shared.cleanup());
  const outcomes: Array<(o: Outcome) => void> = [];
  const hear = (message: string) => {
    if (message.startsWith('the agent wrote its own proposal')) outcomes.shift()?.('landed');
    if (message.startsWith("could not put the user's edits")) outcomes.shift()?.('refused');
  };
  const logger = { debug() {}, error() {}, info: hear, warn: hear };
  const h = await startCompanion({ agents: ['gemini', 'copilot'], workspace: shared.ws, logger });
  t.after(() => h.cleanup());
  return { h, shared, user, outcomes };
}

for (const kind of ['file', 'folder'] as const) {
  test(
    `a second user swapping the ${kind} for a link to root's 0600 file: the diff's left side is never that file (${ROUNDS} rounds)`,
    { skip, timeout: 2 * RACE_MS },
    async (t) => {
      const { h, shared, user } = await sharedCompanion(t);
      const file = kind === 'file' ? path.join(shared.ws, 'r.txt') : path.join(shared.ws, 'sub', 'r.txt');
      // No swap: the left side is the file's.
      await h.companion.diffs.open('s', file, 'proposal\n');
      assert.equal(h.view.shown.at(-1)?.originalContent, 'the workspace file\n');
      await h.companion.diffs.close('s', file);

      const racer = await startSwapRacer({
        user,
        entry: kind === 'file' ? file : path.dirname(file),
        kind,
        target: kind === 'file' ? shared.secret : shared.outside,
        text: 'the workspace file\n',
        maxMs: RACE_MS,
      });
      const end = Date.now() + RACE_MS;
      let rounds = 0;
      let shownInside = 0;
      try {
        for (; rounds < ROUNDS && Date.now() < end; rounds++) {
          try {
            await h.companion.diffs.open('s', file, `proposal ${rounds}\n`);
            await h.companion.diffs.close('s', file);
          } catch (err) {
            // Refused while a link stood there: said, nothing shown.
            assert.match((err as Error).message, /replaced while in use|outside the workspace folders|could not read/);
          }
        }
      } finally {
        const { swaps, error } = await racer.stop();
        assert.equal(error, undefined);
        assert.ok(swaps > 0);
      }
      assert.equal(rounds, ROUNDS);
      const leaked = h.view.shown.filter((d) => d.originalContent === shared.secretText).length;
      shownInside = h.view.shown.filter((d) => d.originalContent === 'the workspace file\n').length;
      assert.equal(leaked, 0, `root's file was shown as the left side ${leaked} times in ${ROUNDS}`);
      assert.ok(shownInside > 1, 'diffs were shown with the workspace file meanwhile');
    },
  );
}

test(
  `a second user swapping a folder for a link while Copilot's edited accept waits for the CLI's write: root's file never written (${ROUNDS} rounds)`,
  { skip, timeout: 2 * RACE_MS },
  async (t) => {
    const { h, shared, user, outcomes } = await sharedCompanion(t);
    const file = path.join(shared.ws, 'sub', 'r.txt');
    const roots = [shared.ws];
    /** One edited accept: the CLI (a pinned write here, never through a link) writes its proposal, we put the user's text in its place. */
    const round = async (i: number): Promise<boolean> => {
      // Large: the old code read it whole between its check and its write, a window a swap easily falls into.
      const proposal = `proposal ${i}\n${BULK}`;
      const userText = `the user's text ${i}\n`;
      // Opened once the folder is back (refused while the link stands: not what this test is about).
      const diff = await waitFor(
        () => h.companion.diffs.open('s', file, proposal, 'Copilot CLI', { writesOwnProposal: true }).catch(() => undefined),
        'the diff opened',
        2_000,
        1,
      ).catch(() => undefined);
      if (!diff) return false;
      h.companion.diffs.accept(diff.id, userText);
      // The coordinator's word, or none within 200 ms (its watch began on a link: it never hears the write).
      const outcome = new Promise<Outcome | undefined>((resolve) => {
        const timer = setTimeout(() => {
          outcomes.splice(outcomes.indexOf(done), 1);
          resolve(undefined);
        }, 200);
        const done = (o: Outcome) => {
          clearTimeout(timer);
          resolve(o);
        };
        outcomes.push(done);
      });
      const cliWrote = await waitFor(
        () => {
          try {
            writePinned(file, proposal, { roots });
            return true;
          } catch {
            return false;
          }
        },
        'the CLI write',
        1_000,
        5,
      ).catch(() => false);
      if (!cliWrote) return false;
      return (await outcome) === 'landed';
    };
    // No swap: the user's text takes the CLI's write's place.
    assert.ok(await round(-1), "the user's edits land without a swap");

    const racer = await startSwapRacer({ user, entry: path.dirname(file), kind: 'folder', target: shared.outside, maxMs: RACE_MS, linkUs: 100, realUs: 1000 });
    const end = Date.now() + RACE_MS;
    let rounds = 0;
    let landed = 0;
    try {
      for (; rounds < ROUNDS && Date.now() < end; rounds++) if (await round(rounds)) landed++;
    } finally {
      const { swaps, error } = await racer.stop();
      assert.equal(error, undefined);
      assert.ok(swaps > 0);
    }
    assert.equal(fs.readFileSync(shared.secret, 'utf8'), shared.secretText, `root's file outside is unchanged (after ${rounds} rounds)`);
    assert.deepEqual(fs.readdirSync(shared.outside), ['r.txt'], 'nothing was made outside');
    assert.equal(rounds, ROUNDS);
    assert.ok(landed > 0, `the user's edits landed in some rounds meanwhile (${landed} of ${ROUNDS})`);
  },
);
