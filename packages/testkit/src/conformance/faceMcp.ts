/** Gemini CLI's and Qwen Code's faces: MCP over HTTP, the companion's own tools and notifications. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectRecordingClient, type RecordingClient } from '../mcpClient.js';
import { connectGemini, readLockFile, resultText } from './faces.js';
import { WRONG_TOKEN, heardIn, refusal, mcpDiagnostics, isActive, answerOf, type FaceEntry, type FaceLink } from './faceWire.js';
import {
  CloseDiffTool,
  ContextUpdateNotification,
  DiffAcceptedNotification,
  DiffRejectedNotification,
  GetDiagnosticsTool,
  OpenDiffTool,
} from '@ide-companion/protocol';

/** Qwen Code's and Gemini CLI's faces over a recording MCP client (Qwen's wire; Gemini's tools are the same). */
function mcpLink(c: RecordingClient): Omit<FaceLink, 'openDiff'> {
  return {
    heard: (file, selected) =>
      heardIn(
        c.notifications,
        (n) => n.method === ContextUpdateNotification.method && isActive(n.params, file, selected),
        `the context of ${path.basename(file)}`,
      ).then(() => undefined),
    diagnostics: async (file) => mcpDiagnostics(resultText((await c.client.callTool({ name: GetDiagnosticsTool.name, arguments: { path: file } })) as any)),
    close: () => c.close(),
  };
}

export const gemini: FaceEntry = {
  name: 'Gemini CLI',
  needs: [],
  lacks: { mention: 'Gemini CLI has no "Send to agent" channel (its prompt is typed in its own terminal)' },
  async connect(session) {
    const face = await connectGemini(session);
    return {
      heard: (file, selected) =>
        face.waitForContext((c) => isActive(c, file, selected) || undefined, `the context of ${path.basename(file)}`).then(() => undefined),
      diagnostics: async (file) => mcpDiagnostics(resultText(await face.client.callTool(GetDiagnosticsTool.name, { path: file }))),
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
            await face.client.callTool(CloseDiffTool.name, { filePath: file });
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

export const qwen: FaceEntry = {
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
        const opened = c.client.callTool({ name: OpenDiffTool.name, arguments: { filePath: file, newContent: proposal } }) as Promise<{ isError?: boolean }>;
        opened.catch(() => undefined);
        // What Qwen Code heard of this file since it asked (the answer comes as a notification).
        const answer = (what: string) =>
          heardIn(c.notifications, (n) => c.notifications.indexOf(n) >= from && n.params?.filePath === file && /^ide\/diff/.test(n.method), what);
        return {
          async accepted() {
            assert.notEqual((await opened).isError, true);
            const heard = await answer('ide/diffAccepted to Qwen Code');
            assert.equal(heard.method, DiffAcceptedNotification.method);
            fs.writeFileSync(file, heard.params.content); // Qwen Code's write, as the real CLI does
          },
          async rejected() {
            assert.notEqual((await opened).isError, true);
            assert.equal((await answer('ide/diffRejected to Qwen Code')).method, DiffRejectedNotification.method);
          },
          async closeByAgent() {
            assert.notEqual((await opened).isError, true);
            const closed = (await c.client.callTool({ name: CloseDiffTool.name, arguments: { filePath: file } })) as { isError?: boolean };
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
