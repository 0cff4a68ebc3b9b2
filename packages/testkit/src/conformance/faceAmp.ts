/** Amp's face: its lock file, its WebSocket with `?auth=`, its requests (editFile reviewed in the end). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AMP_NOTIFICATION, parseDiscoveryFileName, AMP_REQUEST } from '@ide-companion/protocol';
import { connectAmpClient, type AmpClient } from '../ampClient.js';
import { waitFor } from '../wait.js';
import type { EndSession } from './driver.js';
import { FACE_TIMEOUT_MS } from './faces.js';
import { WRONG_TOKEN, refusal, severityOf, answerOf, type FaceEntry } from './faceWire.js';

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

export const amp: FaceEntry = {
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
        const answer = (await a.request(AMP_REQUEST.getDiagnostics, { path: file })).getDiagnostics as {
          entries: Array<{ uri: string; diagnostics: Array<{ range: { startLine: number }; severity: string }> }>;
        };
        return answer.entries
          .filter((e) => e.uri === pathToFileURL(file).href)
          .flatMap((e) => e.diagnostics.map((d) => ({ line: d.range.startLine + 1, severity: severityOf(d.severity) })));
      },
      openDiff(file, proposal, _tab, edited) {
        const answer = a.request(AMP_REQUEST.editFile, { path: file, fullContent: proposal }).then((r) => r.editFile);
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
