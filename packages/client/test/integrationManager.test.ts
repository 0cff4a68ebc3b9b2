import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '@ide-companion/testkit';
import type { ActiveFileContext } from '@ide-companion/protocol';
import { IDEIntegrationManager } from '../src/index.js';
import { startCompanion, writeFile } from './helpers.js';

test('IDEIntegrationManager.initialize does not wait for the companion and reports status when it connects', async () => {
  const h = await startCompanion();
  const manager = new IDEIntegrationManager();
  try {
    const env = { ...h.env, GEMINI_CLI_IDE_PID: String(process.pid) };
    await manager.initialize({ environment: env, cwd: h.workspace, tmpdir: h.tmp });
    await waitFor(() => manager.isActive(), 'the integration to become active', 20_000);
    assert.deepEqual(await manager.getStatus(), { active: true, integration: { type: 'mcp', available: true }, details: undefined });
    const integration = manager.getActiveIntegration()!;
    const changes: Array<ActiveFileContext | null> = [];
    integration.setActiveFileChangeHandler((a) => changes.push(a));
    const file = writeFile(h.workspace, 'm.ts', 'm\n');
    h.companion.context.focus(file);
    await waitFor(() => changes.some((c) => c?.filePath === file), 'the active-file handler', 20_000);
    assert.deepEqual(await integration.getActiveFileContext(), { filePath: file });
    assert.equal(manager.contextStore?.get()?.workspaceState?.openFiles?.[0]?.path, file);
    // Our companion has no use for the doc's sendNotification; it must ignore it and stay connected.
    await integration.sendNotification('hello from the CLI');
    assert.deepEqual(await integration.getActiveFileContext(), { filePath: file });
    assert.equal(manager.isActive(), true);
  } finally {
    await manager.cleanup();
    await h.cleanup();
  }
  assert.equal(manager.isActive(), false);
});

test('IDEIntegrationManager with no companion: inactive, with a reason, and no exception', async () => {
  const h = await startCompanion();
  await h.companion.stop();
  const manager = new IDEIntegrationManager();
  try {
    const ok = await manager.connectToMCP({ environment: { ...h.env, GEMINI_CLI_IDE_PID: String(process.pid) }, cwd: h.workspace, tmpdir: h.tmp, timeout: 1000 });
    assert.equal(ok, false);
    const status = await manager.getStatus();
    assert.equal(status.active, false);
    assert.ok(status.details);
    assert.equal(manager.getActiveIntegration(), null);
  } finally {
    await manager.cleanup();
    await h.cleanup();
  }
});
