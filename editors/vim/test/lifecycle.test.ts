/** Starting and stopping the companion from Vim, terminals tied to their Vim, and what the user is told when Node or gemini are missing. */
import { test, describe, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hostGoneWords, parseDiscoveryFile } from '@ide-companion/protocol';
import {
  acceptedCopies,
  discoveryFileOf,
  assertServesSocket,
  findGeminiCli,
  ideTerminalEnv,
  processRunning,
  RealIdeClient,
  skipUnless,
  sleep,
  waitFor,
  ideEnvInFile,
} from '@ide-companion/testkit';
import {
  bufferLines,
  connectFromDiscovery,
  skipVim,
  skipVimOnly,
  startVim,
  startWithClient,
  TIMEOUT,
  type VimSession,
  vimString,
  waitForDiff,
} from './harness.js';

/** Runs `env > FILE` in a :terminal of `s`, as a user would type :terminal. */
async function terminalEnv(s: VimSession, name: string): Promise<Record<string, string>> {
  const file = path.join(s.tmp, name);
  const script = path.join(s.tmp, `${name}.sh`);
  fs.writeFileSync(script, `env > '${file}.tmp' && mv '${file}.tmp' '${file}'\n`);
  await s.ex(`terminal ++close sh ${script}`);
  await waitFor(() => fs.existsSync(file), `the env of ${name}`, TIMEOUT);
  return ideEnvInFile(file);
}

/** The proposal 'one\r\ntwo\r\n' as editProposal leaves it. */
const EDITED = 'ünï ✓ 😀\r\ntwo';

/** Edits the proposal: its first line non-ASCII, no final newline (CRLF stays). */
async function editProposal(s: VimSession, proposal: number): Promise<void> {
  await s.ex(`call setbufline(${proposal}, 1, 'ünï ✓ 😀') | call setbufvar(${proposal}, '&endofline', 0) | call setbufvar(${proposal}, '&fixendofline', 0)`);
}

/** `:w` in the proposal, as the user accepts. */
async function acceptWithWrite(s: VimSession, proposal: number): Promise<void> {
  await s.ex(`call win_gotoid(get(win_findbuf(${proposal}), 0, 0)) | write`);
  assert.equal((await s.expr<unknown[]>('ide_companion#diff#list()')).length, 0, 'the accept went');
}

/** The kept plain buffers (a proposal or an accepted text shown again): their text as `:w FILE` writes it, their window and their tab's buffers. */
function keptBuffers(s: VimSession): Promise<Array<{ buf: number; text: string; win: number; tabBuffers: number[] }>> {
  return s.expr(
    `map(filter(range(1, bufnr('$')), {_, b -> bufexists(b) && getbufvar(b, '&buftype') ==# 'nofile' && bufname(b) =~# '^ide-companion://\\d\\+/proposed'}), ` +
      `{_, b -> {'buf': b, 'text': ide_companion#text#of_buffer(b, get(win_findbuf(b), 0, 0)), 'win': get(win_findbuf(b), 0, 0), 'tabBuffers': tabpagebuflist(win_id2tabwin(get(win_findbuf(b), 0, 0))[0])}})`,
  );
}

/** Lets a host the test stopped go on (when a test failed before it was killed or continued). */
/** After the host was killed at `killedAt`: its discovery file (`firstPath`) goes, a new host's comes, and a client connects to it within 2 s of the kill. */
async function newHostServesWithin2s(t: TestContext, s: VimSession, firstPath: string, killedAt: number): Promise<void> {
  await waitFor(() => !fs.existsSync(firstPath), "the dead host's discovery file to go", 2_000);
  const second = await waitFor(
    () => {
      const name = discoveryFileOf(s.discoveryDir, s.pid);
      return name && path.join(s.discoveryDir, name) !== firstPath ? path.join(s.discoveryDir, name) : undefined;
    },
    "a new host's discovery file",
    2_000,
  );
  const again = await connectFromDiscovery(parseDiscoveryFile(fs.readFileSync(second, 'utf8')));
  const connectedMs = Date.now() - killedAt;
  await again.close();
  t.diagnostic(`kill to a client connected to the new host: ${connectedMs} ms`);
  assert.ok(connectedMs <= 2_000, `a new host serves within 2 s of the kill (${connectedMs} ms)`);
}

/** One kept buffer holding exactly EDITED, in a tab of its own, and `:w FILE` (as the message says) writes those bytes. */
async function assertAcceptedTextKept(s: VimSession, kept: Awaited<ReturnType<typeof keptBuffers>>): Promise<void> {
  assert.equal(kept.length, 1, `one kept buffer: ${JSON.stringify(kept)}`);
  assert.equal(kept[0]!.text, EDITED, 'it holds exactly the accepted text, edits, CRLF, no final newline and non-ASCII included');
  assert.deepEqual(kept[0]!.tabBuffers, [kept[0]!.buf], 'in a tab of its own');
  const copy = path.join(s.tmp, 'saved.txt');
  await s.expr(`win_execute(${kept[0]!.win}, 'write ' . fnameescape(${vimString(copy)}))`);
  assert.equal(fs.readFileSync(copy, 'utf8'), EDITED, ':w FILE writes the accepted bytes');
}

function resume(pid: number): void {
  try {
    if (pid > 0) process.kill(pid, 'SIGCONT');
  } catch {
    // Gone already.
  }
}

describe('Vim companion lifecycle', { timeout: 180_000 }, () => {
  test('two Vims on one folder: each has its own discovery file, and each :terminal names its own Vim', { skip: skipVim }, async () => {
    const first = await startVim();
    const second = await startVim({ sameFolderAs: first });
    try {
      const d1 = await first.discovery();
      const d2 = await second.discovery();
      assert.equal(path.basename(d1.path), `gemini-ide-server-${first.pid}-${d1.content.port}.json`);
      assert.equal(path.basename(d2.path), `gemini-ide-server-${second.pid}-${d2.content.port}.json`);
      assert.notEqual(d1.content.port, d2.content.port);
      assert.equal(d1.content.workspacePath, d2.content.workspacePath);
      for (const [s, d, name] of [
        [first, d1, 'env1'],
        [second, d2, 'env2'],
      ] as const) {
        const env = await terminalEnv(s, name);
        assert.equal(env['GEMINI_CLI_IDE_PID'], String(s.pid), `${name}: pid`);
        assert.equal(env['GEMINI_CLI_IDE_SERVER_PORT'], String(d.content.port), `${name}: port`);
        assert.equal(env['GEMINI_CLI_IDE_AUTH_TOKEN'], d.content.authToken, `${name}: token`);
        assert.equal(env['GEMINI_CLI_IDE_WORKSPACE_PATH'], d.content.workspacePath, `${name}: workspace`);
      }
    } finally {
      await second.close();
      await first.close();
    }
  });

  test(':Gemini opens the CLI in a terminal split with the env of this Vim, and goes back to it when run again', { skip: skipVim }, async () => {
    const s = await startVim({ files: { 'a.txt': 'a\n' }, open: ['a.txt'] });
    try {
      const { content } = await s.discovery();
      const file = path.join(s.tmp, 'gemini-env');
      const script = path.join(s.tmp, 'fake-gemini.sh');
      fs.writeFileSync(script, `env > '${file}.tmp' && mv '${file}.tmp' '${file}'\nexec sleep 600\n`);
      await s.ex(`let g:ide_companion_gemini_cmd = ['sh', ${vimString(script)}]`);
      s.keys('Escape');
      s.type(':Gemini');
      s.keys('Enter');
      await waitFor(() => fs.existsSync(file), 'the CLI command to run', TIMEOUT);
      const env = ideEnvInFile(file);
      assert.equal(env['GEMINI_CLI_IDE_PID'], String(s.pid));
      assert.equal(env['GEMINI_CLI_IDE_SERVER_PORT'], String(content.port));
      assert.equal(await s.expr('winnr("$")'), 2, 'a split');
      const terminal = await s.expr<number>('bufnr("")');
      assert.equal(await s.expr(`getbufvar(${terminal}, '&buftype')`), 'terminal');
      // Back in the file's window, :Gemini goes to the running terminal instead of starting another.
      await s.ex('wincmd p');
      await s.ex('Gemini');
      assert.equal(await s.expr('bufnr("")'), terminal);
      assert.equal(await s.expr('len(term_list())'), 1);
    } finally {
      await s.close();
    }
  });

  test('quitting Vim removes the discovery file and leaves no host process', { skip: skipVim }, async () => {
    const s = await startVim();
    try {
      const { path: file } = await s.discovery();
      const hostPid = (await s.expr<{ hostPid: number }>('ide_companion#host#state()')).hostPid;
      assert.ok(hostPid > 0 && processRunning(hostPid));
      await s.quit();
      await waitFor(() => !fs.existsSync(file), 'the discovery file removed', TIMEOUT);
      await waitFor(() => !processRunning(hostPid), 'the host gone', TIMEOUT);
    } finally {
      await s.close();
    }
  });

  test(
    ':GeminiStop removes the discovery file and the env; :GeminiStart brings a new companion; :GeminiStatus and :GeminiHealth say so',
    { skip: skipVim },
    async () => {
      const s = await startVim();
      try {
        const first = await s.discovery();
        await s.ex('GeminiStop');
        await waitFor(() => !fs.existsSync(first.path), 'the discovery file removed', TIMEOUT);
        await waitFor(async () => (await s.expr<{ status: string }>('ide_companion#host#state()')).status === 'stopped', 'stopped', TIMEOUT);
        assert.equal(await s.expr('getenv("GEMINI_CLI_IDE_SERVER_PORT")'), null);
        assert.match(await s.ex('GeminiStatus'), /not running/);
        await s.ex('GeminiStart');
        const second = await s.discovery();
        assert.notEqual(second.content.authToken, first.content.authToken);
        assert.match(await s.ex('GeminiStatus'), new RegExp(`host running \\(pid \\d+\\), port ${second.content.port}`));
        const health = await s.ex('GeminiHealth');
        assert.match(health, /ok +Node\.js v\d+/);
        assert.match(health, /ok +host running/);
        assert.match(health, /ok +discovery file/);
        assert.ok(health.includes(`ok   socket ${second.content.socketPath}: for gemini in a container`), 'the socket is shown');
        assert.ok(!health.includes(second.content.authToken), 'no token in the health report');
        await assertServesSocket(second.path);
        assert.equal(fs.existsSync(first.content.socketPath!), false, "the stopped companion's socket is gone");
        // :GeminiEnv prints what a shell outside Vim needs (a tmux pane beside it).
        const exports = await s.ex('GeminiEnv');
        assert.match(exports, new RegExp(`export GEMINI_CLI_IDE_PID='${s.pid}'`));
        assert.match(exports, new RegExp(`export GEMINI_CLI_IDE_SERVER_PORT='${second.content.port}'`));
        assert.match(health, /ok +agents served: Gemini CLI.* \(g:ide_companion_agents chooses\)/);
        // The running host's findings are made when asked, not when it last reported.
        fs.rmSync(second.path);
        assert.ok((await s.ex('GeminiHealth')).includes(`FAIL discovery file ${second.path} is missing`), 'the missing discovery file is said');
      } finally {
        await s.close();
      }
    },
  );

  // Issue 21: a host killed under Vim used to take the open proposal with it, print a raw JSON log
  // line, stay dead, and leave its discovery file (naming Vim's live PID, so never swept) behind.
  test(
    "a host killed with SIGKILL: its files go, a new host serves at once, one readable line, and the proposal keeps the user's edits",
    { skip: skipVim },
    async () => {
      const { s, c } = await startWithClient({ files: { 'a.txt': 'on disk\n' } });
      try {
        const first = await s.discovery();
        const file = path.join(s.workspace, 'a.txt');
        await c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'from the model\n' } });
        const diff = await waitForDiff(s, file);
        await s.ex(`call setbufline(${diff.proposal}, 1, 'the user edited this')`);
        const hostPid = await s.expr<number>('ide_companion#host#state().hostPid');
        process.kill(hostPid, 'SIGKILL');

        await waitFor(() => !fs.existsSync(first.path), "the dead host's discovery file to go", 2_000);
        assert.equal(fs.existsSync(path.dirname(first.content.socketPath!)), false, 'its socket folder too');
        const second = await waitFor(
          async () => {
            const d = await s.discovery().catch(() => undefined);
            return d && d.path !== first.path ? d : undefined;
          },
          "a new host's discovery file",
          5_000,
        );
        const again = await connectFromDiscovery(second.content);
        await again.close();
        assert.deepEqual(await bufferLines(s, diff.proposal), ['the user edited this'], 'the proposal and its edits stay');
        const messages = await s.messages();
        assert.match(
          messages,
          /ide-companion: the companion host stopped \(exit code -?\d+\) and was restarted; your proposal for a\.txt is kept in its tab \(:w FILE saves it\)/,
        );
        assert.doesNotMatch(messages, /[{}]/, 'no raw log line');
      } finally {
        await c.close();
        await s.close();
      }
    },
  );

  // Issue 37: the accept passed on, the host killed before the CLI wrote: the host's copy of the text (a file it
  // leaves) is the next host's to show; Vim keeps none of its own.
  test(
    'a host killed (SIGKILL) after it passed the accept on, before the CLI wrote: the next host shows the text, bytes exact, kept, said so; the file untouched; a new host serves within 2 s',
    { skip: skipVim },
    async (t) => {
      const { s, c } = await startWithClient({ files: { 'a.txt': 'on disk\n' } });
      let hostPid = 0;
      try {
        const first = await s.discovery();
        const file = path.join(s.workspace, 'a.txt');
        await c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'one\r\ntwo\r\n' } });
        const diff = await waitForDiff(s, file);
        await editProposal(s, diff.proposal);
        hostPid = await s.expr<number>('ide_companion#host#state().hostPid');
        await acceptWithWrite(s, diff.proposal);
        await c.waitForNotification('ide/diffAccepted', (p) => p.filePath === file);
        const killedAt = Date.now();
        process.kill(hostPid, 'SIGKILL');

        await newHostServesWithin2s(t, s, first.path, killedAt);

        const kept = await waitFor(
          async () => {
            const found = await keptBuffers(s);
            return found.length > 0 ? found : undefined;
          },
          'the next host to show the accepted text kept',
          TIMEOUT,
        );
        await assertAcceptedTextKept(s, kept);
        const messages = await s.messages();
        assert.match(messages, /ide-companion: the companion host stopped \(exit code -?\d+\) and was restarted\n/, 'no open proposal to name');
        assert.match(
          messages,
          /the companion stopped before Gemini CLI wrote a\.txt; the text you accepted is kept in its buffer \(:w FILE saves it\), shown beside your windows without taking yours/,
        );
        assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n', 'the file on disk is untouched');
        await waitFor(() => acceptedCopies(s.tmp).length === 0, 'the copy claimed: no second copy later', TIMEOUT);
      } finally {
        resume(hostPid);
        await c.close();
        await s.close();
      }
    },
  );

  // Issue 21: an accept Vim wrote into the pipe of a host killed before it read it used to be wiped with the proposal.
  test(
    'a host killed (SIGKILL) with an accept in flight: the accepted text, bytes exact, comes back in a kept buffer, said so; the file untouched; a new host serves within 2 s',
    // Issue 37: Vim keeps no copy of the accepted text; it holds the proposal, hidden, until the host's closeDiff
    // `accepted`, and keeps it as an open one when the host dies first.
    { skip: skipVim },
    async (t) => {
      const { s, c } = await startWithClient({ files: { 'a.txt': 'on disk\n' } });
      let hostPid = 0;
      try {
        const first = await s.discovery();
        const file = path.join(s.workspace, 'a.txt');
        await c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'one\r\ntwo\r\n' } });
        const diff = await waitForDiff(s, file);
        await editProposal(s, diff.proposal);
        hostPid = await s.expr<number>('ide_companion#host#state().hostPid');
        // Stopped, the host cannot read the accept: it waits in the pipe when the host dies.
        process.kill(hostPid, 'SIGSTOP');
        await acceptWithWrite(s, diff.proposal);
        const killedAt = Date.now();
        process.kill(hostPid, 'SIGKILL');

        await newHostServesWithin2s(t, s, first.path, killedAt);

        const kept = await keptBuffers(s);
        await assertAcceptedTextKept(s, kept);
        const messages = await s.messages();
        assert.match(
          messages,
          /ide-companion: the companion host stopped \(exit code -?\d+\) and was restarted; your proposal for a\.txt is kept in its tab \(:w FILE saves it\)/,
        );
        assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n', 'the file on disk is untouched');
        assert.deepEqual(acceptedCopies(s.tmp), [], 'the host never took it: no copy of its own, so nothing is shown twice');
      } finally {
        resume(hostPid);
        await c.close();
        await s.close();
      }
    },
  );

  // Issue 37: the one moment both could keep an accept: the host wrote its copy, then died before Vim heard it took
  // the accept. The copy is written here as the host writes it (its folder, name and fields), the host held stopped.
  test('a host killed (SIGKILL) between its copy of the accept and its acknowledgement: the text is kept once, and said once', { skip: skipVim }, async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'on disk\n' } });
    let hostPid = 0;
    try {
      const file = path.join(s.workspace, 'a.txt');
      await c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'one\r\ntwo\r\n' } });
      const diff = await waitForDiff(s, file);
      await editProposal(s, diff.proposal);
      hostPid = await s.expr<number>('ide_companion#host#state().hostPid');
      process.kill(hostPid, 'SIGSTOP');
      await acceptWithWrite(s, diff.proposal);
      const dir = path.join(s.tmp, `ide-companion-kept-${process.getuid!()}`);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const copy = { filePath: file, agent: 'Gemini CLI', content: EDITED, diffId: diff.id };
      fs.writeFileSync(path.join(dir, `accepted-${hostPid}-0123abcd.json`), JSON.stringify(copy), { mode: 0o600 });
      process.kill(hostPid, 'SIGKILL');
      await waitFor(async () => /restarted; your proposal for a\.txt is kept in its tab/.test(await s.messages()), 'the restart line', TIMEOUT);
      await waitFor(() => acceptedCopies(s.tmp).length === 0, 'the next host to claim the copy and show it', TIMEOUT);
      const kept = await keptBuffers(s);
      assert.deepEqual(
        kept.map((k) => k.text),
        [EDITED],
        'one kept buffer',
      );
      assert.doesNotMatch(await s.messages(), /the companion stopped before/, 'said once: in the restart line');
      assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n');
    } finally {
      resume(hostPid);
      await c.close();
      await s.close();
    }
  });

  // The control for the test above: an accept the CLI wrote to the file is not brought back when the host dies.
  test('a host killed (SIGKILL) after the accepted text reached the file: no buffer comes back, and the message keeps nothing', { skip: skipVim }, async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'on disk\n' } });
    try {
      const first = await s.discovery();
      const file = path.join(s.workspace, 'a.txt');
      await c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'one\r\ntwo\r\n' } });
      const diff = await waitForDiff(s, file);
      await editProposal(s, diff.proposal);
      await acceptWithWrite(s, diff.proposal);
      const accepted = await c.waitForNotification('ide/diffAccepted', (p) => p.filePath === file);
      assert.equal(accepted.content, EDITED);
      // As the CLI does.
      fs.writeFileSync(file, accepted.content);
      // The companion saw the file hold it: its copy for a dying host goes.
      await waitFor(() => acceptedCopies(s.tmp).length === 0, 'the accept forgotten once written', TIMEOUT);
      process.kill(await s.expr<number>('ide_companion#host#state().hostPid'), 'SIGKILL');
      await waitFor(() => !fs.existsSync(first.path), "the dead host's discovery file to go", 2_000);
      await waitFor(
        async () => {
          const d = await s.discovery().catch(() => undefined);
          return d && d.path !== first.path ? d : undefined;
        },
        "a new host's discovery file",
        TIMEOUT,
      );
      assert.deepEqual(await keptBuffers(s), [], 'no buffer comes back');
      const messages = await s.messages();
      assert.match(messages, /the companion host stopped \(exit code -?\d+\) and was restarted/);
      assert.doesNotMatch(messages, /kept/);
      assert.equal(fs.readFileSync(file, 'utf8'), EDITED);
    } finally {
      await c.close();
      await s.close();
    }
  });

  // Vim killed after :w with the accept still in the pipe: the host must read it and pass it on before it goes.
  test("Vim killed (SIGKILL) with an accept in flight: the host passes the user's text on, exits, and its discovery file goes", { skip: skipVim }, async () => {
    const { s, c } = await startWithClient({ files: { 'a.txt': 'on disk\n' } });
    let hostPid = 0;
    try {
      const { path: discoveryPath } = await s.discovery();
      const file = path.join(s.workspace, 'a.txt');
      await c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'one\r\ntwo\r\n' } });
      const diff = await waitForDiff(s, file);
      await editProposal(s, diff.proposal);
      hostPid = await s.expr<number>('ide_companion#host#state().hostPid');
      process.kill(hostPid, 'SIGSTOP');
      await acceptWithWrite(s, diff.proposal);
      await sleep(300);
      process.kill(s.pid, 'SIGKILL');
      await waitFor(() => !processRunning(s.pid), 'Vim to die', TIMEOUT);
      process.kill(hostPid, 'SIGCONT');
      const accepted = await c.waitForNotification('ide/diffAccepted', (p) => p.filePath === file);
      assert.equal(accepted.content, EDITED, 'exactly the edited text');
      await waitFor(() => !processRunning(hostPid), 'the host to exit', 2_000);
      await waitFor(() => !fs.existsSync(discoveryPath), 'the discovery file to go', 2_000);
      assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n');
    } finally {
      resume(hostPid);
      await c.close();
      await s.close();
    }
  });

  // The accept cannot even be sent (the host's end of the pipe is closed, its exit not yet seen): it used to be wiped, "cannot be accepted".
  test('an accept the host cannot take: the proposal, edits included, stays in its buffer and one line says so', { skip: skipVimOnly }, async () => {
    const s = await startVim({ files: { 'a.txt': 'on disk\n' }, waitForCompanion: false, vimrc: ['let g:ide_companion_auto_start = 0'] });
    try {
      const file = path.join(s.workspace, 'a.txt');
      // A host that shows one diff, then closes its stdin and lives on: Vim's next write to it fails.
      const host = path.join(s.tmp, 'deaf-host.mjs');
      fs.writeFileSync(
        host,
        [
          "import * as fs from 'node:fs';",
          "import * as readline from 'node:readline';",
          "const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');",
          "readline.createInterface({ input: process.stdin }).on('line', (line) => {",
          '  const msg = JSON.parse(line);',
          "  if (msg.type === 'hello') {",
          // The words a real host gives with ready (it cannot send them once gone).
          `    send({ type: 'ready', port: 1, words: ${JSON.stringify(hostGoneWords('vim'))} });`,
          `    send({ type: 'request', id: 1, action: 'showDiff', params: { diffId: 'd1', filePath: ${JSON.stringify(file)}, newContent: 'one\\r\\ntwo\\r\\n' } });`,
          "  } else if (msg.type === 'response' && msg.id === 1) {",
          '    process.stdin.destroy();',
          '    fs.closeSync(0);',
          '  }',
          '});',
          'setInterval(() => undefined, 1000);',
        ].join('\n'),
      );
      await s.ex(`let g:ide_companion_host = ${vimString(host)} | GeminiStart`);
      const diff = await waitForDiff(s, file);
      await editProposal(s, diff.proposal);
      await sleep(200);
      await s.ex(`call win_gotoid(get(win_findbuf(${diff.proposal}), 0, 0)) | write`);
      await waitFor(
        async () =>
          /the companion is not running, so the accept reached no one; your proposal for a\.txt is kept in its buffer \(:w FILE saves it\)/.test(
            await s.messages(),
          ),
        'the message',
        TIMEOUT,
      ).catch(async (err: Error) => {
        throw new Error(`${err.message}; messages: ${await s.messages()}`);
      });
      assert.doesNotMatch(await s.messages(), /E\d+:|cannot be accepted/, 'no raw Vim error, nothing lost');
      const kept = await keptBuffers(s);
      assert.equal(kept.length, 1, `one kept buffer: ${JSON.stringify(kept)}`);
      assert.equal(kept[0]!.buf, diff.proposal, 'the proposal itself, kept');
      assert.equal(kept[0]!.text, EDITED, 'with the edits');
      assert.equal(await s.expr(`bufexists(${diff.original})`), 0, 'the on-disk side is gone');
      assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n');
    } finally {
      await s.close();
    }
  });

  // Issue 21: a CLI that died (kill -9) with its proposal open used to take the proposal, and the user's edits in it, away.
  test(
    'the CLI killed (SIGKILL) while the user edits its proposal: the edits stay in a scratch buffer, said so, the file untouched; the next CLI connects',
    { skip: skipVim || skipUnless(findGeminiCli() !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') },
    async () => {
      const s = await startVim({ files: { 'a.txt': 'on disk\n' } });
      const cli = findGeminiCli()!;
      const start = () => RealIdeClient.start(cli, { cwd: s.workspace, env: ideTerminalEnv({ tmpdir: s.tmp, idePid: s.pid }), timeoutMs: TIMEOUT * 3 });
      let client = await start();
      try {
        await s.discovery();
        assert.equal((await client.connect())['status'], 'connected');
        const file = path.join(s.workspace, 'a.txt');
        client.send({ cmd: 'openDiff', filePath: file, newContent: 'from the model\n' });
        const diff = await waitForDiff(s, file);
        await s.ex(`call setbufline(${diff.proposal}, 1, 'the user edited this')`);
        await client.kill('SIGKILL');
        // Its stream closed and did not reopen: the session ends, and with it the diff.
        await waitFor(async () => (await s.expr<unknown[]>('ide_companion#diff#list()')).length === 0, 'the diff to be closed', TIMEOUT * 2);
        assert.deepEqual(await bufferLines(s, diff.proposal), ['the user edited this'], 'the proposal and its edits stay');
        assert.equal(await s.expr(`getbufvar(${diff.proposal}, '&buftype')`), 'nofile');
        assert.equal(await s.expr(`bufexists(${diff.original})`), 0, 'the on-disk side is gone');
        assert.match(await s.messages(), /the Gemini CLI session that proposed a\.txt went away; the proposal is kept in its buffer \(:w FILE saves it\)/);
        assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n', 'the file on disk is untouched');
        client = await start();
        // Timed from its connect (the CLI's own start is not the companion's): the issue asks for 2 s.
        const started = Date.now();
        assert.equal((await client.connect())['status'], 'connected', 'the next CLI connects');
        assert.ok(Date.now() - started < 2_000, `the next CLI connected in ${Date.now() - started} ms`);
      } finally {
        await client.stop();
        await s.close();
      }
    },
  );

  // Issue 21: accepted, then the CLI killed before it wrote: the accepted text must not go with it.
  test(
    'the CLI killed (SIGKILL) after the user accepted with :w and before it wrote: the accepted text comes back in a kept buffer, said so; the file untouched',
    { skip: skipVim || skipUnless(findGeminiCli() !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') },
    async () => {
      const s = await startVim({ files: { 'a.txt': 'on disk\n' } });
      const cli = findGeminiCli()!;
      const client = await RealIdeClient.start(cli, { cwd: s.workspace, env: ideTerminalEnv({ tmpdir: s.tmp, idePid: s.pid }), timeoutMs: TIMEOUT * 3 });
      try {
        await s.discovery();
        assert.equal((await client.connect())['status'], 'connected');
        const file = path.join(s.workspace, 'a.txt');
        client.send({ cmd: 'openDiff', filePath: file, newContent: 'from the model\n' });
        const diff = await waitForDiff(s, file);
        await s.ex(`call setbufline(${diff.proposal}, 1, 'accepted by the user')`);
        await s.ex(`call win_gotoid(get(win_findbuf(${diff.proposal}), 0, 0)) | write`);
        const result = await client.waitFor((e) => e.event === 'diffResult' && e['filePath'] === file, 'the diff outcome');
        assert.equal(result['result'].status, 'accepted');
        await client.kill('SIGKILL');
        const kept = await waitFor(
          async () =>
            (
              await s.expr<number[]>(
                `filter(range(1, bufnr('$')), {_, b -> bufexists(b) && bufname(b) =~# '^ide-companion://\\d\\+/proposed' && getbufline(b, 1, '$') == ['accepted by the user'] && getbufvar(b, '&buftype') ==# 'nofile'})`,
              )
            )[0],
          'the accepted text back in a buffer',
          TIMEOUT * 2,
        );
        assert.ok(kept > 0, 'kept as a plain buffer (:w FILE saves it)');
        assert.equal((await s.expr<unknown[]>('ide_companion#diff#list()')).length, 0, 'no diff is pending');
        assert.match(await s.messages(), /the Gemini CLI session that proposed a\.txt went away; the proposal is kept in its buffer \(:w FILE saves it\)/);
        assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n', 'the file on disk is untouched');
        // The companion showed the accept again itself: a host dying now must not bring a second copy.
        const { path: before } = await s.discovery();
        process.kill(await s.expr<number>('ide_companion#host#state().hostPid'), 'SIGKILL');
        await waitFor(() => !fs.existsSync(before), "the dead host's discovery file to go", TIMEOUT);
        assert.equal((await keptBuffers(s)).length, 1, 'still one kept buffer');
      } finally {
        await client.stop();
        await s.close();
      }
    },
  );

  // Issue 21: the editor itself killed (kill -9) with a proposal open: its host must not outlive it, nor its files.
  test(
    'Vim killed with SIGKILL with a diff open: the host exits, its discovery file and socket folder go, the file on disk is untouched',
    { skip: skipVim },
    async () => {
      const { s, c } = await startWithClient({ files: { 'a.txt': 'on disk\n' } });
      try {
        const { path: discoveryPath, content } = await s.discovery();
        const file = path.join(s.workspace, 'a.txt');
        await c.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: 'from the model\n' } });
        await waitForDiff(s, file);
        const hostPid = await s.expr<number>('ide_companion#host#state().hostPid');
        process.kill(s.pid, 'SIGKILL');
        await waitFor(() => !processRunning(hostPid), 'the host to exit', 2_000);
        await waitFor(() => !fs.existsSync(discoveryPath), 'the discovery file to go', 2_000);
        assert.equal(fs.existsSync(path.dirname(content.socketPath!)), false, 'its socket folder too');
        assert.equal(fs.readFileSync(file, 'utf8'), 'on disk\n');
      } finally {
        await c.close();
        await s.close();
      }
    },
  );

  test('a missing or too old Node.js, or a missing gemini, is said plainly and Vim keeps working', { skip: skipVimOnly }, async () => {
    const s = await startVim({
      // Any readable file: Node is checked before the host is run.
      vimrc: [
        "let g:ide_companion_host = expand('<sfile>:p')",
        "let g:ide_companion_node = 'no-such-node-binary'",
        "let g:ide_companion_gemini_cmd = ['no-such-gemini']",
      ],
      waitForCompanion: false,
    });
    try {
      await waitFor(async () => /Node\.js is not installed/.test(await s.messages()), 'the message about Node', TIMEOUT).catch(async (err: Error) => {
        throw new Error(`${err.message}; messages: ${await s.messages()}`);
      });
      assert.match(await s.ex('GeminiHealth'), /FAIL Node\.js: `no-such-node-binary` not found/);
      assert.match(await s.ex('Gemini'), /`no-such-gemini` is not installed or not on PATH/);
      assert.equal(await s.expr('len(term_list())'), 0, 'no terminal opened');
      // A node that says it is 18.
      const fake = path.join(s.tmp, 'node18');
      fs.writeFileSync(fake, '#!/bin/sh\necho v18.19.0\n', { mode: 0o755 });
      await s.ex(`let g:ide_companion_node = ${vimString(fake)} | GeminiStart`);
      await waitFor(
        async () => /is Node\.js v18\.19\.0; the companion needs Node\.js 20 or newer/.test(await s.messages()),
        'the message about the old Node',
        TIMEOUT,
      );
      assert.equal((await s.expr<{ status: string }>('ide_companion#host#state()')).status, 'stopped');
      assert.equal(discoveryFileOf(s.discoveryDir, s.pid), undefined);
      assert.equal(await s.expr('mode()'), 'n');
    } finally {
      await s.close();
    }
  });
});
