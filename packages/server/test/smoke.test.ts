import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { waitFor } from '@ide-companion/testkit';
import { connectClient, RecordingDiffView, startCompanion } from './helpers.js';

test('a real MCP client connects, lists the tools and receives context', async () => {
  const view = new RecordingDiffView();
  const h = await startCompanion({ diffView: view });
  try {
    const file = path.join(h.workspace, 'a.ts');
    fs.writeFileSync(file, 'x');
    h.companion.context.focus(file, { cursor: { line: 2, character: 3 } });
    const c = await connectClient(h.companion);
    const tools = await c.client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name).sort(), ['closeDiff', 'getActiveFile', 'openDiff']);
    const update = await waitFor(() => c.notifications.find((n) => n.method === 'ide/contextUpdate'), 'context');
    assert.equal(update.params.workspaceState.openFiles[0].path, file);
    await c.close();
  } finally {
    await h.cleanup();
  }
});
