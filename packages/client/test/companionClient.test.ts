import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor } from '@ide-companion/testkit';
import { CompanionClient, buildStatus, type ClientState } from '../src/index.js';
import { startCompanion, writeFile } from './helpers.js';

function clientFor(h: Awaited<ReturnType<typeof startCompanion>>, extra: ConstructorParameters<typeof CompanionClient>[0] = {}) {
  return new CompanionClient({ cwd: h.workspace, env: h.env, tmpdir: h.tmp, ideProcess: h.ideProcess, wellKnownPorts: false, ...extra });
}

// Regression: the companion pushes context the moment the GET stream opens, which is
// before tools/list answers; the first version dropped notifications that arrived while
// open() was still running, so a client never saw the initial context. The connection
// now queues them and delivers them once the caller holds the connection.
test('connects to a real companion and receives its context, normalised', async () => {
  const h = await startCompanion();
  const client = clientFor(h, { reconnect: false });
  try {
    const a = writeFile(h.workspace, 'a.ts', 'a\n');
    h.companion.context.focus(a);
    h.companion.context.setCursor(a, { line: 1, character: 2 });
    assert.equal(await client.connect(), true);
    const ctx = await waitFor(() => client.context.get()?.workspaceState?.openFiles?.[0]?.cursor && client.context.get(), 'context with cursor', 20_000);
    assert.equal(ctx.workspaceState!.openFiles![0]!.path, a);
    assert.equal(ctx.workspaceState!.openFiles![0]!.isActive, true);
    assert.deepEqual(client.status, { status: 'connected' });
    assert.ok(client.isDiffingEnabled());
    const status = buildStatus(client);
    assert.equal(status.headline, '🟢 Connected to Test IDE');
    assert.equal(status.companion?.file, h.companion.discoveryFilePath);
    assert.equal(JSON.stringify(status).includes(h.companion.authToken), false, 'status never carries the token');
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('getActiveFile parses the companion tool answer', async () => {
  const h = await startCompanion();
  const client = clientFor(h, { reconnect: false });
  try {
    assert.ok(await client.connect());
    assert.equal(await client.getActiveFile(), null);
    const b = writeFile(h.workspace, 'b.ts', 'line1\nline2\n');
    h.companion.context.focus(b);
    h.companion.context.setCursor(b, { line: 2, character: 3 });
    const active = await waitFor(async () => (await client.getActiveFile())?.cursor && (await client.getActiveFile()), 'active file');
    assert.deepEqual(active, { filePath: b, cursor: { line: 2, character: 3 } });
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('openDiff resolves accepted with the user-edited content', async () => {
  const h = await startCompanion();
  const client = clientFor(h, { reconnect: false });
  try {
    assert.ok(await client.connect());
    const file = path.join(h.workspace, 'x.txt');
    const outcome = client.openDiff(file, 'proposal\n');
    const shown = await waitFor(() => h.view.shown[0], 'diff shown');
    assert.equal(shown.newContent, 'proposal\n');
    h.companion.diffs.accept(shown.id, 'edited\n');
    assert.deepEqual(await outcome, { status: 'accepted', content: 'edited\n' });
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('openDiff resolves rejected when the user rejects', async () => {
  const h = await startCompanion();
  const client = clientFor(h, { reconnect: false });
  try {
    assert.ok(await client.connect());
    const outcome = client.openDiff(path.join(h.workspace, 'y.txt'), 'p');
    const shown = await waitFor(() => h.view.shown[0], 'diff shown');
    h.companion.diffs.reject(shown.id);
    assert.deepEqual(await outcome, { status: 'rejected' });
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('diffs on different files are open at once and settle independently', async () => {
  const h = await startCompanion();
  const client = clientFor(h, { reconnect: false });
  try {
    assert.ok(await client.connect());
    const one = client.openDiff(path.join(h.workspace, 'one.txt'), '1');
    const two = client.openDiff(path.join(h.workspace, 'two.txt'), '2');
    await waitFor(() => h.view.shown.length === 2, 'both diffs shown');
    assert.deepEqual(client.pendingDiffs().sort(), [path.join(h.workspace, 'one.txt'), path.join(h.workspace, 'two.txt')]);
    h.companion.diffs.reject(h.view.shown.find((d) => d.newContent === '2')!.id);
    assert.deepEqual(await two, { status: 'rejected' });
    h.companion.diffs.accept(h.view.shown.find((d) => d.newContent === '1')!.id);
    assert.deepEqual(await one, { status: 'accepted', content: '1' });
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('two diffs of the same file wait for each other instead of replacing', async () => {
  const h = await startCompanion();
  const client = clientFor(h, { reconnect: false });
  try {
    assert.ok(await client.connect());
    const file = path.join(h.workspace, 'same.txt');
    const first = client.openDiff(file, 'first');
    const second = client.openDiff(file, 'second');
    await waitFor(() => h.view.shown.length === 1, 'first shown');
    h.companion.diffs.accept(h.view.shown[0]!.id);
    assert.deepEqual(await first, { status: 'accepted', content: 'first' });
    await waitFor(() => h.view.shown.length === 2, 'second shown after the first settled');
    h.companion.diffs.reject(h.view.shown[1]!.id);
    assert.deepEqual(await second, { status: 'rejected' });
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('resolveDiffFromCli closes the view and keeps the edits made in it', async () => {
  const h = await startCompanion();
  const client = clientFor(h, { reconnect: false });
  try {
    assert.ok(await client.connect());
    const file = path.join(h.workspace, 'z.txt');
    const outcome = client.openDiff(file, 'model\n');
    await waitFor(() => h.view.shown[0], 'diff shown');
    h.view.edits.set(file, 'model plus user\n');
    assert.deepEqual(await client.resolveDiffFromCli(file, 'accepted'), { status: 'accepted', content: 'model plus user\n' });
    assert.deepEqual(await outcome, { status: 'accepted', content: 'model plus user\n' });
    assert.equal(h.view.closed[0]?.reason, 'closedByCli');
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('a pending diff fails, rather than hangs, when the companion stops', async () => {
  const h = await startCompanion();
  const client = clientFor(h, { reconnect: false });
  try {
    assert.ok(await client.connect());
    const outcome = client.openDiff(path.join(h.workspace, 'gone.txt'), 'x');
    await waitFor(() => h.view.shown[0], 'diff shown');
    await h.companion.stop();
    await assert.rejects(outcome, /lost|closed|rejected/i);
  } finally {
    await client.stop();
    await h.cleanup();
  }
});

test('openDiff without a connection rejects at once', async () => {
  const client = new CompanionClient({ reconnect: false });
  await assert.rejects(client.openDiff('/tmp/never.txt', 'x'), /not connected/);
  await assert.rejects(client.openDiff('relative.txt', 'x'), /absolute/);
});

test('start() returns at once and reports a reason when no companion exists', async () => {
  const h = await startCompanion();
  await h.companion.stop();
  const client = clientFor(h, { reconnect: false });
  const states: ClientState[] = [];
  client.onStatusChange((s) => states.push(s));
  client.start();
  // The attempt needs I/O: had start() waited for it, its outcome would be known here.
  assert.equal(
    states.some((s) => s.status === 'disconnected'),
    false,
    'start returned before the connection attempt ended',
  );
  await waitFor(() => states.some((s) => s.status === 'disconnected'), 'a disconnected state');
  assert.match(client.status.details ?? '', /Failed to connect|no port/);
  await client.stop();
  await h.cleanup();
});

test('reconnects by itself to a companion restarted for the same workspace', async () => {
  const first = await startCompanion();
  const client = clientFor(first, { reconnect: { initialDelayMs: 100, maxDelayMs: 500 }, heartbeatMs: 1000 });
  let second: Awaited<ReturnType<typeof startCompanion>> | undefined;
  try {
    assert.ok(await client.connect());
    const oldPort = first.companion.port;
    await first.companion.stop();
    await waitFor(() => client.status.status !== 'connected', 'the drop to be noticed', 20_000);
    second = await startCompanion({ tmp: first.tmp, workspace: first.workspace });
    assert.notEqual(second.companion.port, oldPort);
    await waitFor(() => client.status.status === 'connected', 'reconnected', 30_000);
    assert.equal(client.target?.kind === 'http' && client.target.port, second.companion.port);
    const f = writeFile(first.workspace, 'after.ts', '');
    second.companion.context.focus(f);
    await waitFor(() => client.context.get()?.workspaceState?.openFiles?.[0]?.path === f, 'context from the new companion', 20_000);
  } finally {
    await client.stop();
    await second?.companion.stop();
    await first.cleanup();
  }
});

test('a companion with the wrong token is refused and the reason names the target', async () => {
  const h = await startCompanion();
  const file = h.companion.discoveryFilePath!;
  const json = JSON.parse(fs.readFileSync(file, 'utf8'));
  json.authToken = 'wrong-token';
  fs.writeFileSync(file, JSON.stringify(json));
  const client = clientFor(h, { reconnect: false });
  try {
    assert.equal(await client.connect(), false);
    assert.match(client.status.details ?? '', new RegExp(`127\\.0\\.0\\.1:${h.companion.port}`));
    assert.equal((client.status.details ?? '').includes('wrong-token'), false);
  } finally {
    await client.stop();
    await h.cleanup();
  }
});
