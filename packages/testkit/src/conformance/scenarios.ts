/**
 * The scenarios every end must pass, written once: context and selection
 * (backward too), diffs shown, edited, accepted and rejected, each agent's
 * face, every optional argument, and the fault cells of docs/reliability.md
 * that hold the same for every end. A scenario talks to the end only through
 * its driver (driver.ts) and to the companion only as an agent would
 * (faces.ts); it never names an end.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectRecordingClient } from '../mcpClient.js';
import { OPTIONAL_ARGUMENT_FILES, runOptionalArgumentRows } from '../optionalArguments.js';
import { sleep, waitFor } from '../wait.js';
import type { EndAction, EndDriver, EndSession, Position, StartOptions } from './driver.js';
import { connectClaude, FACE_TIMEOUT_MS, resultText, type GeminiFace } from './faces.js';
import { CLAUDE_NOTIFICATION, OpenDiffTool } from '@ide-companion/protocol';

export interface ScenarioContext {
  driver: EndDriver;
  session: EndSession;
  /** A workspace file's absolute path. */
  file(name: string): string;
  /** Gemini's client library, connected to the end (closed after the scenario). */
  gemini(): Promise<GeminiFace>;
  /** Runs `fn` when the scenario ends, failed or not. */
  defer(fn: () => Promise<unknown> | unknown): void;
  /** Says something in the test's report (a step the end cannot take, and why). */
  note(text: string): void;
}

export interface Scenario {
  name: string;
  /** The optional actions it needs: where the driver lacks one, the scenario is reported unsupported with the driver's reason. */
  needs: readonly EndAction[];
  /** Files it expects in the workspace (names unique across scenarios: one workspace serves them all). */
  files: Record<string, string>;
  run(ctx: ScenarioContext): Promise<void>;
  /** Why it cannot run on this machine (a program missing, as external.ts's skipUnless says), or false. */
  requires?: () => string | false;
  /** Why no end can run it (the agent lacks what it needs): reported skipped with it. */
  unsupported?: string;
  /** The agent and what of it the scenario checks, where an end may do it for some agents only (`unsupportedForFace`). */
  face?: { name: string; aspect: string };
  /** Run in a session of its own, started with these options (closed after it). */
  startOptions?: StartOptions;
  timeoutMs?: number;
}

const activeFile = (file: string) => (context: any) => {
  const first = context.workspaceState?.openFiles?.[0];
  return first?.path === file && first.isActive ? first : undefined;
};

/** Lines and characters of `text` up to `upTo` (exclusive), 0-based as Claude Code counts. */
const zeroBased = (p: Position) => ({ line: p.line - 1, character: p.character - 1 });

/** A proposal as shown: line endings and a final newline are the editor's to render. */
const shownForm = (text: string) => text.replace(/\r\n/g, '\n').replace(/\n$/, '');

const SELECTION_FILE = 'alpha\nbravo charlie\ndelta echo\nfoxtrot\n';

/** Opens a diff through Gemini's client library and waits for the end to show it; returns the pending outcome. */
async function proposeThroughGemini(ctx: ScenarioContext, name: string, proposal: string) {
  const gemini = await ctx.gemini();
  const file = ctx.file(name);
  const outcome = gemini.client.openDiff(file, proposal);
  outcome.catch(() => undefined);
  const shown = await ctx.session.shownProposal(file);
  assert.equal(shownForm(shown), shownForm(proposal), 'the end shows the proposal as proposed');
  return { file, outcome };
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'context: the file the user opens is the active file Gemini CLI sees',
    needs: [],
    files: { 'ctx-a.txt': 'first\n', 'ctx-b.txt': 'second\n' },
    async run(ctx) {
      const gemini = await ctx.gemini();
      for (const name of ['ctx-a.txt', 'ctx-b.txt']) {
        await ctx.session.open(ctx.file(name));
        await gemini.waitForContext(activeFile(ctx.file(name)), `${name} active`);
      }
      // Newest first: the one opened before follows.
      const files = await gemini.waitForContext((c) => c.workspaceState?.openFiles, 'open files');
      assert.ok(files.findIndex((f) => f.path === ctx.file('ctx-a.txt')) > 0, `ctx-a.txt listed after ctx-b.txt: ${JSON.stringify(files.map((f) => f.path))}`);
    },
  },
  {
    name: 'context: the cursor the user moves reaches Gemini CLI, counted in characters',
    needs: ['moveCursor'],
    files: { 'cursor.txt': 'alpha\nthrée x\n' },
    async run(ctx) {
      const gemini = await ctx.gemini();
      const file = ctx.file('cursor.txt');
      await ctx.session.open(file);
      await ctx.session.moveCursor!({ line: 2, character: 6 });
      await gemini.waitForContext((c) => {
        const f = activeFile(file)(c);
        return f?.cursor?.line === 2 && f.cursor.character === 6;
      }, 'the cursor at line 2, character 6 (after the é)');
    },
  },
  {
    name: 'selection made forward: Gemini CLI gets its text, Claude Code its lines',
    needs: ['select', 'faces:claude'],
    files: { 'sel-forward.txt': SELECTION_FILE },
    async run(ctx) {
      const gemini = await ctx.gemini();
      const claude = await connectClaude(ctx.session);
      ctx.defer(() => claude.close());
      const file = ctx.file('sel-forward.txt');
      await ctx.session.open(file);
      await ctx.session.select!({ start: { line: 2, character: 1 }, end: { line: 3, character: 3 }, backward: false });
      await gemini.waitForContext((c) => activeFile(file)(c)?.selectedText === 'bravo charlie\nde', 'the selected text');
      const heard = await waitFor(
        () => claude.notifications.findLast((n) => n.method === CLAUDE_NOTIFICATION.selectionChanged && n.params.text === 'bravo charlie\nde')?.params,
        'selection_changed with the text',
        FACE_TIMEOUT_MS,
      );
      assert.equal(heard.filePath, file);
      // Where a forward selection started, Claude Code can only be told from the text: its lines, not its columns.
      assert.deepEqual([heard.selection.start.line, heard.selection.end.line, heard.selection.isEmpty], [1, 2, false]);
    },
  },
  {
    name: 'selection made backward (upward, and leftward in a line): the same text, and Claude Code its real range',
    needs: ['select', 'faces:claude'],
    files: { 'sel-backward.txt': SELECTION_FILE },
    async run(ctx) {
      const gemini = await ctx.gemini();
      const claude = await connectClaude(ctx.session);
      ctx.defer(() => claude.close());
      const file = ctx.file('sel-backward.txt');
      await ctx.session.open(file);
      const cases = [
        { start: { line: 2, character: 3 }, end: { line: 3, character: 4 }, text: 'avo charlie\ndel' },
        { start: { line: 4, character: 5 }, end: { line: 4, character: 8 }, text: 'rot' },
      ];
      for (const c of cases) {
        await ctx.session.select!({ start: c.start, end: c.end, backward: true });
        await gemini.waitForContext((x) => activeFile(file)(x)?.selectedText === c.text, `the selected text ${JSON.stringify(c.text)}`);
        const heard = await waitFor(
          () => claude.notifications.findLast((n) => n.method === CLAUDE_NOTIFICATION.selectionChanged && n.params.text === c.text)?.params,
          `selection_changed with ${JSON.stringify(c.text)}`,
          FACE_TIMEOUT_MS,
        );
        assert.deepEqual(heard.selection, { start: zeroBased(c.start), end: zeroBased(c.end), isEmpty: false });
      }
    },
  },
  {
    name: 'diff shown and accepted unedited: Gemini CLI gets the proposal byte for byte; the file is the CLI’s to write',
    needs: [],
    files: { 'diff-accept.txt': 'old line\n' },
    async run(ctx) {
      const proposal = 'new line ✓\nsecond line 😀\n';
      const { file, outcome } = await proposeThroughGemini(ctx, 'diff-accept.txt', proposal);
      await ctx.session.accept(file);
      assert.deepEqual(await outcome, { status: 'accepted', content: proposal });
      assert.equal(fs.readFileSync(file, 'utf8'), 'old line\n', 'the companion writes nothing');
      await waitFor(async () => !(await ctx.session.showsProposal(file)), 'the proposal to close', FACE_TIMEOUT_MS);
      fs.writeFileSync(file, proposal); // the CLI's write: nothing is left to keep when it goes
    },
  },
  {
    name: 'new files proposed and accepted unedited come back byte for byte: line endings, final newline, empty, lone CR, tabs and emoji',
    needs: [],
    files: {},
    async run(ctx) {
      const gemini = await ctx.gemini();
      const cases = ['', '\n', 'a', 'a\n', 'x\n\n', 'one\r\ntwo\r\n', 'one\r\ntwo', 'mixed\r\nlf\n', 'lone\rcr\n', 'tab\tünï 😀\n', '\n\nlast'];
      for (const [i, proposal] of cases.entries()) {
        const file = ctx.file(`bytes-${i}.txt`);
        const outcome = gemini.client.openDiff(file, proposal);
        await ctx.session.shownProposal(file);
        await ctx.session.accept(file);
        assert.deepEqual(await outcome, { status: 'accepted', content: proposal }, `case ${JSON.stringify(proposal)}`);
        assert.equal(fs.existsSync(file), false, 'the companion writes nothing');
        // The CLI writes what was accepted, as Gemini CLI does: no accept is left unwritten when it goes,
        // so no end brings one back as a kept proposal into the next scenario's windows.
        fs.writeFileSync(file, proposal);
      }
    },
  },
  {
    name: 'every optional argument left out (optionalArguments.ts): each capability tool answers its documented default',
    needs: ['capabilityTools', 'cursor'],
    files: OPTIONAL_ARGUMENT_FILES,
    async run(ctx) {
      const { content } = await ctx.session.discovery();
      const c = await connectRecordingClient({ port: content.port, token: content.authToken });
      ctx.defer(() => c.close());
      const failures = await runOptionalArgumentRows(
        c,
        {
          workspace: ctx.session.workspace,
          cursor: () => ctx.session.cursor!(),
          endOfLine: ctx.driver.endOfLine,
          ...(ctx.session.setWarning && { setWarning: (f: string) => ctx.session.setWarning!(f) }),
        },
        FACE_TIMEOUT_MS,
      );
      assert.deepEqual(failures, []);
    },
  },
  {
    name: 'fault: the CLI killed with a proposal open: the file untouched, the end still answers, the next CLI connects within 2 s',
    needs: [],
    files: { 'fault-cli.txt': 'before the CLI died\n' },
    async run(ctx) {
      const { content } = await ctx.session.discovery();
      const doomed = await connectRecordingClient({ port: content.port, token: content.authToken });
      const file = ctx.file('fault-cli.txt');
      await doomed.client.callTool({ name: OpenDiffTool.name, arguments: { filePath: file, newContent: 'never written\n' } });
      await ctx.session.shownProposal(file);
      // A killed CLI sends nothing more: its connections just close.
      await doomed.transport.close();
      await sleep(2500);
      await ctx.session.ping();
      assert.equal(fs.readFileSync(file, 'utf8'), 'before the CLI died\n');
      const started = Date.now();
      const next = await ctx.gemini();
      assert.ok(Date.now() - started < 2000, `the next CLI connected in ${Date.now() - started} ms`);
      assert.equal(next.client.status.status, 'connected');
    },
  },
  {
    name: 'fault: the companion host killed (SIGKILL) with a proposal open: its discovery file goes within 2 s, the file untouched, and a host serves again',
    needs: ['killHost'],
    files: { 'fault-host.txt': 'before the host died\n' },
    async run(ctx) {
      const { path: discoveryPath, content } = await ctx.session.discovery();
      const c = await connectRecordingClient({ port: content.port, token: content.authToken });
      const file = ctx.file('fault-host.txt');
      await c.client.callTool({ name: OpenDiffTool.name, arguments: { filePath: file, newContent: 'never written\n' } });
      await ctx.session.shownProposal(file);
      await c.transport.close().catch(() => undefined);
      await ctx.session.killHost!();
      await waitFor(() => !fs.existsSync(discoveryPath), `${path.basename(discoveryPath)} to go`, 2000);
      assert.equal(fs.readFileSync(file, 'utf8'), 'before the host died\n');
      if (ctx.driver.restartsHost) {
        const again = await ctx.session.discovery();
        assert.notEqual(again.path, discoveryPath, 'a new host, a new discovery file');
        const gemini = await ctx.gemini();
        assert.equal(gemini.client.status.status, 'connected');
        await ctx.session.ping();
      }
    },
  },
];

/** The text a tool result carries (re-exported for the end tests). */
export { resultText };
