/** Starting and stopping the companion from Vim, terminals tied to their Vim, and what the user is told when Node or gemini are missing. */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertServesSocket, findGeminiCli, ideTerminalEnv, processRunning, RealIdeClient, skipUnless, waitFor } from '@ide-companion/testkit';
import {
  bufferLines,
  connectFromDiscovery,
  discoveryFileOf,
  skipVim,
  skipVimOnly,
  startVim,
  startWithClient,
  TIMEOUT,
  type VimSession,
  vimString,
  waitForDiff,
} from './harness.js';

function envFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (line.startsWith('GEMINI_CLI_IDE_') && eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

/** Runs `env > FILE` in a :terminal of `s`, as a user would type :terminal. */
async function terminalEnv(s: VimSession, name: string): Promise<Record<string, string>> {
  const file = path.join(s.tmp, name);
  const script = path.join(s.tmp, `${name}.sh`);
  fs.writeFileSync(script, `env > '${file}.tmp' && mv '${file}.tmp' '${file}'\n`);
  await s.ex(`terminal ++close sh ${script}`);
  await waitFor(() => fs.existsSync(file), `the env of ${name}`, TIMEOUT);
  return envFile(file);
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
      const env = envFile(file);
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
        assert.match(await s.ex('GeminiStatus'), new RegExp(`running on 127\\.0\\.0\\.1:${second.content.port}`));
        const health = await s.ex('GeminiHealth');
        assert.match(health, /OK +Node\.js v\d+/);
        assert.match(health, /OK +companion running/);
        assert.match(health, /OK +discovery file/);
        assert.ok(health.includes(`OK    socket ${second.content.socketPath}: for gemini in a container`), 'the socket is shown');
        assert.ok(!health.includes(second.content.authToken), 'no token in the health report');
        await assertServesSocket(second.path);
        assert.equal(fs.existsSync(first.content.socketPath!), false, "the stopped companion's socket is gone");
        // :GeminiEnv prints what a shell outside Vim needs (a tmux pane beside it).
        const exports = await s.ex('GeminiEnv');
        assert.match(exports, new RegExp(`export GEMINI_CLI_IDE_PID='${s.pid}'`));
        assert.match(exports, new RegExp(`export GEMINI_CLI_IDE_SERVER_PORT='${second.content.port}'`));
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
        assert.equal((await client.connect())['status'], 'connected', 'the next CLI connects');
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
      assert.match(await s.ex('GeminiHealth'), /ERROR Node\.js: `no-such-node-binary` not found/);
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
