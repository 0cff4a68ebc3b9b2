/**
 * Every agent's face of an end's companion, one entry an agent: how the agent
 * finds and connects to it, how it reads the context, hears "Send to agent",
 * reads diagnostics, asks a diff and hears the user's answer, each over the
 * agent's own wire (testkit's clients of it). The face scenarios
 * (faceScenarios.ts) are written once over this table, so a new agent is one
 * entry here; what an agent lacks is said with why.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AMP_NOTIFICATION, CLAUDE_DIFF_OUTCOME, CLAUDE_NOTIFICATION, CODEX_IPC, parseDiscoveryFileName } from '@ide-companion/protocol';
import { connectAmpClient, type AmpClient } from '../ampClient.js';
import { connectClaudeClient, type ClaudeTestClient } from '../claudeClient.js';
import { askCodexIdeContext } from '../codexClient.js';
import { connectCopilotClient } from '../copilotClient.js';
import { connectRecordingClient, type RecordingClient } from '../mcpClient.js';
import { sleep, waitFor } from '../wait.js';
import type { EndAction, EndSession } from './driver.js';
import { connectGemini, FACE_TIMEOUT_MS, readLockFile, resultText } from './faces.js';

/** What a face may lack. */
export type FaceAspect = 'mention' | 'diagnostics' | 'diffs' | 'wrongToken';

/** One diff the agent asked for, pending. */
export interface FaceDiff {
  /** After the user accepted: the agent's answer checked, and the agent's own write done where the agent writes the file. */
  accepted(): Promise<void>;
  /** After the user rejected: the agent's answer checked. */
  rejected(): Promise<void>;
  /** The agent closes its diff itself (or goes away, where it has no close); its answer checked. */
  closeByAgent(): Promise<void>;
}

/** A connected agent. */
export interface FaceLink {
  /** Waits until the agent has heard `file` as the active file, with `selected` as its selected text when given. */
  heard(file: string, selected?: string): Promise<void>;
  /** Waits until the agent has heard "Send to agent" of lines `startLine` to `endLine` (1-based) of `file`. */
  mentioned?(file: string, startLine: number, endLine: number): Promise<void>;
  /** The diagnostics of `file` as the agent reads them: 1-based line, severity in lower case. */
  diagnostics?(file: string): Promise<Array<{ line: number; severity: string }>>;
  /** Asks for `proposal` as the new text of `file`; `tab` names it where the agent names its diffs; `edited`: the user will edit it. */
  openDiff?(file: string, proposal: string, tab: string, edited?: boolean): FaceDiff;
  close(): Promise<void>;
}

export interface FaceEntry {
  /** The agent's name, as the suite prints it. */
  readonly name: string;
  /** The end's optional actions it needs to be reached at all. */
  readonly needs: readonly EndAction[];
  /** What the agent does not have, with why (each such scenario is reported skipped with it). */
  readonly lacks: Partial<Record<FaceAspect, string>>;
  connect(session: EndSession): Promise<FaceLink>;
  /** Dials with a wrong token as the agent would; resolves with the refusal's words (the scenario checks nothing connected). */
  wrongToken?(session: EndSession): Promise<string>;
}

const WRONG_TOKEN = 'not-the-token-0123456789';

/** `promise`, or a failure naming `what` after FACE_TIMEOUT_MS (an answer the end never gives must not hang the suite). */
export function answerOf<T>(promise: Promise<T>, what: string): Promise<T> {
  return waitFor(() => Promise.race([promise, sleep(100).then(() => undefined)]), what, FACE_TIMEOUT_MS) as Promise<T>;
}

/** Waits for a notification `find` picks among those recorded; the error lists the last few. */
function heardIn<T extends { method: string; params: any }>(list: T[], find: (n: T) => boolean, what: string): Promise<T> {
  return waitFor(() => list.find(find), what, FACE_TIMEOUT_MS).catch((err: Error) => {
    throw new Error(`${err.message}; last heard: ${JSON.stringify(list.slice(-3))}`);
  });
}

/** The refusal a dial gets: its error's words; a dial that connects fails the scenario. */
async function refusal(dial: () => Promise<{ close(): Promise<unknown> }>): Promise<string> {
  let connected: { close(): Promise<unknown> };
  try {
    connected = await dial();
  } catch (err) {
    return (err as Error).message;
  }
  await connected.close();
  throw new Error('a wrong token connected');
}

const severityOf = (s: unknown) => String(s).toLowerCase();

/** Gemini CLI's and Qwen Code's getDiagnostics (one MCP tool): `{diagnostics: [{range (1-based), severity}]}`. */
const mcpDiagnostics = (text: string) =>
  (JSON.parse(text) as { diagnostics: Array<{ range: { start: { line: number } }; severity: string }> }).diagnostics.map((d) => ({
    line: d.range.start.line,
    severity: severityOf(d.severity),
  }));

/** Claude Code's and Copilot CLI's: `[{uri, diagnostics: [{range (0-based), severity}]}]`. */
const claudeDiagnostics = (text: string, file: string) =>
  (JSON.parse(text) as Array<{ uri: string; diagnostics: Array<{ range: { start: { line: number } }; severity: string }> }>)
    .filter((e) => e.uri === pathToFileURL(file).href)
    .flatMap((e) => e.diagnostics.map((d) => ({ line: d.range.start.line + 1, severity: severityOf(d.severity) })));

const isActive = (context: any, file: string, selected?: string) => {
  const first = context?.workspaceState?.openFiles?.[0];
  return first?.path === file && first.isActive === true && (selected === undefined || first.selectedText === selected);
};

/** Qwen Code's and Gemini CLI's faces over a recording MCP client (Qwen's wire; Gemini's tools are the same). */
function mcpLink(c: RecordingClient): Omit<FaceLink, 'openDiff'> {
  return {
    heard: (file, selected) =>
      heardIn(c.notifications, (n) => n.method === 'ide/contextUpdate' && isActive(n.params, file, selected), `the context of ${path.basename(file)}`).then(
        () => undefined,
      ),
    diagnostics: async (file) => mcpDiagnostics(resultText((await c.client.callTool({ name: 'getDiagnostics', arguments: { path: file } })) as any)),
    close: () => c.close(),
  };
}

const gemini: FaceEntry = {
  name: 'Gemini CLI',
  needs: [],
  lacks: { mention: 'Gemini CLI has no "Send to agent" channel (its prompt is typed in its own terminal)' },
  async connect(session) {
    const face = await connectGemini(session);
    return {
      heard: (file, selected) =>
        face.waitForContext((c) => isActive(c, file, selected) || undefined, `the context of ${path.basename(file)}`).then(() => undefined),
      diagnostics: async (file) => mcpDiagnostics(resultText(await face.client.callTool('getDiagnostics', { path: file }))),
      openDiff(file, proposal) {
        const outcome = face.client.openDiff(file, proposal);
        outcome.catch(() => undefined);
        return {
          async accepted() {
            const answer = await answerOf(outcome, 'openDiff to answer after the accept');
            assert.equal(answer.status, 'accepted');
            // Gemini CLI writes what was accepted.
            if (answer.status === 'accepted') fs.writeFileSync(file, answer.content);
          },
          async rejected() {
            assert.deepEqual(await answerOf(outcome, 'openDiff to answer after the reject'), { status: 'rejected' });
          },
          async closeByAgent() {
            // The CLI decides in its own terminal, then closes the view (closeDiff), as its resolveDiffFromCli does.
            await face.client.callTool('closeDiff', { filePath: file });
          },
        };
      },
      close: () => face.close(),
    };
  },
  async wrongToken(session) {
    const { content } = await session.discovery();
    return refusal(() => connectRecordingClient({ port: content.port, token: WRONG_TOKEN }));
  },
};

const qwen: FaceEntry = {
  name: 'Qwen Code',
  needs: ['faces:qwen'],
  lacks: { mention: 'Qwen Code has no "Send to agent" channel' },
  async connect(session) {
    const { content } = await session.discovery();
    const lock = await readLockFile(session.qwenHome, content.port);
    const c = await connectRecordingClient({ port: content.port, token: lock.authToken });
    return {
      ...mcpLink(c),
      openDiff(file, proposal) {
        const from = c.notifications.length;
        const opened = c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: proposal } }) as Promise<{ isError?: boolean }>;
        opened.catch(() => undefined);
        // What Qwen Code heard of this file since it asked (the answer comes as a notification).
        const answer = (what: string) =>
          heardIn(c.notifications, (n) => c.notifications.indexOf(n) >= from && n.params?.filePath === file && /^ide\/diff/.test(n.method), what);
        return {
          async accepted() {
            assert.notEqual((await opened).isError, true);
            const heard = await answer('ide/diffAccepted to Qwen Code');
            assert.equal(heard.method, 'ide/diffAccepted');
            fs.writeFileSync(file, heard.params.content); // Qwen Code's write, as the real CLI does
          },
          async rejected() {
            assert.notEqual((await opened).isError, true);
            assert.equal((await answer('ide/diffRejected to Qwen Code')).method, 'ide/diffRejected');
          },
          async closeByAgent() {
            assert.notEqual((await opened).isError, true);
            const closed = (await c.client.callTool({ name: 'closeDiff', arguments: { filePath: file } })) as { isError?: boolean };
            assert.notEqual(closed.isError, true, resultText(closed as any));
          },
        };
      },
    };
  },
  async wrongToken(session) {
    const { content } = await session.discovery();
    return refusal(() => connectRecordingClient({ port: content.port, token: WRONG_TOKEN }));
  },
};

/** Claude Code's face, as Claude Code dials it or as opencode does (no subprotocol, its own name). */
function claudeLike(name: string, dial: { protocol?: null; clientName?: string }, lacks: FaceEntry['lacks']): FaceEntry {
  return {
    name,
    needs: ['faces:claude'],
    lacks,
    async connect(session) {
      const { content } = await session.discovery();
      const lock = await readLockFile(session.claudeConfigDir, content.port);
      const c = await connectClaudeClient({ port: content.port, token: lock.authToken, ...dial });
      return claudeLink(c, lacks.diffs === undefined);
    },
    async wrongToken(session) {
      const { content } = await session.discovery();
      return refusal(() => connectClaudeClient({ port: content.port, token: WRONG_TOKEN, ...dial }));
    },
  };
}

function claudeLink(c: ClaudeTestClient, tools: boolean): FaceLink {
  const texts = (answer: { content: Array<{ text: string }> }) => answer.content.map((b) => b.text);
  return {
    heard: (file, selected) =>
      heardIn(
        c.notifications,
        (n) => n.method === CLAUDE_NOTIFICATION.selectionChanged && n.params.filePath === file && (selected === undefined || n.params.text === selected),
        `selection_changed for ${path.basename(file)}`,
      ).then(() => undefined),
    // Both lines: opencode drops a mention without them.
    mentioned: (file, startLine, endLine) =>
      heardIn(
        c.notifications,
        (n) =>
          n.method === CLAUDE_NOTIFICATION.atMentioned &&
          n.params.filePath === file &&
          n.params.lineStart === startLine - 1 &&
          n.params.lineEnd === endLine - 1,
        'at_mentioned with the lines',
      ).then(() => undefined),
    ...(tools && {
      diagnostics: async (file: string) => claudeDiagnostics(resultText(await c.callTool('getDiagnostics', { uri: pathToFileURL(file).href })), file),
      openDiff(file: string, proposal: string, tab: string): FaceDiff {
        const answer = c.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: proposal, tab_name: tab });
        answer.catch(() => undefined);
        return {
          async accepted() {
            const [outcome, text] = texts(await answerOf(answer, 'openDiff to answer after the accept'));
            assert.equal(outcome, CLAUDE_DIFF_OUTCOME.saved);
            fs.writeFileSync(file, text!); // Claude Code's write of the text it was given
          },
          async rejected() {
            assert.deepEqual(texts(await answerOf(answer, 'openDiff to answer after the reject')), [CLAUDE_DIFF_OUTCOME.rejected, tab]);
          },
          async closeByAgent() {
            assert.deepEqual(texts(await c.callTool('close_tab', { tab_name: tab })), [CLAUDE_DIFF_OUTCOME.closed]);
            assert.equal(texts(await answerOf(answer, 'openDiff to answer after close_tab'))[0], CLAUDE_DIFF_OUTCOME.closed);
          },
        };
      },
    }),
    close: () => c.close(),
  };
}

const copilot: FaceEntry = {
  name: 'GitHub Copilot CLI',
  needs: [],
  lacks: {},
  async connect(session) {
    const { content } = await session.discovery();
    const lock = (await readLockFile(session.copilotHome, content.port)) as unknown as { socketPath: string; headers: Record<string, string> };
    const c = await connectCopilotClient(lock);
    const call = async (name: string, args: Record<string, unknown>) => resultText((await c.client.callTool({ name, arguments: args })) as any);
    return {
      heard: (file, selected) =>
        heardIn(
          c.notifications,
          (n) => n.method === 'selection_changed' && n.params.filePath === file && (selected === undefined || n.params.text === selected),
          `selection_changed for ${path.basename(file)}`,
        ).then(() => undefined),
      mentioned: (file, startLine, endLine) =>
        heardIn(
          c.notifications,
          (n) =>
            n.method === 'add_selection' &&
            n.params.filePath === file &&
            n.params.selection.start.line === startLine - 1 &&
            n.params.selection.end.line === endLine - 1,
          'add_selection with the lines',
        ).then(() => undefined),
      diagnostics: async (file) => claudeDiagnostics(await call('get_diagnostics', { uri: pathToFileURL(file).href }), file),
      openDiff(file, proposal, tab) {
        const answer = call('open_diff', { original_file_path: file, new_file_contents: proposal, tab_name: tab }).then((t) => JSON.parse(t));
        answer.catch(() => undefined);
        return {
          async accepted() {
            assert.equal((await answerOf(answer, 'open_diff to answer after the accept')).result, 'SAVED');
            // As Copilot CLI does on SAVED: it writes its own proposal (the face then puts the user's edits in its place).
            fs.writeFileSync(file, proposal);
          },
          async rejected() {
            assert.equal((await answerOf(answer, 'open_diff to answer after the reject')).result, 'REJECTED');
          },
          async closeByAgent() {
            const closed = JSON.parse(await call('close_diff', { tab_name: tab }));
            assert.deepEqual([closed.success, closed.already_closed], [true, false], JSON.stringify(closed));
            assert.equal((await answerOf(answer, 'open_diff to answer after close_diff')).result, 'REJECTED');
          },
        };
      },
      // As the CLI quits: its session ended (DELETE), then the connection closed.
      close: async () => {
        await (c.client.transport as StreamableHTTPClientTransport | undefined)?.terminateSession().catch(() => undefined);
        await c.close();
      },
    };
  },
  async wrongToken(session) {
    const { content } = await session.discovery();
    const lock = (await readLockFile(session.copilotHome, content.port)) as unknown as { socketPath: string };
    return refusal(() => connectCopilotClient({ socketPath: lock.socketPath, headers: { Authorization: `Bearer ${WRONG_TOKEN}` } }));
  },
};

/** Amp's lock file (`AMP_DATA_HOME/amp/ide/PORT.json`) for the end's port, once written. */
export async function readAmpLock(session: EndSession): Promise<{ port: number; authToken: string; pid: number; workspaceFolders: string[] }> {
  const { content } = await session.discovery();
  const file = path.join(session.ampDataHome, 'amp', 'ide', `${content.port}.json`);
  await waitFor(() => fs.existsSync(file), `Amp's lock file ${file}`, FACE_TIMEOUT_MS);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

/** Connects as Amp does, from its lock file (checked first as the CLI reads it: private, naming the end's pid and workspace). */
export async function connectAmp(session: EndSession): Promise<AmpClient> {
  const lock = await readAmpLock(session);
  const { path: discovery } = await session.discovery();
  const file = path.join(session.ampDataHome, 'amp', 'ide', `${lock.port}.json`);
  assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600', "Amp's lock file is the user's alone");
  assert.ok(lock.workspaceFolders.includes(session.workspace), `the workspace in ${JSON.stringify(lock.workspaceFolders)}`);
  // The IDE's pid, which Amp checks is alive: the one the discovery file names.
  assert.equal(lock.pid, parseDiscoveryFileName(path.basename(discovery))?.pid, "the end's pid");
  return connectAmpClient(lock);
}

const amp: FaceEntry = {
  name: 'Amp',
  needs: [],
  lacks: {},
  async connect(session) {
    const a = await connectAmp(session);
    const heard = (what: string, find: (n: { name: string; params: any }) => boolean) =>
      waitFor(() => a.notifications.find(find), what, FACE_TIMEOUT_MS).catch((err: Error) => {
        throw new Error(`${err.message}; last heard: ${JSON.stringify(a.notifications.slice(-3))}`);
      });
    return {
      heard: (file, selected) =>
        heard(
          `selectionDidChange for ${path.basename(file)}`,
          (n) =>
            n.name === AMP_NOTIFICATION.selectionDidChange &&
            n.params.uri === pathToFileURL(file).href &&
            (selected === undefined || n.params.selections[0]?.content === selected),
        ).then(() => undefined),
      mentioned: (file, startLine, endLine) =>
        heard(
          'appendToPrompt with the lines',
          (n) => n.name === AMP_NOTIFICATION.appendToPrompt && n.params.message === `@${path.basename(file)}#L${startLine}-${endLine}`,
        ).then(() => undefined),
      async diagnostics(file) {
        const answer = (await a.request('getDiagnostics', { path: file })).getDiagnostics as {
          entries: Array<{ uri: string; diagnostics: Array<{ range: { startLine: number }; severity: string }> }>;
        };
        return answer.entries
          .filter((e) => e.uri === pathToFileURL(file).href)
          .flatMap((e) => e.diagnostics.map((d) => ({ line: d.range.startLine + 1, severity: severityOf(d.severity) })));
      },
      openDiff(file, proposal, _tab, edited) {
        const answer = a.request('editFile', { path: file, fullContent: proposal }).then((r) => r.editFile);
        answer.catch(() => undefined);
        return {
          async accepted() {
            const r = await answerOf(answer, 'editFile to answer after the accept');
            // Amp's face writes the user's text itself, and says the user edited it.
            assert.deepEqual([r.success, r.appliedChanges], [true, true], r.message);
            if (edited) assert.match(r.message, /edited and accepted/);
          },
          async rejected() {
            const r = await answerOf(answer, 'editFile to answer after the reject');
            assert.deepEqual([r.success, r.appliedChanges], [false, false], r.message);
          },
          async closeByAgent() {
            // Amp has no request that closes a diff: it going away (its CLI quit) closes what it asked.
            await a.close();
          },
        };
      },
      close: () => a.close(),
    };
  },
  async wrongToken(session) {
    const lock = await readAmpLock(session);
    return refusal(() => connectAmpClient({ port: lock.port, authToken: WRONG_TOKEN }));
  },
};

const codex: FaceEntry = {
  name: 'Codex CLI',
  needs: [],
  lacks: {
    mention: 'Codex CLI has no "Send to agent" channel',
    diagnostics: 'Codex CLI asks the IDE for its context alone (ide-context)',
    diffs: 'Codex CLI has no IDE diff channel: it writes its files itself',
    wrongToken: "Codex CLI's socket takes no token: its folder (0700) and socket (0600) keep others out (server/test/codexFace.test.ts)",
  },
  async connect(session) {
    const socket = path.join(session.codexHome, CODEX_IPC.dir, CODEX_IPC.socket);
    await waitFor(() => fs.existsSync(socket), `the end's companion to own Codex's socket ${socket}`, FACE_TIMEOUT_MS);
    return {
      async heard(file, selected) {
        // Codex asks on each prompt: asked again until the answer holds the file.
        let last: unknown;
        await waitFor(
          async () => {
            last = await askCodexIdeContext(socket, session.workspace);
            const active = (last as any)?.result?.ideContext?.activeFile;
            return active?.fsPath === file && (selected === undefined || active.activeSelectionContent === selected);
          },
          `Codex's ide-context to name ${path.basename(file)}`,
          FACE_TIMEOUT_MS,
        ).catch((err: Error) => {
          throw new Error(`${err.message}; last answer: ${JSON.stringify(last)}`);
        });
      },
      close: async () => undefined,
    };
  },
};

/** Every agent's face: one entry an agent (opencode is Claude Code's face, dialed as opencode dials it). */
export const FACES: readonly FaceEntry[] = [
  gemini,
  qwen,
  claudeLike('Claude Code', {}, {}),
  claudeLike(
    'opencode',
    { protocol: null, clientName: 'opencode' },
    {
      diagnostics: 'opencode calls no tool of the IDE: it only listens',
      diffs: 'opencode calls no tool of the IDE: it only listens (its own edits are its)',
    },
  ),
  copilot,
  codex,
  amp,
];
