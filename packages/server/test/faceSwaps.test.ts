/**
 * The faces' own reads and writes of a user's file while a second local user
 * races swaps (issue 35): Amp's `readFile`, `getDiagnostics` lineContent and
 * `editFile`, Claude Code's `openFile` anchors and line count. The workspace
 * is `nobody`'s (0777); the racer, running as `nobody`, swaps the file (or
 * the folder holding it) for a link to root's 0600 file outside and back.
 * Over every round: the outside file's text never returned (nor a range or
 * line count computed from it), its bytes never changed; once the racer
 * stops, the same requests work on the file inside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  connectAmpClient,
  connectClaudeClient,
  makeSharedWorkspace,
  secondUser,
  skipUnlessSecondUser,
  startSwapRacer,
  type SecondUser,
  type SharedWorkspace,
} from '@ide-companion/testkit';
import type { ActionParams, ActionResult } from '@ide-companion/protocol';
import type { PendingDiff } from '../src/editorActions.js';
import { RecordingEditor, startCompanion, type Harness } from './helpers.js';

/** Rounds per race, and its bound in time (the racer's own bound is longer: it swaps through every round). */
const ROUNDS = 300;
const RACE_MS = 90_000;

const skip = skipUnlessSecondUser();
const KINDS = ['file', 'folder'] as const;
type Kind = (typeof KINDS)[number];

/** The inside file's text: three lines, so a line count of the outside file's one line tells it was read. */
const INSIDE = 'inside one\ninside two\ninside three\n';

/** An editor that plays the user: every diff accepted as soon as it is shown; diagnostics and openFile recorded. */
class RacingEditor extends RecordingEditor {
  accept: ((diff: PendingDiff) => void) | undefined;
  diagnosticsFor: string[] = [];
  opened: Array<ActionParams<'openFile'>> = [];
  override showDiff(diff: PendingDiff, words?: ActionParams<'showDiff'>['words']): void | Promise<void> {
    const shown = super.showDiff(diff, words);
    setImmediate(() => this.accept?.(diff));
    return shown;
  }
  getDiagnostics(): ActionResult<'getDiagnostics'> {
    return {
      diagnostics: this.diagnosticsFor.map((file) => ({
        path: file,
        range: { start: { line: 1, character: 1 }, end: { line: 1, character: 3 } },
        severity: 'error' as const,
        message: 'm',
      })),
    };
  }
  openFile(params: ActionParams<'openFile'>): void {
    this.opened.push(params);
  }
}

interface Race {
  h: Harness;
  editor: RacingEditor;
  shared: SharedWorkspace;
  /** The file asked for: `ws/r.txt` (its name swapped) or `ws/sub/r.txt` (its folder swapped). */
  file: string;
  /** Whether the outside folder changed (its file's bytes, or a file made there); put back as it was when it did. */
  outsideWritten(): boolean;
}

/**
 * A companion for the second user's workspace, and the racer swapping `kind` for a link out during `during`; then
 * the racer stopped (its count and error asserted) and `after` run on the file left inside.
 */
async function withRace(
  t: import('node:test').TestContext,
  kind: Kind,
  agents: string[],
  during: (race: Race) => Promise<void>,
  after: (race: Race) => Promise<void>,
): Promise<void> {
  const user = secondUser() as SecondUser;
  const files: Record<string, string> = { 'r.txt': INSIDE, 'sub/r.txt': INSIDE };
  for (let j = 1; j < BATCH; j++) files[`sub/r${j}.txt`] = INSIDE;
  const shared = makeSharedWorkspace(user, files);
  t.after(() => shared.cleanup());
  const editor = new RacingEditor();
  const h = await startCompanion({ workspace: shared.ws, editor, agents: agents as never });
  t.after(() => h.cleanup());
  const file = kind === 'file' ? path.join(shared.ws, 'r.txt') : path.join(shared.ws, 'sub', 'r.txt');
  const racer = await startSwapRacer({
    user,
    kind,
    entry: kind === 'file' ? file : path.join(shared.ws, 'sub'),
    target: kind === 'file' ? shared.secret : shared.outside,
    text: INSIDE,
    maxMs: RACE_MS + 60_000,
  });
  const outsideWritten = () => {
    const made = fs.readdirSync(shared.outside).filter((n) => n !== path.basename(shared.secret));
    const changed = fs.readFileSync(shared.secret, 'utf8') !== shared.secretText;
    for (const name of made) fs.rmSync(path.join(shared.outside, name), { force: true });
    if (changed) fs.writeFileSync(shared.secret, shared.secretText);
    return changed || made.length > 0;
  };
  const race: Race = { h, editor, shared, file, outsideWritten };
  let stopped: Awaited<ReturnType<typeof racer.stop>>;
  try {
    await during(race);
  } finally {
    stopped = await racer.stop();
  }
  const { swaps, error } = stopped;
  assert.equal(error, undefined, 'the racer swapped without failing');
  t.diagnostic(`${kind}: the racer swapped ${swaps} times`);
  assert.ok(swaps > 0, 'the racer swapped');
  assert.equal(outsideWritten(), false, 'the outside folder is unchanged');
  await after(race);
}

/**
 * Runs `target` rounds (ROUNDS by default) within RACE_MS, each `batch` attempts at once: more tries while the racer
 * runs, as an attacker would send them. Fails when fewer than ROUNDS were done in that time.
 */
async function rounds(batch: number, attempt: (round: number, j: number) => Promise<void>, afterRound?: () => void, target = ROUNDS): Promise<number> {
  const deadline = Date.now() + RACE_MS;
  let done = 0;
  while (done < target && Date.now() < deadline) {
    const round = done++;
    await Promise.all(Array.from({ length: batch }, (_, j) => attempt(round, j)));
    afterRound?.();
  }
  assert.ok(done >= ROUNDS, `${done} rounds within ${RACE_MS} ms, fewer than ${ROUNDS}`);
  return done;
}

/** Rounds of editFile: most are refused at once (the link is up when it is asked), so more are tried to reach the write. */
const EDIT_ROUNDS = 1000;

/** Attempts per round: reads of one file go at once; edits at once go to different files (a second edit of one file replaces the first). */
const BATCH = 4;

async function ampOf(t: import('node:test').TestContext, h: Harness) {
  const lock = JSON.parse(fs.readFileSync(h.companion.lockFilePath('amp')!, 'utf8')) as { port: number; authToken: string };
  const amp = await connectAmpClient(lock);
  t.after(() => amp.close());
  return amp;
}

async function claudeOf(t: import('node:test').TestContext, h: Harness) {
  const lock = JSON.parse(fs.readFileSync(h.companion.lockFilePath('claude')!, 'utf8')) as { authToken: string };
  const claude = await connectClaudeClient({ port: h.companion.port, token: lock.authToken });
  t.after(() => claude.close());
  return claude;
}

const options = { skip, timeout: 300_000 };

for (const kind of KINDS) {
  test(
    `Amp readFile and getDiagnostics while another user swaps the ${kind} for a link out: ${ROUNDS} rounds, no outside text returned`,
    options,
    async (t) => {
      let amp: Awaited<ReturnType<typeof ampOf>>;
      await withRace(
        t,
        kind,
        ['gemini', 'amp'],
        async ({ h, editor, shared, file }) => {
          amp = await ampOf(t, h);
          editor.diagnosticsFor = [file];
          const secretLine = shared.secretText.trimEnd();
          let outsideReads = 0;
          let outsideLines = 0;
          let read = 0;
          let lines = 0;
          await rounds(BATCH, async () => {
            const answer = (await amp.request('readFile', { path: file })).readFile as { success: boolean; content?: string };
            if (answer.success && answer.content === shared.secretText) outsideReads++;
            if (answer.success && answer.content === INSIDE) read++;
            // An error answer (the editor's check refusing a path swapped away) returns nothing of the file either.
            const diagnostics = await amp.request('getDiagnostics', { path: file });
            if (diagnostics.error && JSON.stringify(diagnostics.error).includes('secret')) outsideLines++;
            const entries = (diagnostics.getDiagnostics?.entries ?? []) as Array<{ diagnostics: Array<{ lineContent: string }> }>;
            const lineContent = entries[0]?.diagnostics[0]?.lineContent;
            if (lineContent === secretLine) outsideLines++;
            if (lineContent === 'inside one') lines++;
          });
          t.diagnostic(
            `${kind}: readFile inside ${read}/${ROUNDS * BATCH}, outside ${outsideReads}; lineContent inside ${lines}/${ROUNDS * BATCH}, outside ${outsideLines}`,
          );
          assert.equal(outsideReads, 0, 'readFile never returned the outside file');
          assert.equal(outsideLines, 0, 'getDiagnostics never returned its line');
        },
        async ({ file }) => {
          // The racer stopped: the file inside is read as before.
          assert.deepEqual((await amp.request('readFile', { path: file })).readFile, { success: true, content: INSIDE, encoding: 'utf-8' });
          const entries = (await amp.request('getDiagnostics', { path: file })).getDiagnostics.entries;
          assert.equal(entries[0].diagnostics[0].lineContent, 'inside one');
        },
      );
    },
  );

  test(`Amp editFile accepted while another user swaps the ${kind} for a link out: ${ROUNDS} rounds, the outside file never written`, options, async (t) => {
    let amp: Awaited<ReturnType<typeof ampOf>>;
    await withRace(
      t,
      kind,
      ['gemini', 'amp'],
      async ({ h, editor, file, outsideWritten }) => {
        amp = await ampOf(t, h);
        editor.accept = (diff) => h.companion.diffs.accept(diff.id);
        // The swapped name holds one file; a swapped folder holds BATCH of them, edited at once.
        const batch = kind === 'file' ? 1 : BATCH;
        const fileOf = (j: number) => (j === 0 ? file : path.join(path.dirname(file), `r${j}.txt`));
        let outsideWrites = 0;
        let written = 0;
        const done = await rounds(
          batch,
          async (i, j) => {
            const answer = (await amp.request('editFile', { path: fileOf(j), fullContent: `accepted ${i}\n` })).editFile as { success: boolean };
            if (answer.success) written++;
          },
          () => {
            if (outsideWritten()) outsideWrites++;
          },
          EDIT_ROUNDS,
        );
        t.diagnostic(`${kind}: ${done} rounds, editFile written ${written}/${done * batch}, outside writes ${outsideWrites}`);
        assert.equal(outsideWrites, 0, 'the outside file was never written');
      },
      async ({ h, editor, file, shared }) => {
        // The racer stopped: an accepted edit lands inside, the outside file untouched.
        editor.accept = (diff) => h.companion.diffs.accept(diff.id);
        const answer = (await amp.request('editFile', { path: file, fullContent: 'after the race\n' })).editFile;
        assert.equal(answer.success, true, answer.message);
        assert.equal(fs.readFileSync(file, 'utf8'), 'after the race\n');
        assert.equal(fs.lstatSync(file).isFile(), true);
        assert.equal(fs.readFileSync(shared.secret, 'utf8'), shared.secretText);
      },
    );
  });

  test(
    `Claude openFile's startText and line count while another user swaps the ${kind} for a link out: ${ROUNDS} rounds, nothing computed from the outside file`,
    options,
    async (t) => {
      let claude: Awaited<ReturnType<typeof claudeOf>>;
      await withRace(
        t,
        kind,
        ['gemini', 'claude'],
        async ({ h, editor, file }) => {
          claude = await claudeOf(t, h);
          let outsideRanges = 0;
          let outsideCounts = 0;
          let found = 0;
          await rounds(BATCH, async () => {
            // The outside file's text holds "secret", the inside file's never: a range found for it was read outside.
            const searched = await claude.callTool('openFile', { filePath: file, startText: 'secret' });
            if (/selected text/.test(searched.content[0]?.text ?? '')) outsideRanges++;
            // The inside file has 3 lines, the outside one 1.
            const details = await claude.callTool('openFile', { filePath: file, makeFrontmost: false });
            if (!details.isError) {
              const { lineCount } = JSON.parse(details.content[0]!.text) as { lineCount?: number };
              if (lineCount === 1) outsideCounts++;
              if (lineCount === 3) found++;
            }
          });
          // No call in the race asked for lines: a range the editor was sent was found in the outside file.
          outsideRanges += editor.opened.filter((p) => p.line !== undefined).length;
          t.diagnostic(`${kind}: openFile ranges from outside ${outsideRanges}; line counts inside ${found}/${ROUNDS * BATCH}, outside ${outsideCounts}`);
          assert.equal(outsideRanges, 0, 'no range was computed from the outside file');
          assert.equal(outsideCounts, 0, 'no line count of the outside file');
        },
        async ({ editor, file }) => {
          // The racer stopped: the anchors are found in the file inside.
          const answer = await claude.callTool('openFile', { filePath: file, startText: 'inside two' });
          assert.equal(answer.content[0]!.text, 'Opened file and selected text "inside two"');
          assert.deepEqual(editor.opened.at(-1), { path: file, line: 2, column: 1, endLine: 2, endColumn: 11 });
          const details = await claude.callTool('openFile', { filePath: file, makeFrontmost: false });
          assert.equal((JSON.parse(details.content[0]!.text) as { lineCount: number }).lineCount, 3);
        },
      );
    },
  );
}
