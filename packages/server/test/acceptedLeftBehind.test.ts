/**
 * The accepted-text memory survives its companion (issue 37): a companion
 * killed with -9 after the user accepted and before the agent wrote the file
 * (a host the editor restarts) leaves the text in a private file, and the next
 * companion of the workspace shows it to the user, kept, byte for byte, unless
 * the file holds it by then. The ends keep no copy of their own.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { makeTempDir, waitFor } from '@ide-companion/testkit';
import { startCompanion } from './helpers.js';
import { keptDirectory } from '../src/keptProposals.js';

// The kept folder is TMPDIR's: this file's own, shared with the companions it kills.
const tmp = makeTempDir();
process.env['TMPDIR'] = tmp.path;
process.on('exit', () => tmp.cleanup());

const CRLF_TEXT = 'the user’s text ✓ é\r\nsecond line\r\nno final newline';

/**
 * A companion in its own process for `workspace`: a real MCP client proposes each of `accepts` (file name -> text the
 * user accepts), the user accepts it, the CLI hears it; then the process is killed with -9 before anyone writes.
 * Resolves with the accepted diffs' ids by file name.
 */
async function killedAfterAccepts(workspace: string, accepts: Record<string, string>): Promise<Record<string, string>> {
  const script = `
    const { startTestCompanion } = await import(${JSON.stringify(new URL('../src/testing.js', import.meta.url).href)});
    const { connectRecordingClient } = await import(${JSON.stringify(import.meta.resolve('@ide-companion/testkit'))});
    const path = await import('node:path');
    const accepts = ${JSON.stringify(accepts)};
    const ids = {};
    const h = await startTestCompanion({ tmp: ${JSON.stringify(path.dirname(workspace))}, workspace: ${JSON.stringify(workspace)} });
    const cli = await connectRecordingClient({ port: h.companion.port, token: h.companion.authToken });
    for (const [name, text] of Object.entries(accepts)) {
      const filePath = path.join(h.workspace, name);
      await cli.client.callTool({ name: 'openDiff', arguments: { filePath, newContent: 'from the model\\n' } });
      const diff = h.view.shown.find((d) => d.filePath === filePath);
      h.companion.diffs.accept(diff.id, text);
      ids[name] = diff.id;
      for (let i = 0; i < 200 && !cli.notifications.some((n) => n.method === 'ide/diffAccepted' && n.params.filePath === filePath); i++)
        await new Promise((r) => setTimeout(r, 10));
    }
    process.stdout.write('accepted ' + JSON.stringify(ids) + '\\n');
    setInterval(() => undefined, 1000);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, TMPDIR: tmp.path },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    return await new Promise<Record<string, string>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the companion process did not accept within 20 s')), 20_000);
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = /^accepted (.*)\n/m.exec(out);
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line[1]!) as Record<string, string>);
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the companion process exited (${code}) before it accepted`));
      });
    });
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

/** The accepted texts waiting in the kept folder, by any process. */
function copiesLeft(): string[] {
  return fs.readdirSync(keptDirectory()).filter((name) => /^accepted-\d+-[0-9a-f]{8}\.json$/.test(name));
}

test('a companion killed after the accepts, before the agent wrote: the next one shows each text kept, byte for byte (CRLF, no final newline, non-ASCII, empty)', async (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(tmp.path, 'one-')));
  const workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'on disk\n');
  fs.writeFileSync(path.join(workspace, 'e.txt'), 'to be emptied\n');
  const ids = await killedAfterAccepts(workspace, { 'a.txt': CRLF_TEXT, 'e.txt': '' });
  assert.equal(copiesLeft().length, 2, 'the killed process left both texts');

  const h = await startCompanion({ tmp: root, workspace, ideInfo: { name: 'neovim', displayName: 'Neovim' } });
  t.after(() => h.cleanup());
  await h.companion.diffs.keepAcceptedLeftBehind();
  const byName = (name: string) => h.view.shown.find((d) => d.filePath === path.join(workspace, name));
  const a = byName('a.txt');
  const e = byName('e.txt');
  assert.ok(a && e, 'both shown');
  assert.deepEqual(Buffer.from(a.newContent, 'utf8'), Buffer.from(CRLF_TEXT, 'utf8'), 'the accepted bytes exactly');
  assert.equal(e.newContent, '', 'an empty text stays empty');
  assert.equal(a.originalContent, 'on disk\n', 'beside the file as it is');
  assert.equal(a.kept, true, 'shown only to be kept: the user keeps their window');
  // Issue 37: an end that kept this very accept when its host died answers it as shown (said once, kept once).
  assert.deepEqual([a.id, e.id], [ids['a.txt'], ids['e.txt']], "under the accepted diff's own id");
  const closed = h.view.closed.find((c) => c.diff.id === a.id);
  assert.equal(closed?.reason, 'sessionClosed', 'closed as every end keeps a proposal');
  assert.equal(
    closed?.message,
    'the companion stopped before Gemini CLI wrote a.txt; the text you accepted is kept in its buffer (:w FILE saves it), shown beside your windows without taking yours',
  );
  assert.equal(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8'), 'on disk\n', 'nothing writes the file but the user');
  assert.deepEqual(copiesLeft(), [], 'claimed once the user has them');
  assert.deepEqual(h.companion.diffs.list(), [], 'nothing is pending');

  await h.companion.diffs.keepAcceptedLeftBehind();
  assert.equal(h.view.shown.length, 2, 'shown once');
});

test('the file already holding the accepted text: nothing is kept, the copy goes; a file outside the workspace is left for its own', async (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(tmp.path, 'two-')));
  const workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'b.txt'), 'old\n');
  await killedAfterAccepts(workspace, { 'b.txt': CRLF_TEXT });
  // The agent wrote it after all (it heard the accept before the companion died).
  fs.writeFileSync(path.join(workspace, 'b.txt'), CRLF_TEXT);
  const other = path.join(root, 'other');
  fs.mkdirSync(other);
  fs.writeFileSync(path.join(other, 'c.txt'), 'old\n');
  await killedAfterAccepts(other, { 'c.txt': 'for the other workspace\n' });
  assert.equal(copiesLeft().length, 2);

  const h = await startCompanion({ tmp: root, workspace });
  t.after(() => h.cleanup());
  await h.companion.diffs.keepAcceptedLeftBehind();
  assert.deepEqual(h.view.shown, [], 'nothing shown');
  const left = copiesLeft();
  assert.equal(left.length, 1, "b.txt's copy gone, c.txt's left");
  assert.equal(JSON.parse(fs.readFileSync(path.join(keptDirectory(), left[0]!), 'utf8')).filePath, path.join(other, 'c.txt'));

  // The other workspace's next companion shows it.
  const o = await startCompanion({ tmp: root, workspace: other });
  t.after(() => o.cleanup());
  await o.companion.diffs.keepAcceptedLeftBehind();
  await waitFor(() => o.view.closed[0], 'kept');
  assert.equal(o.view.shown[0]?.newContent, 'for the other workspace\n');
  assert.deepEqual(copiesLeft(), []);
});

test('a copy that is not an accepted text (hand-made, cut short) is set aside as a kept file, never shown nor read again', async (t) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(tmp.path, 'three-')));
  const workspace = path.join(root, 'ws');
  fs.mkdirSync(workspace);
  const dead = 2 ** 22 + 12345; // above pid_max's default: never a live process
  const junk = path.join(keptDirectory(), `accepted-${dead}-0badc0de.json`);
  fs.writeFileSync(junk, '{"filePath": "relative", "content": 7', { mode: 0o600 });
  const h = await startCompanion({ tmp: root, workspace });
  t.after(() => h.cleanup());
  await h.companion.diffs.keepAcceptedLeftBehind();
  assert.deepEqual(h.view.shown, []);
  assert.equal(fs.existsSync(junk), false);
  const setAside = fs.readdirSync(keptDirectory()).filter((n) => n.endsWith('accepted-unreadable.json'));
  assert.equal(setAside.length, 1);
  assert.equal(fs.readFileSync(path.join(keptDirectory(), setAside[0]!), 'utf8'), '{"filePath": "relative", "content": 7');
});
