/**
 * Issue 30: a diff opened in ediff leaves the cursor in `*Ediff Control
 * Panel*`, where the echo line says "C-c C-c accepts, C-c C-k rejects" and
 * C-c C-k was undefined; ediff's own `q` ended the session and left the
 * proposal neither accepted nor rejected, the agent waiting. Now both keys
 * work there, and `q` asks whether to reject. Typed in the control panel of a
 * real Emacs in tmux; the outcome seen by a real MCP client.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sleep, waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { connectFromDiscovery, startEmacs, TIMEOUT, type EmacsSession } from './harness.js';

const skip = skipEmacsInTmux;

/** Opens a diff and waits until the cursor is where ediff leaves it: its control panel. */
async function openDiffInControlPanel(emacs: EmacsSession, client: Awaited<ReturnType<typeof connectFromDiscovery>>, file: string, newContent: string) {
  await client.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent } });
  await waitFor(
    async () => (await emacs.evalJson<string>('(buffer-name (window-buffer (selected-window)))')).startsWith('*Ediff Control Panel'),
    'the cursor in the ediff control panel',
    TIMEOUT,
  );
}

const pending = (emacs: EmacsSession) => emacs.evalJson<number>('(hash-table-count ide-companion--diffs)');

describe('Emacs: the keys in the ediff control panel', { skip, timeout: 120_000 }, () => {
  test('C-c C-k rejects and C-c C-c accepts where the cursor lands; q asks, n keeps the proposal, y rejects it', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'a\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const { content } = await emacs.discovery();
    const cli = await connectFromDiscovery(content);
    t.after(() => cli.close());
    const a = path.join(emacs.workspace, 'a.txt');

    await openDiffInControlPanel(emacs, cli, a, 'one\n');
    emacs.tmux.keys('C-c', 'C-k');
    await cli.waitForNotification('ide/diffRejected', (p) => p.filePath === a);

    await openDiffInControlPanel(emacs, cli, a, 'two\n');
    emacs.tmux.keys('C-c', 'C-c');
    const accepted = await cli.waitForNotification('ide/diffAccepted', (p) => p.filePath === a);
    assert.equal(accepted.content, 'two\n');

    // ediff's own quit: asks; `n` leaves the proposal open, `y` rejects it.
    await openDiffInControlPanel(emacs, cli, a, 'three\n');
    const rejectedBefore = cli.notifications.filter((n) => n.method === 'ide/diffRejected').length;
    emacs.tmux.keys('q');
    await emacs.tmux.waitForText(/Reject .* proposal for a\.txt\?/, TIMEOUT);
    emacs.tmux.keys('n');
    await sleep(500);
    assert.equal(await pending(emacs), 1, '`n` keeps the proposal open');
    emacs.tmux.keys('q');
    await emacs.tmux.waitForText(/Reject .* proposal for a\.txt\?/, TIMEOUT);
    emacs.tmux.keys('y');
    await waitFor(() => cli.notifications.filter((n) => n.method === 'ide/diffRejected').length > rejectedBefore, 'the reject after q, y', TIMEOUT);
    assert.equal(await pending(emacs), 0, 'nothing left undecided');
    assert.equal(
      await emacs.evalJson(`(if (seq-some (lambda (b) (string-prefix-p "*Ediff Control Panel" (buffer-name b))) (buffer-list)) t :false)`),
      false,
      'the ediff session ended',
    );
    assert.equal(fs.readFileSync(a, 'utf8'), 'a\n', 'only the client writes');
  });
});

/*
 * Issue 30: M-x ide-companion-doctor said "not in a container" inside one
 * whenever REMOTE_CONTAINERS was set (the companion then has no container
 * hint to give). It says what is true: gemini dials loopback.
 */
test(
  'doctor inside a container with REMOTE_CONTAINERS set: it does not say "not in a container"',
  { skip: skip || (['/.dockerenv', '/run/.containerenv'].some((f) => fs.existsSync(f)) ? false : 'not in a container'), timeout: 60_000 },
  async (t) => {
    const emacs = await startEmacs({ env: { REMOTE_CONTAINERS: '1' } });
    t.after(() => emacs.close());
    await emacs.discovery();
    const doctor = await emacs.evalJson<string>('(ide-companion-doctor)');
    assert.doesNotMatch(doctor, /not in a container/);
    assert.match(doctor, /^ok {3}container: none, or REMOTE_CONTAINERS\/SSH_CONNECTION set: gemini dials 127\.0\.0\.1$/m);
  },
);
