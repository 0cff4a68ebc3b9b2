import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@ide-companion/testkit';
import type { ActiveFileContext } from '@ide-companion/protocol';
import { CompanionClient } from '../src/index.js';
import { startCompanion, writeFile } from './helpers.js';

// The architecture doc's IDEIntegrationManager / MCPIDEIntegration / MCPTransport are
// CompanionClient's members (docs/client.md maps each name); these tests walk the doc's flow.
test("the architecture doc's flow: start() does not wait for the companion, then active-file changes, getActiveFile, context, sendNotification", async () => {
  const h = await startCompanion();
  const client = new CompanionClient({ env: { ...h.env, GEMINI_CLI_IDE_PID: String(process.pid) }, cwd: h.workspace, tmpdir: h.tmp });
  try {
    client.start();
    assert.notEqual(client.status.status, 'connected');
    await waitFor(() => client.status.status === 'connected', 'the client to connect', 20_000);
    const changes: Array<ActiveFileContext | null> = [];
    client.onActiveFileChange((a) => changes.push(a));
    const file = writeFile(h.workspace, 'm.ts', 'm\n');
    h.companion.context.focus(file);
    await waitFor(() => changes.some((c) => c?.filePath === file), 'the active-file handler', 20_000);
    assert.deepEqual(await client.getActiveFile(), { filePath: file });
    assert.equal(client.context.get()?.workspaceState?.openFiles?.[0]?.path, file);
    // Our companion has no use for the doc's sendNotification; it must ignore it and stay connected.
    await client.sendNotification('ide/cliMessage', { message: 'hello from the CLI' });
    assert.deepEqual(await client.getActiveFile(), { filePath: file });
    assert.equal(client.status.status, 'connected');
  } finally {
    await client.stop();
    await h.cleanup();
  }
  assert.equal(client.status.status, 'disconnected');
});

test('connect() with no companion: false, a reason, and no exception', async () => {
  const h = await startCompanion();
  await h.companion.stop();
  const client = new CompanionClient({
    env: { ...h.env, GEMINI_CLI_IDE_PID: String(process.pid) },
    cwd: h.workspace,
    tmpdir: h.tmp,
    initTimeoutMs: 1000,
    reconnect: false,
  });
  try {
    assert.equal(await client.connect(), false);
    assert.equal(client.status.status, 'disconnected');
    assert.ok(client.status.details);
  } finally {
    await client.stop();
    await h.cleanup();
  }
});
