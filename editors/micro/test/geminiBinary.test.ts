/**
 * End to end with the real `gemini` 0.61.0 binary, as a user runs it: micro
 * (in tmux) loads the installed plugin, `> ide-agent` opens the CLI in micro's
 * own terminal split; `/ide status` says connected; the cursor and selection
 * the user makes reach the model's prompt; a proposed write opens as a diff
 * the user edits and accepts with Ctrl-S (the user's bytes land); a second one
 * is rejected with `> ide-reject` (the file stays); after each the keyboard is
 * back in the agent's terminal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, geminiEnv, makeGeminiRunDirs, skipUnless, submitLine, waitFor, writeFileTurns, writeGeminiScript } from '@ide-companion/testkit';
import { shownDiffs, skipMicro, startMicro, type MicroSession } from './harness.js';

const cli = findGeminiCli();
const skip = skipMicro || skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const ORIGINAL = 'original line\n';
const EDITED = 'line the user wrote in micro ✓\n';
const CONTEXT_FILE = 'alpha\nbravo charlie\ndelta\n';

/** The keyboard is in the agent's terminal: the first tab's active pane is micro's terminal (no BufPane). */
async function inTerminal(s: MicroSession): Promise<boolean> {
  return s.run<boolean>('return micro.Tabs():Active() == 0 and micro.CurPane() == nil');
}

/** The prompt the CLI sent the model, from the report it writes when the scripted turns run out. */
async function promptSentToModel(tmpdir: string): Promise<string[]> {
  const message = await waitFor(
    () => {
      const report = fs.readdirSync(tmpdir).find((f) => f.startsWith('gemini-client-error-') && f.endsWith('.json'));
      if (!report) return undefined;
      return (JSON.parse(fs.readFileSync(path.join(tmpdir, report), 'utf8')) as { error: { message: string } }).error.message;
    },
    'the CLI to report the model call it could not answer',
    STEP_TIMEOUT_MS,
  );
  const request = JSON.parse(message.slice(message.indexOf('got request:\n') + 'got request:\n'.length)) as {
    contents: Array<{ parts: Array<{ text?: string }> }>;
  };
  return request.contents.flatMap((c) => c.parts.map((p) => p.text ?? ''));
}

test(
  'gemini in `> ide-agent` connects to micro, gets the cursor and selection, and its diffs are edited and accepted, or rejected, in micro',
  { skip, timeout: 8 * 60_000 },
  async (t) => {
    // One write accepted (its call and the model's answer), one rejected (a reject ends the turn); then no turn is left.
    const turns = [...writeFileTurns('a.txt', 'line from the model\n'), ...writeFileTurns('a.txt', 'second proposal\n').slice(0, 1)];
    const dir = makeGeminiRunDirs('ide-companion-micro-e2e-', { files: { 'a.txt': ORIGINAL, 'b.txt': CONTEXT_FILE }, turns });
    let s: MicroSession | undefined;
    t.after(async () => {
      await s?.close();
      dir.cleanup();
    });
    const file = path.join(fs.realpathSync(dir.workspace), 'a.txt');
    const wrapper = writeGeminiScript(path.join(dir.path, 'gemini.sh'), cli!, dir.fakeResponses);
    s = await startMicro({
      dirs: { tmp: dir.tmpdir, workspace: dir.workspace },
      open: ['b.txt'],
      settings: { 'ide_companion.agent': wrapper },
      env: geminiEnv(dir),
    });
    const micro = s;
    const { tmux } = micro;
    await micro.discovery();

    // In b.txt, "bravo" selected on line 2 (micro keeps it as the user goes to the agent); then `> ide-agent`.
    micro.keys('Down');
    micro.keys('-N', '5', 'S-Right');
    micro.keys('C-e');
    micro.type('ide-agent');
    micro.keys('Enter');
    await tmux.waitForText('Type your message', START_TIMEOUT_MS);
    // /ide status until connected (micro's terminal draws the status icon over the space after it, so the line is matched here).
    await waitFor(
      async () => {
        await submitLine(tmux, '/ide status');
        return tmux.waitForText(/Connected to micro/, 5_000).catch(() => undefined);
      },
      '/ide status to say Connected to micro',
      START_TIMEOUT_MS,
    );

    const ask = async (prompt: string) => {
      tmux.type(prompt);
      await tmux.waitForText(prompt, STEP_TIMEOUT_MS);
      tmux.keys('Enter');
    };
    const diffShown = async () => {
      const d = await waitFor(async () => (await shownDiffs(micro)).find((x) => x.path === file), 'the diff', STEP_TIMEOUT_MS).catch((err: Error) => {
        throw new Error(`${err.message}\n--- screen ---\n${tmux.screen()}`);
      });
      // The keyboard went to the proposal, in a tab of its own.
      assert.match(await micro.run<string>('return micro.CurPane().Buf.Path'), /^proposal for a\.txt/);
      return d;
    };

    await ask('please write a.txt');
    assert.equal((await diffShown()).text, 'line from the model\n');
    micro.keys('C-a');
    micro.type(EDITED.trimEnd());
    micro.keys('Enter');
    micro.keys('C-s');
    await waitFor(() => fs.readFileSync(file, 'utf8') === EDITED, "the CLI to write the user's text", STEP_TIMEOUT_MS).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tmux.screen()}`);
    });
    await waitFor(() => inTerminal(micro), 'the keyboard back in the agent terminal after Ctrl-S', STEP_TIMEOUT_MS);
    await tmux.waitForText(/Done\./, STEP_TIMEOUT_MS);

    await ask('write it again');
    assert.equal((await diffShown()).text, 'second proposal\n');
    micro.keys('C-e');
    micro.type('ide-reject');
    micro.keys('Enter');
    await waitFor(() => inTerminal(micro), 'the keyboard back in the agent terminal after ide-reject', STEP_TIMEOUT_MS);
    assert.deepEqual(await shownDiffs(micro), []);
    assert.equal(fs.readFileSync(file, 'utf8'), EDITED);

    // The next prompt, typed where the keyboard is, reaches gemini with b.txt's cursor and selection.
    await ask('what is selected');
    const texts = await promptSentToModel(dir.tmpdir);
    const editorPart = texts.find((text) => text.startsWith("Here is the user's editor context"));
    assert.ok(editorPart, `no editor context in the prompt:\n${texts.join('\n---\n').slice(0, 2000)}`);
    const context = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(editorPart)![1]!) as {
      activeFile?: { path: string; cursor?: { line: number; character: number }; selectedText?: string };
    };
    assert.equal(context.activeFile?.path, path.join(fs.realpathSync(dir.workspace), 'b.txt'));
    assert.equal(context.activeFile?.selectedText, 'bravo');
    assert.equal(context.activeFile?.cursor?.line, 2);
  },
);
