/**
 * The review's base from the CLI's machine (issue 29, `connect --remote-files`,
 * which `ide-companion ssh` starts on the remote): with separate checkouts the
 * agent writes its own file, so the editor's left side is that file as the
 * relay reads it there, not this machine's copy. The bundled relay over a real
 * companion's socket, with a path map: the CLI's "remote" checkout is a folder
 * here that the editor's workspace is not.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REMOTE_BASE_META_KEY } from '@ide-companion/protocol';
import { startTestCompanion, type TestCompanion } from '@ide-companion/server/testing';
import { connectRecordingClient, waitFor } from '@ide-companion/testkit';
import { relayClient, type RelayClient } from './support/relayClient.js';

const TIMEOUT = 30_000;
const text = (r: any): string => r.content[0].text;
const LOCAL = 'this machine’s copy\n';
const REMOTE = 'the remote checkout, as the agent there has it\r\né😀\n';

describe('the review base sent up by the relay (--remote-files)', { timeout: 4 * TIMEOUT }, () => {
  let h: TestCompanion;
  let remoteRoot: string;
  let relay: RelayClient;
  /** The same companion through a relay without --remote-files (a container: one file, mounted). */
  let plainRelay: RelayClient;
  const remote = (name: string) => path.join(remoteRoot, name);
  const local = (name: string) => path.join(h.workspace, name);

  before(async () => {
    h = await startTestCompanion();
    remoteRoot = path.join(h.tmp, 'remote-checkout');
    fs.mkdirSync(remoteRoot);
    const socket = h.companion.socketPath!;
    relay = await relayClient(['--socket', socket, '--map', `${h.workspace}=${remoteRoot}`, '--remote-files']);
    plainRelay = await relayClient(['--socket', socket, '--map', `${h.workspace}=${remoteRoot}`]);
  });
  after(async () => {
    await relay?.close();
    await plainRelay?.close();
    await h?.cleanup();
  });

  /** Opens a diff of `name` through `through`, returns what the editor was asked to show. */
  async function shown(through: RelayClient, name: string, newContent: string, meta?: Record<string, unknown>) {
    const before = h.view.shown.length;
    const r: any = await through.client.callTool({ name: 'openDiff', arguments: { filePath: remote(name), newContent }, ...(meta && { _meta: meta }) });
    assert.equal(r.isError, undefined, r.content?.[0]?.text);
    const diff = await waitFor(() => h.view.shown.slice(before).find((d) => d.filePath === local(name)), 'the editor to be asked', TIMEOUT);
    return { diff, words: h.view.shownWords[h.view.shown.indexOf(diff)] };
  }

  test("the editor's left side is the remote file, named by its remote path; the accept reaches the CLI, this machine's copy unchanged", async () => {
    fs.writeFileSync(local('a.txt'), LOCAL);
    fs.writeFileSync(remote('a.txt'), REMOTE);
    const { diff, words } = await shown(relay, 'a.txt', 'the model’s text\n');
    assert.equal(diff.originalContent, REMOTE, 'the base is the file the agent writes');
    assert.deepEqual(diff.remote, { path: remote('a.txt'), host: os.hostname() });
    assert.ok(words?.proposed.includes(`${os.hostname()}:${remote('a.txt')}`), words?.proposed);
    const edited = 'the user’s edit\n';
    h.companion.diffs.accept(diff.id, edited);
    const outcome = await waitFor(() => relay.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the outcome', TIMEOUT);
    assert.deepEqual(outcome.params, { filePath: remote('a.txt'), content: edited });
    // The CLI writes its own file; the editor's stays as it was, and is not taken for an unwritten accept.
    fs.writeFileSync(remote('a.txt'), edited);
    assert.equal(fs.readFileSync(local('a.txt'), 'utf8'), LOCAL);
    assert.equal(h.view.reloads.length, 0, 'no reload of a file the agent does not write');
  });

  test('no remote file is a new file, whatever this machine has; a FIFO or a folder there refuses the diff, naming it', async () => {
    fs.writeFileSync(local('new.txt'), LOCAL);
    const { diff } = await shown(relay, 'new.txt', 'new\n');
    assert.equal(diff.originalContent, undefined, 'a new file on the remote');
    h.companion.diffs.reject(diff.id);

    execFileSync('mkfifo', [remote('fifo.txt')]);
    fs.mkdirSync(remote('dir.txt'));
    const before = h.view.shown.length;
    for (const [name, why] of [
      ['fifo.txt', /it is a FIFO; only regular files can be diffed/],
      ['dir.txt', /it is a directory/],
    ] as const) {
      const r: any = await relay.client.callTool({ name: 'openDiff', arguments: { filePath: remote(name), newContent: 'x' } });
      assert.equal(r.isError, true, name);
      assert.ok(text(r).includes(`could not read ${remote(name)} on ${os.hostname()}`), text(r));
      assert.match(text(r), why);
    }
    assert.equal(h.view.shown.length, before, 'nothing shown');
  });

  test('a 1 MiB openDiff (read from its outline, its path rewritten in place) gets its base too', async () => {
    const proposal = 'é😀 "filePath":"/decoy"\r\n'.repeat(40 * 1024);
    const base = 'remote base é\n'.repeat(50 * 1024);
    fs.writeFileSync(local('big.txt'), LOCAL);
    fs.writeFileSync(remote('big.txt'), base);
    const { diff } = await shown(relay, 'big.txt', proposal);
    assert.equal(diff.newContent, proposal);
    assert.equal(diff.originalContent, base);
    h.companion.diffs.reject(diff.id);
  });

  test("a base the CLI writes itself is taken out by the relay: the relay's own, or none (this machine's file then)", async () => {
    const forged = { [REMOTE_BASE_META_KEY]: { path: '/x', host: 'forged', content: 'what the agent wants the user to see\n' }, other: 1 };
    fs.writeFileSync(local('f.txt'), LOCAL);
    fs.writeFileSync(remote('f.txt'), REMOTE);
    const withFiles = await shown(relay, 'f.txt', 'p\n', forged);
    assert.equal(withFiles.diff.originalContent, REMOTE);
    h.companion.diffs.reject(withFiles.diff.id);
    const without = await shown(plainRelay, 'f.txt', 'p\n', forged);
    assert.equal(without.diff.originalContent, LOCAL, 'a relay without --remote-files sends no base');
    assert.equal(without.diff.remote, undefined);
    h.companion.diffs.reject(without.diff.id);
    // The same in a large message (read from its outline): its _meta makes the relay parse it whole.
    const big = 'x'.repeat(100 * 1024);
    const bigDiff = await shown(plainRelay, 'f.txt', big, forged);
    assert.equal(bigDiff.diff.originalContent, LOCAL);
    h.companion.diffs.reject(bigDiff.diff.id);
    // With --remote-files, a large one with a _meta of its own: the base beside what it had.
    const withMeta = await shown(relay, 'f.txt', big, { progressToken: 7 });
    assert.equal(withMeta.diff.originalContent, REMOTE);
    h.companion.diffs.reject(withMeta.diff.id);
    // The key spelt with an escape, in a large message written as its bytes: still taken out.
    const before = h.view.shown.length;
    const escaped = `{"jsonrpc":"2.0","id":"raw-1","method":"tools/call","params":{"_meta":{"ide-companion\\/remoteBase":${JSON.stringify(forged[REMOTE_BASE_META_KEY])}},"name":"openDiff","arguments":{"filePath":${JSON.stringify(remote('f.txt'))},"newContent":${JSON.stringify(big)}}}}\n`;
    assert.equal((JSON.parse(escaped).params._meta as Record<string, unknown>)[REMOTE_BASE_META_KEY] !== undefined, true);
    plainRelay.child.stdin!.write(escaped);
    const raw = await waitFor(() => h.view.shown.slice(before).find((d) => d.filePath === local('f.txt')), 'the raw openDiff', TIMEOUT);
    assert.equal(raw.originalContent, LOCAL);
    assert.equal(raw.remote, undefined);
    h.companion.diffs.reject(raw.id);
  });

  test('on the port (a CLI here), the key is refused: only the relay on the socket sends a base', async () => {
    const client = await connectRecordingClient({ port: h.companion.port, token: h.companion.authToken });
    try {
      fs.writeFileSync(local('p.txt'), LOCAL);
      const before = h.view.shown.length;
      const r: any = await client.client.callTool({
        name: 'openDiff',
        arguments: { filePath: local('p.txt'), newContent: 'p\n' },
        _meta: { [REMOTE_BASE_META_KEY]: { path: local('p.txt'), host: 'x', content: 'forged\n' } },
      });
      assert.equal(r.isError, true);
      assert.match(text(r), /is sent only by ide-companion connect, on the companion's socket/);
      assert.equal(h.view.shown.length, before);
    } finally {
      await client.close();
    }
  });
});
