/** Claude Code's face (opencode dials it too), Copilot CLI's and Codex CLI's: each agent's own socket and vocabulary. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLAUDE_DIFF_OUTCOME, CLAUDE_NOTIFICATION, CODEX_IPC, CLAUDE_TOOLS, COPILOT_TOOLS, COPILOT_NOTIFICATION } from '@ide-companion/protocol';
import { connectClaudeClient, type ClaudeTestClient } from '../claudeClient.js';
import { askCodexIdeContext } from '../codexClient.js';
import { connectCopilotClient } from '../copilotClient.js';
import { waitFor } from '../wait.js';
import { FACE_TIMEOUT_MS, readLockFile, resultText } from './faces.js';
import {
  WRONG_TOKEN,
  refusal,
  selectionChanged,
  linesMentioned,
  claudeDiagnostics,
  answerOf,
  type FaceDiff,
  type FaceEntry,
  type FaceLink,
} from './faceWire.js';

/** Claude Code's face, as Claude Code dials it or as opencode does (no subprotocol, its own name). */
export function claudeLike(name: string, dial: { protocol?: null; clientName?: string }, lacks: FaceEntry['lacks']): FaceEntry {
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
    heard: (file, selected) => selectionChanged(c.notifications, file, selected),
    // Both lines: opencode drops a mention without them.
    mentioned: (file, startLine, endLine) =>
      linesMentioned(c.notifications, CLAUDE_NOTIFICATION.atMentioned, file, [startLine, endLine], (p) => [p.lineStart, p.lineEnd]),
    ...(tools && {
      diagnostics: async (file: string) =>
        claudeDiagnostics(resultText(await c.callTool(CLAUDE_TOOLS.getDiagnostics, { uri: pathToFileURL(file).href })), file),
      openDiff(file: string, proposal: string, tab: string): FaceDiff {
        const answer = c.callTool(CLAUDE_TOOLS.openDiff, { old_file_path: file, new_file_path: file, new_file_contents: proposal, tab_name: tab });
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
            assert.deepEqual(texts(await c.callTool(CLAUDE_TOOLS.closeTab, { tab_name: tab })), [CLAUDE_DIFF_OUTCOME.closed]);
            assert.equal(texts(await answerOf(answer, 'openDiff to answer after close_tab'))[0], CLAUDE_DIFF_OUTCOME.closed);
          },
        };
      },
    }),
    close: () => c.close(),
  };
}

export const copilot: FaceEntry = {
  name: 'GitHub Copilot CLI',
  needs: [],
  lacks: {},
  async connect(session) {
    const { content } = await session.discovery();
    const lock = (await readLockFile(session.copilotHome, content.port)) as unknown as { socketPath: string; headers: Record<string, string> };
    const c = await connectCopilotClient(lock);
    const call = async (name: string, args: Record<string, unknown>) => resultText((await c.client.callTool({ name, arguments: args })) as any);
    return {
      // Claude Code's selection_changed, Copilot CLI's too.
      heard: (file, selected) => selectionChanged(c.notifications, file, selected),
      mentioned: (file, startLine, endLine) =>
        linesMentioned(c.notifications, COPILOT_NOTIFICATION.addSelection, file, [startLine, endLine], (p) => [p.selection.start.line, p.selection.end.line]),
      diagnostics: async (file) => claudeDiagnostics(await call(COPILOT_TOOLS.getDiagnostics, { uri: pathToFileURL(file).href }), file),
      openDiff(file, proposal, tab) {
        const answer = call(COPILOT_TOOLS.openDiff, { original_file_path: file, new_file_contents: proposal, tab_name: tab }).then((t) => JSON.parse(t));
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
            const closed = JSON.parse(await call(COPILOT_TOOLS.closeDiff, { tab_name: tab }));
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

export const codex: FaceEntry = {
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
