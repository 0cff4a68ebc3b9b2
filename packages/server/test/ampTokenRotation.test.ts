/**
 * Amp's token rotation (faces/amp/tokenRotation.ts), as amp.nvim rotates its own every 4 h: here every 300 ms. The
 * lock file is rewritten with a new token; an upgrade with the old one is refused, with the new one accepted; a CLI
 * connected before keeps its connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { connectAmpClient, waitFor } from '@ide-companion/testkit';
import { startCompanion } from './helpers.js';

test("Amp's token rotates: the lock file rewritten (private), the old token refused and the new one taken; a connected CLI stays", async (t) => {
  const h = await startCompanion({ agents: ['gemini', 'amp'], faceSettings: { amp: { tokenRotationMs: 300 } } });
  t.after(() => h.cleanup());
  const file = h.companion.lockFilePath('amp')!;
  const read = () => JSON.parse(fs.readFileSync(file, 'utf8')) as { port: number; authToken: string; pid: number; workspaceFolders: string[] };
  const first = read();
  const before = await connectAmpClient(first);
  t.after(() => before.close());
  const second = await waitFor(() => {
    const now = read();
    return now.authToken !== first.authToken ? now : undefined;
  }, 'the lock file rewritten with a new token');
  assert.match(second.authToken, /^[0-9a-f]{64}$/);
  assert.deepEqual({ ...second, authToken: '' }, { ...first, authToken: '' }, 'only the token changed');
  assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
  // A new connection: the token the lock file holds now is taken, the one it held is not.
  const current = read();
  await assert.rejects(connectAmpClient(first), /401/);
  const after = await connectAmpClient(current);
  t.after(() => after.close());
  await waitFor(() => h.companion.sessionList.filter((s) => s.agent === 'amp').length === 2, 'both CLIs listed');
  // The CLI connected with the first token is still answered (its liveness check, as the CLI sends it).
  assert.equal(await before.isConnected(), true);
});
