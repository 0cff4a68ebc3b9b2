/**
 * Diffs in a real Emacs (ediff, in tmux), opened by a real MCP client's
 * openDiff: the user edits the proposal and accepts with C-c C-c (the edits
 * reach ide/diffAccepted byte for byte), rejects with C-c C-k, and the file's
 * buffer reverts without a prompt once written, unless it has unsaved changes.
 */
import { test, describe, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { acceptedCopies, findGeminiCli, ideTerminalEnv, processRunning, RealIdeClient, skipUnless, waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { connectFromDiscovery, elispString, startEmacs, TIMEOUT, waitForProposalBuffer, type EmacsSession } from './harness.js';

const skip = skipEmacsInTmux;

/** CRLF, multibyte, no final newline: every byte must survive. */
const PROPOSAL = 'line 1\r\nlïne 2 ✓ 😀\r\nno final newline';

async function openDiffIn(emacs: EmacsSession, client: Awaited<ReturnType<typeof connectFromDiscovery>>, file: string, newContent: string) {
  await client.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent } });
  const proposal = await waitForProposalBuffer(emacs, TIMEOUT, file);
  // The user moves to the proposal's window (ediff leaves its control window selected).
  await emacs.eval(`(select-window (get-buffer-window ${elispString(proposal)}))`);
  return proposal;
}

/** Types `text` at the end of the proposal buffer `proposal` (its window selected) and waits until Emacs has it. */
async function typeAtEnd(emacs: EmacsSession, proposal: string, text: string) {
  emacs.tmux.keys('M->');
  emacs.tmux.type(text);
  await waitFor(
    async () => (await emacs.evalJson<string>(`(with-current-buffer ${elispString(proposal)} (buffer-string))`)).endsWith(text),
    'the typing',
    TIMEOUT,
  );
}

/** The name of a kept proposal buffer of `name` holding exactly `text`, or undefined. */
async function keptBufferHolding(emacs: EmacsSession, name: string, text: string): Promise<string | undefined> {
  const found = await emacs.evalJson<string | null>(
    `(or (seq-some (lambda (b) (and (string-match-p ${elispString(`proposal: ${name.replace(/\./g, '\\.')}`)} (buffer-name b)) (equal (with-current-buffer b (buffer-string)) ${elispString(text)}) (buffer-name b))) (buffer-list)) :null)`,
  );
  return found ?? undefined;
}

/**
 * A host that stalls on SIGUSR2: alive (Emacs goes on writing to it) but reading nothing, as a host
 * is between the user's accept and its reading the line. SIGSTOP cannot stand in: Emacs sees a
 * stopped child and refuses to write to it. The stall lasts until `release`.
 */
/** After the host was killed at `killedAt`: its discovery file (`firstPath`) goes, a new host's comes, and an MCP client connects to it within 2 s of the kill. */
async function newHostServesWithin2s(t: TestContext, emacs: EmacsSession, firstPath: string, killedAt: number): Promise<void> {
  await waitFor(() => !fs.existsSync(firstPath), "the dead host's discovery file to go", 2_000);
  const second = await waitFor(
    async () => {
      const d = await emacs.discovery().catch(() => undefined);
      return d && d.path !== firstPath ? d : undefined;
    },
    "a new host's discovery file",
    Math.max(0, 2_000 - (Date.now() - killedAt)),
  );
  const again = await connectFromDiscovery(second.content);
  const connectedMs = Date.now() - killedAt;
  await again.close();
  assert.ok(connectedMs < 2_000, `an MCP client connected to the new host ${connectedMs} ms after the kill`);
  t.diagnostic(`kill to a new host's MCP client connected: ${connectedMs} ms`);
}

/** C-x C-w in the kept buffer `kept`, as its message says, writes exactly `text` (CRLF, no final newline, multibyte). */
async function assertCxCwSaves(emacs: EmacsSession, kept: string, text: string): Promise<void> {
  const saved = path.join(emacs.workspace, 'saved.txt');
  await emacs.eval(`(progn (select-window (display-buffer ${elispString(kept)})) t)`);
  emacs.tmux.keys('C-x', 'C-w');
  await waitFor(async () => (await emacs.evalJson('(if (active-minibuffer-window) t :false)')) === true, 'the file prompt', TIMEOUT);
  emacs.tmux.type('saved.txt');
  emacs.tmux.keys('Enter');
  await waitFor(() => fs.existsSync(saved), 'the buffer written', TIMEOUT);
  assert.deepEqual(fs.readFileSync(saved), Buffer.from(text, 'utf8'));
}

function stallableHost() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-stall-'));
  const flag = path.join(dir, 'stalled');
  const preload = path.join(dir, 'stall.cjs');
  fs.writeFileSync(
    preload,
    `process.on('SIGUSR2', () => {
  const fs = require('node:fs');
  fs.writeFileSync(${JSON.stringify(flag)}, '');
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (fs.existsSync(${JSON.stringify(flag)})) Atomics.wait(cell, 0, 0, 10);
});
`,
  );
  return {
    env: { NODE_OPTIONS: `--require ${preload}` },
    async stall(pid: number) {
      process.kill(pid, 'SIGUSR2');
      await waitFor(() => fs.existsSync(flag), 'the host to stall', TIMEOUT);
    },
    release: () => fs.rmSync(flag, { force: true }),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Kills a process the test stopped, if it still runs. */
function killQuietly(pid: number) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

describe('Emacs diffs', { skip, timeout: 180_000 }, () => {
  test('edit the proposal, C-c C-c: the exact edited bytes are accepted; the buffer reverts without a prompt once written', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'old\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const client = await connectFromDiscovery((await emacs.discovery()).content);
    t.after(() => client.close());
    const file = path.join(emacs.workspace, 'a.txt');

    const proposal = await openDiffIn(emacs, client, file, PROPOSAL);
    assert.equal(await emacs.evalJson(`(with-current-buffer ${elispString(proposal)} (buffer-string))`), PROPOSAL);
    assert.equal(await emacs.evalJson('(and (ide-companion--diff-control (car (hash-table-values ide-companion--diffs))) t)'), true, 'ediff runs');
    // The user types at the end of the proposal, then accepts.
    emacs.tmux.keys('M->');
    emacs.tmux.type(' edited');
    await waitFor(
      async () => (await emacs.evalJson<string>(`(with-current-buffer ${elispString(proposal)} (buffer-string))`)).endsWith(' edited'),
      'the typing',
      TIMEOUT,
    );
    emacs.tmux.keys('C-c', 'C-c');
    const accepted = await client.waitForNotification('ide/diffAccepted', (p) => p.filePath === file);
    assert.equal(accepted.content, `${PROPOSAL} edited`);
    assert.equal(await emacs.evalJson('(hash-table-count ide-companion--diffs)'), 0);
    assert.equal(await emacs.evalJson(`(if (get-buffer ${elispString(proposal)}) t :false)`), false, 'the diff buffers are gone');

    // Gemini CLI writes the file: the unmodified buffer shows it, with no prompt waiting.
    fs.writeFileSync(file, accepted.content);
    await waitFor(
      async () =>
        (await emacs.evalJson<string>(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (buffer-string))`)).includes('no final newline edited'),
      'the buffer to revert',
      TIMEOUT,
    );
    assert.equal(await emacs.evalJson(`(if (buffer-modified-p (find-buffer-visiting ${elispString(file)})) t :false)`), false);
    assert.equal(await emacs.evalJson('(if (active-minibuffer-window) t :false)'), false, 'no prompt');
    // The watch saw the file hold the accepted text: the host's copy is gone, nothing to show again if it dies.
    await waitFor(() => acceptedCopies(emacs.tmp).length === 0, "the host's copy of the accepted text to go", TIMEOUT);
  });

  // Issue 21: a host killed under Emacs used to take the open proposal with it, stay dead, and leave its
  // discovery file (naming Emacs's live PID, so never swept) behind.
  test("a host killed with SIGKILL: its files go, a new host serves at once, one readable line, and the proposal keeps the user's edits", async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'old\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const first = await emacs.discovery();
    const client = await connectFromDiscovery(first.content);
    t.after(() => client.close());
    const file = path.join(emacs.workspace, 'a.txt');
    const proposal = await openDiffIn(emacs, client, file, PROPOSAL);
    await emacs.eval(`(with-current-buffer ${elispString(proposal)} (goto-char (point-max)) (insert " edited"))`);
    const hostPid = await emacs.evalJson<number>('(process-id ide-companion--process)');
    process.kill(hostPid, 'SIGKILL');

    await waitFor(() => !fs.existsSync(first.path), "the dead host's discovery file to go", 2_000);
    assert.equal(fs.existsSync(path.dirname(first.content.socketPath!)), false, 'its socket folder too');
    const second = await waitFor(
      async () => {
        const d = await emacs.discovery().catch(() => undefined);
        return d && d.path !== first.path ? d : undefined;
      },
      "a new host's discovery file",
      5_000,
    );
    const again = await connectFromDiscovery(second.content);
    await again.close();
    assert.equal(
      await emacs.evalJson(`(with-current-buffer ${elispString(proposal)} (buffer-string))`),
      `${PROPOSAL} edited`,
      'the proposal and its edits stay',
    );
    const messages = await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))');
    assert.match(
      messages,
      /ide-companion: the companion host stopped \(killed by SIGKILL\) and was restarted; your proposal for a\.txt is kept in its buffer \(C-x C-w saves it\)/,
    );
  });

  // Issue 37: the accept passed on, the host killed before the CLI wrote: the host's copy of the text (a file it
  // leaves) is the next host's to show; the end keeps none of its own.
  test('the host killed (SIGKILL) after it passed the accept on, before the CLI wrote: the next host shows the text kept, said so, saved byte for byte; the file untouched; a new host within 2 s', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'old\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const first = await emacs.discovery();
    const client = await connectFromDiscovery(first.content);
    t.after(() => client.close());
    const file = path.join(emacs.workspace, 'a.txt');
    const proposal = await openDiffIn(emacs, client, file, PROPOSAL);
    await typeAtEnd(emacs, proposal, ' edited');
    const hostPid = await emacs.evalJson<number>('(process-id ide-companion--process)');
    emacs.tmux.keys('C-c', 'C-c');
    await client.waitForNotification('ide/diffAccepted', (p) => p.filePath === file);
    const killedAt = Date.now();
    process.kill(hostPid, 'SIGKILL');

    await newHostServesWithin2s(t, emacs, first.path, killedAt);

    const kept = await waitFor(() => keptBufferHolding(emacs, 'a.txt', `${PROPOSAL} edited`), 'a kept buffer holding exactly the accepted text', TIMEOUT);
    const messages = await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))');
    assert.match(messages, /ide-companion: the companion host stopped \(killed by SIGKILL\) and was restarted\n/, 'no open proposal to name');
    assert.match(
      messages,
      /the companion stopped before Gemini CLI wrote a\.txt; the text you accepted is kept in its buffer \(C-x C-w saves it\), shown beside your windows without taking yours/,
    );
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n', 'the file on disk is untouched');
    await waitFor(() => acceptedCopies(emacs.tmp).length === 0, 'the copy claimed, once', TIMEOUT);

    await assertCxCwSaves(emacs, kept!, `${PROPOSAL} edited`);
  });

  // Issue 21: the accept sent, then the host killed before it read it (the accept still in its pipe):
  // the accepted text, edits and all, went with it.
  // Issue 37: Emacs keeps no copy of the accepted text; it holds the proposal, hidden, until the host's closeDiff
  // `accepted`, and keeps it as an open one when the host dies first.
  test('the host killed (SIGKILL) with an accept in flight: the accepted text comes back in a kept buffer, said so, saved byte for byte; the file untouched; a new host within 2 s', async (t) => {
    const stall = stallableHost();
    t.after(() => stall.cleanup());
    const emacs = await startEmacs({ files: { 'a.txt': 'old\n' }, open: ['a.txt'], env: stall.env });
    t.after(() => emacs.close());
    // Before the client closes: closing on a stalled host would wait forever.
    let held: number | undefined;
    t.after(() => held && killQuietly(held));
    const first = await emacs.discovery();
    const client = await connectFromDiscovery(first.content);
    t.after(() => client.close());
    const file = path.join(emacs.workspace, 'a.txt');
    const proposal = await openDiffIn(emacs, client, file, PROPOSAL);
    await typeAtEnd(emacs, proposal, ' edited');
    const hostPid = await emacs.evalJson<number>('(process-id ide-companion--process)');
    // Stalled, the host reads nothing: the accept waits in its pipe.
    held = hostPid;
    await stall.stall(hostPid);
    emacs.tmux.keys('C-c', 'C-c');
    await waitFor(async () => (await emacs.evalJson(`(if (get-buffer ${elispString(proposal)}) t :false)`)) === false, 'the accept', TIMEOUT);
    const killedAt = Date.now();
    process.kill(hostPid, 'SIGKILL');
    held = undefined;

    await newHostServesWithin2s(t, emacs, first.path, killedAt);

    const kept = await keptBufferHolding(emacs, 'a.txt', `${PROPOSAL} edited`);
    assert.ok(kept, 'a kept buffer holds exactly the accepted text');
    const messages = await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))');
    assert.match(
      messages,
      /ide-companion: the companion host stopped \(killed by SIGKILL\) and was restarted; your proposal for a\.txt is kept in its buffer \(C-x C-w saves it\)/,
    );
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n', 'the file on disk is untouched');
    assert.equal(
      client.notifications.some((n) => n.method === 'ide/diffAccepted'),
      false,
      'the accept never left the dead host',
    );

    await assertCxCwSaves(emacs, kept!, `${PROPOSAL} edited`);
  });

  // A stopped host cannot take the accept (Emacs writes to no stopped process): the proposal stays, once.
  test('the host stopped (SIGSTOP) when the user accepts: the proposal stays with its edits, said so; killed then, it does not come back twice', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'old\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    let held: number | undefined;
    t.after(() => held && killQuietly(held));
    const first = await emacs.discovery();
    const client = await connectFromDiscovery(first.content);
    t.after(() => client.close());
    const file = path.join(emacs.workspace, 'a.txt');
    const proposal = await openDiffIn(emacs, client, file, PROPOSAL);
    await typeAtEnd(emacs, proposal, ' edited');
    const hostPid = await emacs.evalJson<number>('(process-id ide-companion--process)');
    held = hostPid;
    process.kill(hostPid, 'SIGSTOP');
    await waitFor(async () => (await emacs.evalJson("(eq (process-status ide-companion--process) 'stop)")) === true, 'Emacs to see the host stopped', TIMEOUT);
    emacs.tmux.keys('C-c', 'C-c');
    await waitFor(
      async () =>
        /the companion is not running, so the accept reached no one; your proposal for a\.txt is kept in its buffer \(C-x C-w saves it\)/.test(
          await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))'),
        ),
      'the line that says so',
      TIMEOUT,
    );
    assert.equal(await emacs.evalJson(`(with-current-buffer ${elispString(proposal)} (buffer-string))`), `${PROPOSAL} edited`);
    assert.equal(await emacs.evalJson('(hash-table-count ide-companion--diffs)'), 0);
    process.kill(hostPid, 'SIGKILL');
    held = undefined;
    await waitFor(() => !fs.existsSync(first.path), "the dead host's discovery file to go", 2_000);
    await waitFor(async () => (await emacs.evalJson('(and ide-companion--ready t)')) === true, 'a new host', TIMEOUT);
    const copies = await emacs.evalJson<number>(
      `(cl-count-if (lambda (b) (equal (with-current-buffer b (buffer-string)) ${elispString(`${PROPOSAL} edited`)})) (buffer-list))`,
    );
    assert.equal(copies, 1, 'one buffer holds the text');
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n');
  });

  // The control: a host that passed the accept on, and whose CLI wrote it, brings nothing back when it dies.
  test('the host killed (SIGKILL) after the accept was passed on and written: no buffer comes back, nothing said kept', async (t) => {
    // b.txt is not visited: nothing but the check at the host's death can tell it was written.
    const emacs = await startEmacs({ files: { 'a.txt': 'a\n', 'b.txt': 'old\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const first = await emacs.discovery();
    const client = await connectFromDiscovery(first.content);
    t.after(() => client.close());
    const file = path.join(emacs.workspace, 'b.txt');
    const proposal = await openDiffIn(emacs, client, file, PROPOSAL);
    await typeAtEnd(emacs, proposal, ' edited');
    emacs.tmux.keys('C-c', 'C-c');
    const accepted = await client.waitForNotification('ide/diffAccepted', (p) => p.filePath === file);
    assert.equal(accepted.content, `${PROPOSAL} edited`);
    // As the CLI does.
    fs.writeFileSync(file, accepted.content);
    const hostPid = await emacs.evalJson<number>('(process-id ide-companion--process)');
    process.kill(hostPid, 'SIGKILL');
    await waitFor(() => !fs.existsSync(first.path), "the dead host's discovery file to go", 2_000);
    await waitFor(async () => (await emacs.evalJson('(and ide-companion--ready t)')) === true, 'a new host', TIMEOUT);
    const line = await waitFor(
      async () =>
        (await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))'))
          .split('\n')
          .find((l) => l.includes('the companion host stopped (killed by SIGKILL)')),
      'the line that says the host stopped',
      TIMEOUT,
    );
    assert.doesNotMatch(line, /kept/);
    assert.equal(await keptBufferHolding(emacs, 'b.txt', `${PROPOSAL} edited`), undefined, 'no buffer comes back');
    await waitFor(() => acceptedCopies(emacs.tmp).length === 0, "the next host to drop the dead one's copy: the file holds it", TIMEOUT);
  });

  // Issue 21: Emacs killed with the accept in its host's pipe: the host must still pass it on before it goes.
  test('Emacs killed (SIGKILL) with an accept in flight: the host passes the edited text on, then exits; its discovery file goes', async (t) => {
    const stall = stallableHost();
    t.after(() => stall.cleanup());
    const emacs = await startEmacs({ files: { 'a.txt': 'old\n' }, open: ['a.txt'], env: stall.env });
    t.after(() => emacs.close());
    let held: number | undefined;
    t.after(() => held && killQuietly(held));
    const { path: discoveryPath, content } = await emacs.discovery();
    const client = await connectFromDiscovery(content);
    t.after(() => client.close());
    const file = path.join(emacs.workspace, 'a.txt');
    const proposal = await openDiffIn(emacs, client, file, PROPOSAL);
    await typeAtEnd(emacs, proposal, ' edited');
    const hostPid = await emacs.evalJson<number>('(process-id ide-companion--process)');
    held = hostPid;
    await stall.stall(hostPid);
    emacs.tmux.keys('C-c', 'C-c');
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(emacs.pid, 'SIGKILL');
    const killedAt = Date.now();
    stall.release();
    const accepted = await client.waitForNotification('ide/diffAccepted', (p) => p.filePath === file);
    assert.equal(accepted.content, `${PROPOSAL} edited`);
    await waitFor(() => !processRunning(hostPid), 'the host to exit', Math.max(0, 2_000 - (Date.now() - killedAt)));
    held = undefined;
    await waitFor(() => !fs.existsSync(discoveryPath), 'the discovery file to go', Math.max(0, 2_000 - (Date.now() - killedAt)));
    t.diagnostic(`Emacs killed to host gone and its discovery file removed: ${Date.now() - killedAt} ms`);
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n');
  });

  // Issue 21: a CLI that died (kill -9) with its proposal open used to take the proposal, and the user's edits in it, away.
  test(
    'the CLI killed (SIGKILL) while the user edits its proposal: the edits stay in a plain buffer, said so, the file untouched; the next CLI connects',
    { skip: skipUnless(findGeminiCli() !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') },
    async (t) => {
      const emacs = await startEmacs({ files: { 'a.txt': 'old\n' }, open: ['a.txt'] });
      t.after(() => emacs.close());
      await emacs.discovery();
      const cli = findGeminiCli()!;
      const start = () =>
        RealIdeClient.start(cli, { cwd: emacs.workspace, env: ideTerminalEnv({ tmpdir: emacs.tmp, idePid: emacs.pid }), timeoutMs: TIMEOUT * 3 });
      const client = await start();
      t.after(() => client.stop());
      assert.equal((await client.connect())['status'], 'connected');
      const file = path.join(emacs.workspace, 'a.txt');
      client.send({ cmd: 'openDiff', filePath: file, newContent: PROPOSAL });
      const proposal = await waitForProposalBuffer(emacs, TIMEOUT);
      await emacs.eval(`(with-current-buffer ${elispString(proposal)} (goto-char (point-max)) (insert " edited"))`);
      await client.kill('SIGKILL');
      // Its stream closed and did not reopen: the session ends, and with it the diff.
      await waitFor(async () => (await emacs.evalJson<number>('(hash-table-count ide-companion--diffs)')) === 0, 'the diff to be closed', TIMEOUT * 2);
      assert.equal(
        await emacs.evalJson(`(with-current-buffer ${elispString(proposal)} (buffer-string))`),
        `${PROPOSAL} edited`,
        'the proposal and its edits stay',
      );
      const messages = await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))');
      assert.match(messages, /the Gemini CLI session that proposed a\.txt went away; the proposal is kept in its buffer \(C-x C-w saves it\)/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'old\n', 'the file on disk is untouched');
      const next = await start();
      t.after(() => next.stop());
      // Timed from its connect (the CLI's own start is not the companion's): the issue asks for 2 s.
      const started = Date.now();
      assert.equal((await next.connect())['status'], 'connected', 'the next CLI connects');
      assert.ok(Date.now() - started < 2_000, `the next CLI connected in ${Date.now() - started} ms`);
    },
  );

  // Issue 21: accepted, then the CLI killed before it wrote: the accepted text must not go with it.
  test(
    'the CLI killed (SIGKILL) after the user accepted and before it wrote: the accepted text comes back in a kept buffer, said so; the file untouched',
    { skip: skipUnless(findGeminiCli() !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') },
    async (t) => {
      const emacs = await startEmacs({ files: { 'a.txt': 'old\n' }, open: ['a.txt'] });
      t.after(() => emacs.close());
      await emacs.discovery();
      const client = await RealIdeClient.start(findGeminiCli()!, {
        cwd: emacs.workspace,
        env: ideTerminalEnv({ tmpdir: emacs.tmp, idePid: emacs.pid }),
        timeoutMs: TIMEOUT * 3,
      });
      t.after(() => client.stop());
      assert.equal((await client.connect())['status'], 'connected');
      const file = path.join(emacs.workspace, 'a.txt');
      client.send({ cmd: 'openDiff', filePath: file, newContent: PROPOSAL });
      const proposal = await waitForProposalBuffer(emacs, TIMEOUT);
      await emacs.eval(`(with-current-buffer ${elispString(proposal)} (goto-char (point-max)) (insert " accepted") (ide-companion-accept))`);
      const result = await client.waitFor((e) => e.event === 'diffResult' && e['filePath'] === file, 'the diff outcome');
      assert.equal(result['result'].status, 'accepted');
      await client.kill('SIGKILL');
      const kept = await waitFor(
        async () =>
          (await emacs.evalJson<string | null>(
            `(or (seq-some (lambda (b) (and (string-match-p "proposal" (buffer-name b)) (equal (with-current-buffer b (buffer-string)) ${elispString(`${PROPOSAL} accepted`)}) (buffer-name b))) (buffer-list)) :null)`,
          )) ?? undefined,
        'the accepted text back in a buffer',
        TIMEOUT * 2,
      );
      assert.ok(kept);
      // Shown again, then kept: no diff pending once the keeping is done, and one line says so.
      await waitFor(async () => (await emacs.evalJson<number>('(hash-table-count ide-companion--diffs)')) === 0, 'no diff pending', TIMEOUT);
      const messages = await waitFor(
        async () => {
          const text = await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))');
          return /the Gemini CLI session that proposed a\.txt went away; the proposal is kept in its buffer \(C-x C-w saves it\)/.test(text) ? text : undefined;
        },
        'the line that says so',
        TIMEOUT,
      );
      assert.ok(messages);
      assert.equal(fs.readFileSync(file, 'utf8'), 'old\n', 'the file on disk is untouched');
    },
  );

  // Issue 28: a kept proposal that comes back must not take the user's window or focus (it took the window a new diff had just opened in).
  test(
    'an accept the CLI never wrote comes back kept without taking a window: the diff the user works in keeps its windows and focus, and the line names the buffer',
    { skip: skipUnless(findGeminiCli() !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') },
    async (t) => {
      const emacs = await startEmacs({ files: { 'a.txt': 'old\n', 'b.txt': 'b\n' }, open: ['a.txt'] });
      t.after(() => emacs.close());
      const { content } = await emacs.discovery();
      const client = await RealIdeClient.start(findGeminiCli()!, {
        cwd: emacs.workspace,
        env: ideTerminalEnv({ tmpdir: emacs.tmp, idePid: emacs.pid }),
        timeoutMs: TIMEOUT * 3,
      });
      t.after(() => client.stop());
      assert.equal((await client.connect())['status'], 'connected');
      const a = path.join(emacs.workspace, 'a.txt');
      client.send({ cmd: 'openDiff', filePath: a, newContent: PROPOSAL });
      const first = await waitForProposalBuffer(emacs, TIMEOUT);
      await emacs.eval(`(with-current-buffer ${elispString(first)} (ide-companion-accept))`);
      const result = await client.waitFor((e) => e.event === 'diffResult' && e['filePath'] === a, 'the diff outcome');
      assert.equal(result['result'].status, 'accepted');
      // Another agent's diff opens, and the user works in its proposal.
      const other = await connectFromDiscovery(content);
      t.after(() => other.close());
      const b = path.join(emacs.workspace, 'b.txt');
      const proposal = await openDiffIn(emacs, other, b, 'b from another agent\n');
      const windows = '(vconcat (mapcar (lambda (w) (format "%s shows %s" w (buffer-name (window-buffer w)))) (window-list nil :no-minibuf)))';
      const before = await emacs.evalJson<string[]>(windows);
      const selected = await emacs.evalJson<string>('(format "%s" (selected-window))');
      await client.kill('SIGKILL');
      const kept = await waitFor(() => keptBufferHolding(emacs, 'a.txt', PROPOSAL), 'the accepted text back in a kept buffer', TIMEOUT * 2);
      const line = await waitFor(
        async () =>
          /the Gemini CLI session that proposed a\.txt went away; the proposal is kept in its buffer \(C-x C-w saves it\).*/.exec(
            await emacs.evalJson<string>('(with-current-buffer "*Messages*" (buffer-string))'),
          )?.[0],
        'the line that says so',
        TIMEOUT,
      );
      assert.ok(line.includes(kept), `the line names the kept buffer ${kept}: ${line}`);
      assert.equal(await emacs.evalJson<string>('(format "%s" (selected-window))'), selected, 'the same window keeps the focus');
      assert.equal(await emacs.evalJson<string>('(buffer-name (window-buffer (selected-window)))'), proposal, 'showing the proposal the user works in');
      const after = await emacs.evalJson<string[]>(windows);
      for (const window of before) assert.ok(after.includes(window), `${window} is still there: ${after.join('; ')}`);
      assert.equal(await emacs.evalJson<number>('(hash-table-count ide-companion--diffs)'), 1, 'the other diff stays open');
      assert.equal(fs.readFileSync(a, 'utf8'), 'old\n', 'the file on disk is untouched');
    },
  );

  // Issue 21: the editor itself killed (kill -9) with a proposal open: its host must not outlive it, nor its files.
  test('Emacs killed with SIGKILL with a diff open: the host exits, its discovery file and socket folder go, the file on disk is untouched', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'old\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const { path: discoveryPath, content } = await emacs.discovery();
    const client = await connectFromDiscovery(content);
    t.after(() => client.close());
    const file = path.join(emacs.workspace, 'a.txt');
    await openDiffIn(emacs, client, file, PROPOSAL);
    const hostPid = await emacs.evalJson<number>('(process-id ide-companion--process)');
    process.kill(emacs.pid, 'SIGKILL');
    await waitFor(() => !processRunning(hostPid), 'the host to exit', 2_000);
    await waitFor(() => !fs.existsSync(discoveryPath), 'the discovery file to go', 2_000);
    assert.equal(fs.existsSync(path.dirname(content.socketPath!)), false, 'its socket folder too');
    assert.equal(fs.readFileSync(file, 'utf8'), 'old\n');
  });

  test("C-c C-k rejects; a second session's diff of another file stays open", async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const { content } = await emacs.discovery();
    const one = await connectFromDiscovery(content);
    const two = await connectFromDiscovery(content);
    t.after(() => one.close());
    t.after(() => two.close());
    const a = path.join(emacs.workspace, 'a.txt');
    const b = path.join(emacs.workspace, 'b.txt');
    await openDiffIn(emacs, two, b, 'from session two\n');
    await openDiffIn(emacs, one, a, 'from session one\n');
    emacs.tmux.keys('C-c', 'C-k');
    const rejected = await one.waitForNotification('ide/diffRejected', (p) => p.filePath === a);
    assert.equal(rejected.filePath, a);
    assert.equal(await emacs.evalJson('(hash-table-count ide-companion--diffs)'), 1);
    assert.equal(
      two.notifications.some((n) => n.method === 'ide/diffRejected'),
      false,
      'only the session that opened it hears',
    );
    // The other diff is accepted unedited from its proposal buffer.
    await emacs.eval(`(progn (select-window (get-buffer-window (ide-companion--diff-proposal (car (hash-table-values ide-companion--diffs))))) t)`);
    emacs.tmux.keys('C-c', 'C-c');
    const accepted = await two.waitForNotification('ide/diffAccepted', (p) => p.filePath === b);
    assert.equal(accepted.content, 'from session two\n');
    assert.equal(fs.readFileSync(a, 'utf8'), 'a\n', 'a reject writes nothing');
  });

  test('unsaved changes are never lost: a modified buffer is not reverted after the write', async (t) => {
    const emacs = await startEmacs({ files: { 'a.txt': 'on disk\n' }, open: ['a.txt'] });
    t.after(() => emacs.close());
    const client = await connectFromDiscovery((await emacs.discovery()).content);
    t.after(() => client.close());
    const file = path.join(emacs.workspace, 'a.txt');
    // The user's unsaved edit.
    emacs.tmux.keys('M->');
    emacs.tmux.type('unsaved');
    await waitFor(
      async () => (await emacs.evalJson(`(if (buffer-modified-p (find-buffer-visiting ${elispString(file)})) t :false)`)) === true,
      'the edit',
      TIMEOUT,
    );
    await openDiffIn(emacs, client, file, 'from gemini\n');
    assert.match(await emacs.evalJson<string>('(with-current-buffer "*Warnings*" (buffer-string))'), /a\.txt has unsaved changes/);
    emacs.tmux.keys('C-c', 'C-c');
    const accepted = await client.waitForNotification('ide/diffAccepted', (p) => p.filePath === file);
    fs.writeFileSync(file, accepted.content);
    await waitFor(
      async () =>
        /a\.txt was written by Gemini CLI but was not reloaded: it has unsaved changes/.test(
          await emacs.evalJson<string>('(with-current-buffer "*Warnings*" (buffer-string))'),
        ),
      'the warning',
      TIMEOUT,
    );
    assert.equal(await emacs.evalJson(`(with-current-buffer (find-buffer-visiting ${elispString(file)}) (buffer-string))`), 'on disk\nunsaved');
  });
});
