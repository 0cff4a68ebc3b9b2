/**
 * Every agent's scenarios, written once over the face table (faceTable.ts)
 * and run against every end: it connects and hears the file the user opens
 * and the text selected; "Send to agent" reaches it; it reads the editor's
 * diagnostics; its diff edited by the user and accepted leaves the user's
 * bytes in the file, rejected or closed by the agent leaves the file as it
 * was; a wrong token is refused. Then Amp's editFile through the editor's
 * buffer (a session of its own, started in that mode). A scenario an agent
 * lacks is reported skipped with the agent's reason, one an end cannot run
 * with the end's.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { waitFor } from '../wait.js';
import type { EndAction, EndSession } from './driver.js';
import { FACE_TIMEOUT_MS } from './faces.js';
import { connectAmp, FACES, type FaceAspect, type FaceEntry } from './faceTable.js';
import type { Scenario, ScenarioContext } from './scenarios.js';
import { AMP_REQUEST } from '@ide-companion/protocol';

const ORIGINAL = 'first line\nsecond line ✓\nthird line\n';
const PROPOSAL = 'from the model\n';
const EDITED = 'the user’s line 😀\nsecond ✓\n';
/** The optional-argument rows' file: the one Emacs's stand-in linter reports on (its driver). */
const DIAGNOSED = 'u.txt';

/** A file name of the face's own (one workspace serves every scenario). */
const fileOf = (face: FaceEntry, what: string) => `face-${face.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${what}.txt`;

/** The face connected for the scenario, closed after it. */
async function connected(ctx: ScenarioContext, face: FaceEntry) {
  const link = await face.connect(ctx.session);
  ctx.defer(() => link.close());
  return link;
}

const closes = (session: EndSession, file: string) =>
  waitFor(async () => !(await session.showsProposal(file)), 'the proposal to close', FACE_TIMEOUT_MS).then(() => undefined);

/** The file's bytes are `text`, exactly (waits: an agent may write after its answer). */
async function holds(file: string, text: string, what: string): Promise<void> {
  await waitFor(() => fs.readFileSync(file).equals(Buffer.from(text)), what, FACE_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}; it holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}`);
  });
}

/** One face's scenarios. */
function scenariosOf(face: FaceEntry): Scenario[] {
  const lacking = (aspect: FaceAspect) => face.lacks[aspect] && { unsupported: `${face.name} lacks it: ${face.lacks[aspect]}` };
  const diffScenario = (
    what: string,
    file: string,
    name: string,
    decide: (ctx: ScenarioContext, f: string, d: ReturnType<NonNullable<import('./faceTable.js').FaceLink['openDiff']>>) => Promise<void>,
    needs: Scenario['needs'] = [],
  ): Scenario => ({
    name: `${face.name}: openDiff ${what}`,
    needs: [...face.needs, ...needs],
    files: { [file]: ORIGINAL },
    ...(lacking('diffs') || (name !== 'close' && lacking('decidedInEditor'))),
    async run(ctx) {
      const link = await connected(ctx, face);
      const f = ctx.file(file);
      const diff = link.openDiff!(f, PROPOSAL, `${name} ${file}`, name === 'accept');
      assert.equal((await ctx.session.shownProposal(f)).replace(/\n$/, ''), PROPOSAL.replace(/\n$/, ''), 'the end shows the proposal');
      await decide(ctx, f, diff);
    },
  });
  return [
    {
      name: `${face.name}: connects; the file the user opens and the text selected reach it`,
      needs: face.needs,
      files: { [fileOf(face, 'context')]: ORIGINAL },
      async run(ctx) {
        const link = await connected(ctx, face);
        const file = ctx.file(fileOf(face, 'context'));
        await ctx.session.open(file);
        await link.heard(file);
        if (!ctx.session.select) {
          ctx.note(`the selection step is left out: ${ctx.driver.unsupported.select ?? 'no reason given'}`);
          return;
        }
        await ctx.session.select({ start: { line: 2, character: 8 }, end: { line: 3, character: 6 }, backward: false });
        await link.heard(file, 'line ✓\nthird');
      },
    },
    {
      name: `${face.name}: "Send to agent" reaches it as the file's lines`,
      needs: [...face.needs, 'mention'],
      face: { name: face.name, aspect: 'mention' },
      files: { [fileOf(face, 'mention')]: ORIGINAL },
      ...lacking('mention'),
      async run(ctx) {
        const link = await connected(ctx, face);
        const file = ctx.file(fileOf(face, 'mention'));
        await ctx.session.open(file);
        // Connected and listening (Copilot CLI's stream opens after its connect): then the user sends.
        await link.heard(file);
        await ctx.session.mention!(file, 2, 3);
        await link.mentioned!(file, 2, 3);
      },
    },
    {
      name: `${face.name}: reads the warning the editor shows`,
      needs: [...face.needs, 'setWarning'],
      files: {},
      ...lacking('diagnostics'),
      async run(ctx) {
        const link = await connected(ctx, face);
        const file = ctx.file(DIAGNOSED);
        await ctx.session.open(file);
        await ctx.session.setWarning!(file);
        let last: unknown;
        await waitFor(
          async () => {
            last = await link.diagnostics!(file);
            return (last as Array<{ line: number; severity: string }>).some((d) => d.line === 1 && d.severity.startsWith('warn'));
          },
          `${face.name} to read the warning on line 1`,
          FACE_TIMEOUT_MS,
        ).catch((err: Error) => {
          throw new Error(`${err.message}; it read ${JSON.stringify(last)}`);
        });
      },
    },
    diffScenario(
      'edited by the user and accepted: the user’s bytes land, exactly',
      fileOf(face, 'accept'),
      'accept',
      async (ctx, f, diff) => {
        await ctx.session.editProposal!(f, EDITED);
        await ctx.session.accept(f);
        await diff.accepted();
        await holds(f, EDITED, "the user's bytes in the file");
        await closes(ctx.session, f);
      },
      ['editProposal'],
    ),
    diffScenario('rejected: the file untouched, the proposal closes', fileOf(face, 'reject'), 'reject', async (ctx, f, diff) => {
      await ctx.session.reject(f);
      await diff.rejected();
      await closes(ctx.session, f);
      assert.equal(fs.readFileSync(f, 'utf8'), ORIGINAL);
    }),
    diffScenario('closed by the agent: the proposal closes, the file untouched', fileOf(face, 'close'), 'close', async (ctx, f, diff) => {
      await diff.closeByAgent();
      await closes(ctx.session, f);
      assert.equal(fs.readFileSync(f, 'utf8'), ORIGINAL);
      await ctx.session.ping();
    }),
    {
      name: `${face.name}: a wrong token is refused`,
      needs: face.needs,
      files: {},
      ...lacking('wrongToken'),
      async run(ctx) {
        const said = await face.wrongToken!(ctx.session);
        assert.match(said, /401|refused|Unauthorized/i, `the refusal: ${said}`);
        await ctx.session.ping();
      },
    },
  ];
}

const BUFFER_FILES = { 'amp-buffer-a.txt': 'alpha\nbeta\n', 'amp-buffer-b.txt': 'keep\n' };

/** A part of a scenario the end may lack: runs `part` with the session's `method`, or notes the driver's reason (none given fails). */
async function part(ctx: ScenarioContext, action: EndAction, method: keyof EndSession, what: string, run: () => Promise<void>): Promise<void> {
  const reason = ctx.driver.unsupported[action];
  if (reason) return ctx.note(`${what} is left out: unsupported by ${ctx.driver.name}: ${reason}`);
  if (typeof ctx.session[method] !== 'function') throw new Error(`the ${ctx.driver.name} driver has no ${method} and gives no reason in its unsupported table`);
  await run();
}

/** Lines past Vim's default 'undoreload' (10,000): a reread that large drops undo unless the end raises it. */
const BIG_LINES = 12_000;

/**
 * Amp's editFile in buffer mode: through the editor's buffer as one change the user undoes, no review (a big file
 * too); the host's rule refuses unsaved changes, a read-only buffer and one whose file changed on disk, in the
 * editor's own name, and leaves the file.
 */
const AMP_BUFFER: Scenario = {
  name: 'Amp: editFile in buffer mode: written through the editor’s buffer byte for byte, one change the user undoes (past 10,000 lines too); a file not open too; unsaved changes, a read-only buffer, a file changed on disk refuse',
  needs: ['ampBuffer'],
  files: BUFFER_FILES,
  startOptions: { ampEditFile: 'buffer' },
  async run(ctx) {
    const { session } = ctx;
    const amp = await connectAmp(session);
    ctx.defer(() => amp.close());
    const a = ctx.file('amp-buffer-a.txt');
    const b = ctx.file('amp-buffer-b.txt');
    const same = (text: string | undefined) => (text ?? '').replace(/\n$/, '');
    await session.open(a);
    const answer = (await amp.request(AMP_REQUEST.editFile, { path: a, fullContent: 'alpha\nBETA ✓\ngamma' })).editFile;
    assert.deepEqual([answer.success, answer.appliedChanges], [true, true], answer.message);
    assert.deepEqual(fs.readFileSync(a), Buffer.from('alpha\nBETA ✓\ngamma'), 'the bytes exactly, no final newline added');
    assert.equal(await session.showsProposal(a), false, 'no review');
    assert.equal(same(await session.bufferText!(a)), 'alpha\nBETA ✓\ngamma', "the editor's buffer holds it");
    await session.undo!(a);
    assert.equal(same(await session.bufferText!(a)), 'alpha\nbeta', 'one change, undone');

    // A file the editor has not open, CRLF into an LF file: the bytes exact.
    const other = (await amp.request(AMP_REQUEST.editFile, { path: b, fullContent: 'changed\r\nline\r\n' })).editFile;
    assert.equal(other.success, true, other.message);
    assert.deepEqual(fs.readFileSync(b), Buffer.from('changed\r\nline\r\n'), 'CRLF kept');

    // The undo left a's buffer with unsaved changes: refused, the file and the user's buffer left.
    const refused = (await amp.request(AMP_REQUEST.editFile, { path: a, fullContent: 'no\n' })).editFile;
    assert.equal(refused.success, false);
    assert.match(refused.message, /unsaved changes/);
    assert.deepEqual(fs.readFileSync(a), Buffer.from('alpha\nBETA ✓\ngamma'), 'the file is left');
    assert.equal(same(await session.bufferText!(a)), 'alpha\nbeta', "the user's buffer is left");
    const kept = 'alpha\nBETA ✓\ngamma';

    // Another program writes the file after the editor read it (a later mtime): refused, their bytes left.
    await part(ctx, 'changedOnDisk', 'revert', 'a file changed on disk', async () => {
      await session.revert!(a);
      fs.writeFileSync(a, 'theirs\n');
      fs.utimesSync(a, new Date(), new Date(Date.now() + 60_000));
      const stale = (await amp.request(AMP_REQUEST.editFile, { path: a, fullContent: 'no\n' })).editFile;
      assert.equal(stale.success, false, stale.message);
      assert.match(stale.message, new RegExp(`amp-buffer-a\\.txt changed on disk since ${ctx.driver.displayName} read it`));
      assert.equal(fs.readFileSync(a, 'utf8'), 'theirs\n', 'the file is left');
      fs.writeFileSync(a, kept);
    });

    // A buffer the user made read-only: refused in the editor's name, the file left.
    await part(ctx, 'readOnlyBuffer', 'setReadOnly', 'a read-only buffer', async () => {
      await session.setReadOnly!(a);
      const before = fs.readFileSync(a);
      const readOnly = (await amp.request(AMP_REQUEST.editFile, { path: a, fullContent: 'no\n' })).editFile;
      assert.equal(readOnly.success, false, readOnly.message);
      assert.match(readOnly.message, new RegExp(`amp-buffer-a\\.txt is read-only in ${ctx.driver.displayName}`));
      assert.deepEqual(fs.readFileSync(a), before, 'the file is left');
    });

    // Past 'undoreload': the reread keeps undo at any size, so the user still undoes the write in one step.
    const big = ctx.file('amp-buffer-big.txt');
    fs.writeFileSync(big, 'line\n'.repeat(BIG_LINES));
    await session.open(big);
    const bigAnswer = (await amp.request(AMP_REQUEST.editFile, { path: big, fullContent: 'short\n' })).editFile;
    assert.equal(bigAnswer.success, true, bigAnswer.message);
    assert.equal(same(await session.bufferText!(big)), 'short', "the editor's buffer holds it");
    await session.undo!(big);
    assert.equal(same(await session.bufferText!(big)).split('\n').length, BIG_LINES, `all ${BIG_LINES} lines back with one undo`);
  },
};

/** Amp's own requests, through the same path checks as every tool: readFile reads inside the roots only; openURI opens a file:// in the end. */
const AMP_REQUESTS: Scenario = {
  name: 'Amp: readFile reads a workspace file and refuses one outside; openURI opens a workspace file in the end',
  needs: [],
  files: { 'amp-read.txt': 'read me ✓\n', 'amp-open.txt': 'open me\n' },
  async run(ctx) {
    const amp = await connectAmp(ctx.session);
    ctx.defer(() => amp.close());
    const read = ctx.file('amp-read.txt');
    assert.equal((await amp.request(AMP_REQUEST.readFile, { path: read })).readFile.content, 'read me ✓\n');
    const outside = (await amp.request(AMP_REQUEST.readFile, { path: '/etc/passwd' })).readFile;
    assert.equal(outside.success, false, 'a file outside the workspace is refused');
    const open = ctx.file('amp-open.txt');
    const cannotOpen = ctx.driver.unsupported.capabilityTools;
    if (cannotOpen) return ctx.note(`openURI is left out: ${cannotOpen}`);
    const opened = (await amp.request(AMP_REQUEST.openURI, { uri: pathToFileURL(open).href })).openURI;
    assert.equal(opened.success, true, opened.message);
    if (!ctx.session.cursor) return ctx.note(`where the end's cursor is, is not read: ${ctx.driver.unsupported.cursor ?? 'no reason given'}`);
    await waitFor(async () => (await ctx.session.cursor!()).path === open, 'the end to show the opened file', FACE_TIMEOUT_MS);
  },
};

/** Every face's scenarios, then Amp's own requests and its buffer mode. */
export const FACE_SCENARIOS: readonly Scenario[] = [...FACES.flatMap(scenariosOf), AMP_REQUESTS, AMP_BUFFER];
