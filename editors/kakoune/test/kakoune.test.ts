/**
 * The Kakoune end's own tests: its installer, its quoting (hostile names and text through the real kak),
 * and the real Gemini CLI run from :ide-terminal in tmux, as a user runs it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  assertLeavesForeignFolder,
  assertUninstallLeavesTheHome,
  connectRecordingClient,
  findGeminiCli,
  functionCallTurn,
  makeGeminiHome,
  makeTempDir,
  repoRoot,
  skipUnless,
  submitLine,
  waitFor,
  waitIdeConnected,
  writeFakeResponses,
  writeFileTurns,
  writeGeminiScript,
} from '@ide-companion/testkit';
import { kakouneInstaller, kakouneTarget } from '../src/installer.js';
import { kq, proposalBuffer, skipKak, startKak, TIMEOUT, type KakSession } from './driver.js';

const cli = findGeminiCli();
const STEP_MS = 90_000;

function installByCli(env: NodeJS.ProcessEnv, verb: 'install' | 'uninstall'): void {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js'), verb, 'kakoune'], { env, encoding: 'utf8' });
  assert.equal(r.status, 0, `${verb}: ${r.stdout}${r.stderr}`);
}

test('install kakoune: into the autoload folder with the standard library linked when it makes that folder; uninstall leaves the home as it was', async () => {
  const dir = makeTempDir('ide-companion-kak-install-');
  try {
    const env = { ...process.env, HOME: dir.path, XDG_CONFIG_HOME: '', KAKOUNE_CONFIG_DIR: '' };
    const target = kakouneTarget(env);
    assert.equal(target, path.join(dir.path, '.config', 'kak', 'autoload', 'ide-companion'));
    installByCli(env, 'install');
    for (const f of ['ide-companion.kak', 'kak-bridge.mjs', 'host/ide-companion-bridge.mjs', 'host/chunks/sdk.mjs'])
      assert.ok(fs.existsSync(path.join(target, f)), f);
    const link = path.join(path.dirname(target), 'standard-library');
    assert.ok(fs.existsSync(path.join(link, 'windowing', 'tmux.kak')), 'the link leads to Kakoune’s own autoload');
    installByCli(env, 'uninstall');
    assert.deepEqual(fs.readdirSync(dir.path), [], 'nothing install made stays');
    // The checks every installer passes: twice then uninstalled, with and without the user's ~/.config/kak.
    await assertUninstallLeavesTheHome(kakouneInstaller, env, dir.path, target, path.join(dir.path, '.config', 'kak'));
    // An autoload folder of the user's: no link added, and it stays with what the user put there.
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(path.join(path.dirname(target), 'mine.kak'), '');
    installByCli(env, 'install');
    assert.equal(fs.existsSync(link), false);
    installByCli(env, 'uninstall');
    assert.deepEqual(fs.readdirSync(path.dirname(target)), ['mine.kak']);
    await assertLeavesForeignFolder(kakouneInstaller, env, target, /was not written by this installer/);
  } finally {
    dir.cleanup();
  }
});

/** Names and text that would run something if they ever became a command. */
const HOSTILE = [`it's %sh{touch PWNED1} ''; echo-pwn`, `%{ nop } ' ; evaluate-commands %sh{touch PWNED2}`, `$(touch PWNED3) \`touch PWNED4\``];
const HOSTILE_TEXT = `${HOSTILE.join('\n')}\nline\twith\x01\x1b[31mcontrol\x7f and ''quotes'' ✓ 😀\n\nno final newline %arg{1}`;

test(
  'hostile names and text go through the real kak as data: shown, edited, accepted and selected byte for byte, nothing run',
  { skip: skipKak, timeout: 120_000 },
  async () => {
    const name = `${HOSTILE[0]}.txt`;
    const s = await startKak({ [name]: HOSTILE_TEXT });
    try {
      const file = path.join(s.workspace, name);
      const discovery = JSON.parse(fs.readFileSync(await discoveryFile(s), 'utf8')) as { port: number; authToken: string };
      const client = await connectRecordingClient({ port: discovery.port, token: discovery.authToken });
      const outcome = client.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: HOSTILE_TEXT } });
      const buf = await waitFor(() => proposalBuffer(s, file), 'the proposal', TIMEOUT);
      assert.equal((await s.read('%val{selection}', `-buffer ${kq(buf)}`, "execute-keys '%'"))[0], `${HOSTILE_TEXT}\n`, 'shown as proposed');
      // The user adds to it; the accept carries it back exactly (no final newline, as proposed).
      s.run(`buffer ${kq(buf)}; execute-keys 'gjgl'; set-register dquote ' %sh{touch PWNED5}'; execute-keys 'p'; ide-accept`);
      const accepted = await waitFor(() => client.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the accept', TIMEOUT);
      assert.equal((accepted.params as { content: string }).content, `${HOSTILE_TEXT} %sh{touch PWNED5}`);
      await outcome;
      // The whole file selected: the host reads the selection's text from kak as it is.
      s.run(`edit -existing ${kq(file)}; execute-keys '%'; ide-pos`);
      await waitFor(
        () => client.notifications.find((n) => (n.params as any)?.workspaceState?.openFiles?.[0]?.selectedText === `${HOSTILE_TEXT}\n`),
        'the selected text',
        TIMEOUT,
      );
      assert.equal((await s.read('%val{buffile}'))[0], file, 'a hostile file name opens as itself');
      for (const n of [1, 2, 3, 4, 5])
        assert.equal(spawnSync('find', ['/tmp', s.workspace, '-name', `PWNED${n}`], { encoding: 'utf8' }).stdout, '', `PWNED${n}`);
      await s.read('%val{session}');
      await client.close();
    } finally {
      await s.close();
    }
  },
);

async function discoveryFile(s: KakSession): Promise<string> {
  const dir = path.join(s.tmp, 'gemini', 'ide');
  return path.join(dir, await waitFor(() => (fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.json')) : undefined), 'discovery', TIMEOUT));
}

const ORIGINAL = 'alpha\nbravo charlie\ndelta echo\n';
const EDITED = 'written by the user in Kakoune ✓';

test(
  'the real Gemini CLI from :ide-terminal in tmux: connected, a diff edited and accepted, one rejected, the user back where they were, the context in the model request',
  { skip: skipKak || skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh'), timeout: 8 * 60_000 },
  async () => {
    let wrapper = '';
    const s = await startKak(
      { 'a.txt': ORIGINAL },
      {
        open: ['a.txt'],
        // As the user runs it: plain kak, the plugin installed by `ide-companion install kakoune`.
        command: (session) => `kak -s ${session}`,
        env: { GEMINI_API_KEY: 'dummy', REMOTE_CONTAINERS: '1' },
        setup: (env) => {
          installByCli({ ...process.env, ...env }, 'install');
          makeGeminiHome(env['HOME']!);
          const turns = path.join(env['TMPDIR']!, 'turns.jsonl');
          writeFakeResponses(turns, [
            ...writeFileTurns('a.txt', 'from the model\n'),
            // A reject cancels the turn: no answer to it is asked for.
            functionCallTurn('write_file', { file_path: 'a.txt', content: 'rejected\n' }),
          ]);
          wrapper = writeGeminiScript(path.join(env['TMPDIR']!, 'gemini.sh'), cli!, turns);
        },
      },
    );
    const { tmux } = s;
    const pane = (n: number) => spawnSync('tmux', ['-L', tmux.socket, 'select-pane', '-t', `main.${n}`]);
    const screen = (n: number) => spawnSync('tmux', ['-L', tmux.socket, 'capture-pane', '-p', '-t', `main.${n}`], { encoding: 'utf8' }).stdout;
    const file = path.join(s.workspace, 'a.txt');
    const where = async () => (await s.read('%val{bufname} %val{selections_desc}')).join(' ');
    try {
      tmux.type(`:ide-terminal ${wrapper}`);
      tmux.keys('Enter');
      await tmux.waitForText('Type your message', STEP_MS);
      assert.match((await waitIdeConnected(tmux, STEP_MS)).status, /Connected to Kakoune/);
      // The user selects "bravo" in Kakoune, then asks in the agent's pane.
      pane(0);
      tmux.type('2ge');
      await waitFor(async () => (await where()) === 'a.txt 2.1,2.5', 'the selection', TIMEOUT);
      for (const [prompt, ending] of [
        ['please write a.txt', 'accept'],
        ['write it again', 'reject'],
      ] as const) {
        const before = await where();
        pane(1);
        await submitLine(tmux, prompt);
        await waitFor(() => proposalBuffer(s, file), 'the proposal in Kakoune', STEP_MS).catch((err: Error) => {
          throw new Error(`${err.message}\n--- agent ---\n${screen(1)}\n--- kak ---\n${screen(0)}`);
        });
        pane(0);
        if (ending === 'accept') {
          tmux.type('%c' + EDITED);
          tmux.keys('Escape');
          tmux.type(':ide-accept');
        } else tmux.type(':ide-reject');
        tmux.keys('Enter');
        await waitFor(async () => (await where()) === before, `back in a.txt with the selection after ${ending}`, TIMEOUT).catch(async (err: Error) => {
          throw new Error(`${err.message}: ${await where()}`);
        });
        await waitFor(() => fs.readFileSync(file, 'utf8') === `${EDITED}\n`, "the user's text in a.txt", STEP_MS);
        // The buffer is reread after the CLI's write, unmodified.
        const reread = async () => (await s.read('%val{modified} %val{selection}', '-buffer a.txt', "execute-keys '%'")).join(' ') === `false ${EDITED}\n`;
        await waitFor(reread, 'a.txt reread', STEP_MS);
      }
      // The cursor and a selection made now reach the model: the third prompt has no scripted turn left, and the CLI's report holds its request.
      tmux.type('gg/by');
      tmux.keys('Enter');
      await waitFor(async () => (await where()) === 'a.txt 1.9,1.10', 'the new selection', TIMEOUT);
      pane(1);
      await submitLine(tmux, 'what is selected');
      const request = await waitFor(
        () => {
          const report = fs.readdirSync(s.tmp).find((f) => f.startsWith('gemini-client-error-'));
          const message = report && (JSON.parse(fs.readFileSync(path.join(s.tmp, report), 'utf8')) as { error: { message: string } }).error.message;
          return message?.includes('got request:\n') ? message.slice(message.indexOf('got request:\n') + 13) : undefined;
        },
        'the model request',
        STEP_MS,
      ).catch((err: Error) => {
        throw new Error(`${err.message} in ${fs.readdirSync(s.tmp).join(' ')}\n--- agent ---\n${screen(1)}`);
      });
      const texts = (JSON.parse(request) as { contents: Array<{ parts: Array<{ text?: string }> }> }).contents.flatMap((c) => c.parts.map((p) => p.text ?? ''));
      const editorPart = texts.findLast((text) => text.startsWith("Here is the user's editor context"));
      assert.ok(editorPart, `no editor context in the prompt:\n${texts.join('\n---\n').slice(0, 2000)}`);
      const { activeFile } = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(editorPart)![1]!) as {
        activeFile: { path: string; cursor: { line: number }; selectedText?: string };
      };
      assert.equal(activeFile.path, file);
      assert.equal(activeFile.cursor.line, 1);
      assert.equal(activeFile.selectedText, 'by');
    } finally {
      await s.close();
    }
  },
);
