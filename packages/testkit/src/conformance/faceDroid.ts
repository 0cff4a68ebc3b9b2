/**
 * Factory Droid's face: its lock file `$HOME/.factory/ide/<PORT>.lock` (the
 * port is the name), MCP over Streamable HTTP on that port of its own with no
 * token, as the CLI 0.225.2 connects (protocol/src/droid.ts); its diff is a
 * preview the CLI closes once its user chose in its own terminal.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DROID_IDE_DIR, DROID_MCP_PATH, DROID_NOTIFICATION, DROID_SEVERITY, DroidLockFileSchema, DROID_TOOLS } from '@ide-companion/protocol';
import { waitFor } from '../wait.js';
import type { EndSession } from './driver.js';
import { FACE_TIMEOUT_MS } from './faces.js';
import { heardIn, type FaceEntry } from './faceWire.js';

/** Droid's lock file for the end's workspace (checked as the CLI reads it: private, naming the workspace), and its port. */
export async function readDroidLock(session: EndSession): Promise<{ port: number; lock: { pid: number; ideName: string; workspaceFolders: string[] } }> {
  if (!session.factoryHome) throw new Error("the driver names no factoryHome (Droid's HOME) and gives no reason in its unsupported table");
  const dir = path.join(session.factoryHome, ...DROID_IDE_DIR);
  const found = await waitFor(
    () =>
      fs.existsSync(dir) &&
      fs
        .readdirSync(dir)
        .filter((n) => /^\d+\.lock$/.test(n))
        .map((n) => ({ n, lock: DroidLockFileSchema.safeParse(JSON.parse(fs.readFileSync(path.join(dir, n), 'utf8'))).data }))
        .find(({ lock }) => lock?.workspaceFolders.includes(session.workspace)),
    `Droid's lock file in ${dir}`,
    FACE_TIMEOUT_MS,
  );
  assert.equal((fs.statSync(path.join(dir, found.n)).mode & 0o777).toString(8), '600', "Droid's lock file is the user's alone");
  return { port: Number(path.basename(found.n, '.lock')), lock: found.lock! };
}

const severityName = (n: number) => Object.entries(DROID_SEVERITY).find(([, v]) => v === n)?.[0] ?? String(n);

export const droid: FaceEntry = {
  name: 'Factory Droid',
  needs: ['faces:droid'],
  lacks: {
    mention: 'Factory Droid has no "Send to agent" channel',
    decidedInEditor:
      "Factory Droid's diff is a preview: its user decides in Droid's terminal, which then closes it and writes the file (an accept or reject in the editor reaches no one)",
    wrongToken: "Factory Droid sends no token; another user's connection is refused by the same-user check, tested in server/test/droidFace.test.ts",
  },
  async connect(session) {
    const { port, lock } = await readDroidLock(session);
    const { content } = await session.discovery();
    assert.equal(lock.ideName, content.ideInfo.displayName, "the lock file names the end as Droid's /ide shows it");
    // As the CLI's client: localhost, its client info, no capabilities, no headers of its own.
    const client = new Client({ name: 'factory-cli-mcp-client', version: '1.0.0' }, { capabilities: {} });
    const notifications: Array<{ method: string; params: any }> = [];
    client.fallbackNotificationHandler = async (n) => {
      notifications.push({ method: n.method, params: n.params });
    };
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://localhost:${port}${DROID_MCP_PATH}`)));
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
      assert.notEqual(r.isError, true, `${name}: ${r.content[0]?.text}`);
      return JSON.parse(r.content[0]!.text);
    };
    return {
      heard: (file, selected) =>
        heardIn(
          notifications,
          (n) =>
            n.method === DROID_NOTIFICATION.activeFile && n.params.path === file && (selected === undefined || n.params.selection?.selectedText === selected),
          `activeFile for ${path.basename(file)}`,
        ).then(() => undefined),
      async diagnostics(file) {
        const answer = (await call(DROID_TOOLS.getIdeDiagnostics, { uri: pathToFileURL(file).href })) as {
          diagnostics: Array<{ range: { start: { line: number } }; severity: number }>;
        };
        return answer.diagnostics.map((d) => ({ line: d.range.start.line + 1, severity: severityName(d.severity) }));
      },
      openDiff(file, proposal) {
        // A preview: answered at once, before the user chose anything.
        const opened = call(DROID_TOOLS.openDiff, { filePath: file, newContent: proposal });
        opened.catch(() => undefined);
        const decided = () => Promise.reject(new Error("Factory Droid's diff is decided in its terminal (declared in lacks)"));
        return {
          accepted: decided,
          rejected: decided,
          async closeByAgent() {
            assert.deepEqual(await opened, { success: true });
            // Its user chose in Droid's terminal: the CLI closes the preview (and would write the file itself).
            assert.equal((await call(DROID_TOOLS.closeDiff, { filePath: file })).success, true);
          },
        };
      },
      close: () => client.close(),
    };
  },
};
