/**
 * Issue 30: after every way a diff ends (Ctrl+S, "Reject Proposed Change",
 * Ctrl+W on its tab, the CLI's own answer), the keyboard is back in the
 * terminal where gemini runs when that is where the user was before it opened.
 * Walked as a user does in a real code-server: "Gemini CLI: Run", the real
 * `gemini` (scripted turns), every key typed, and the next prompt (/ide
 * status) seen to reach the agent.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  findGeminiCli,
  geminiArgv,
  geminiEnv,
  HEADLESS_TRIGGER_ENV,
  makeGeminiRunDirs,
  shellCommand,
  skipUnless,
  sleep,
  waitFor,
  writeFileTurns,
} from '@ide-companion/testkit';
import { CHROMIUM, CodeServer, hasCodeServer } from './codeServer.js';
import { activeElementIsTerminal, diffTabCount, terminalText } from './workbench.js';

const cli = findGeminiCli();
const skip =
  skipUnless(hasCodeServer, 'code-server 4.100.3', 'run scripts/install-code-server.sh') ||
  skipUnless(CHROMIUM !== undefined, 'chromium', 'apt-get install -y chromium') ||
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

const CLI_START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
/** Long enough for a focus change, short enough to fail fast. */
const FOCUS_TIMEOUT_MS = 5_000;

describe('VS Code: the keyboard after a diff ends', { skip, timeout: 10 * 60_000 }, () => {
  let cs: CodeServer;
  const dirs = makeGeminiRunDirs('ide-companion-vscode-focus-', {
    files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'd.txt': 'd\n' },
    turns: [
      ...writeFileTurns('a.txt', 'a from the model\n'),
      // A rejected write ends the turn: no model answer follows it.
      ...writeFileTurns('b.txt', 'b from the model\n').slice(0, 1),
      ...writeFileTurns('c.txt', 'c from the model\n').slice(0, 1),
      ...writeFileTurns('d.txt', 'd from the model\n'),
    ],
  });

  before(async () => {
    cs = new CodeServer();
    await cs.start();
  });

  after(async () => {
    await cs?.stop();
    dirs.cleanup();
  });

  test('after Ctrl+S, Reject, Ctrl+W and the CLI’s own answer the keyboard is in gemini’s terminal: the next prompt typed reaches gemini', async (t) => {
    const wrapper = path.join(dirs.path, 'gemini.sh');
    fs.writeFileSync(
      wrapper,
      `#!/bin/sh\nexec ${shellCommand(geminiArgv(cli!, dirs.fakeResponses), geminiEnv({ home: dirs.home, tmpdir: cs.tmpdir }), HEADLESS_TRIGGER_ENV)} "$@"\n`,
      { mode: 0o755 },
    );
    const w = await cs.openWindow(dirs.workspace);
    t.after(() => w.close().catch(() => undefined));
    await w.eval(`await vscode.workspace.getConfiguration('ideCompanion').update('geminiCommand', args.wrapper, vscode.ConfigurationTarget.Global);`, {
      wrapper,
    });
    const palette = async (command: string) => {
      await w.page.keyboard.press('F1');
      await w.page.locator('.quick-input-widget input').waitFor({ timeout: STEP_TIMEOUT_MS });
      await w.page.keyboard.type(command);
      await w.page.locator('.quick-input-list .monaco-list-row', { hasText: command }).first().waitFor({ timeout: STEP_TIMEOUT_MS });
      await w.page.keyboard.press('Enter');
    };
    const screen = () => terminalText(w.page);
    const fail = async (err: Error) => {
      throw new Error(`${err.message}\n--- terminal ---\n${await screen().catch(() => '')}`);
    };
    await palette('Gemini CLI: Run');
    const OFFER = /terminal keybindings\?/;
    const first = await waitFor(
      async () => {
        const text = await screen();
        return OFFER.test(text) ? 'offer' : text.includes('Type your message') ? 'prompt' : undefined;
      },
      'gemini to start',
      CLI_START_TIMEOUT_MS,
      250,
    ).catch(fail);
    if (first === 'offer' || (await waitFor(async () => OFFER.test(await screen()), 'the keybinding offer', 5_000, 250).catch(() => false))) {
      await w.page.keyboard.press('ArrowDown');
      await w.page.keyboard.press('Enter');
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      while (OFFER.test(await screen())) {
        if (Date.now() > deadline) await fail(new Error('timed out waiting for the offer to go'));
        await sleep(2_000);
        const text = await screen();
        if (OFFER.test(text) && /● 2\. No/.test(text)) await w.page.keyboard.press('Enter');
      }
    }
    await waitFor(async () => (await screen()).includes('Type your message'), 'the prompt', STEP_TIMEOUT_MS, 250).catch(fail);
    /** Types `line` where the keyboard is, waits to see it in the terminal, then Enter. */
    const submit = async (line: string) => {
      const before = (await screen()).split(line).length;
      await w.page.keyboard.type(line);
      await waitFor(async () => (await screen()).split(line).length > before, `"${line}" typed in gemini's terminal`, STEP_TIMEOUT_MS, 100).catch(fail);
      await w.page.keyboard.press('Enter');
    };
    const deadline = Date.now() + CLI_START_TIMEOUT_MS;
    for (;;) {
      await submit('/ide status');
      const text = await waitFor(
        async () => {
          const s = await screen();
          return /Connected to code-server|Disconnected|Connecting/.test(s) ? s : undefined;
        },
        '/ide status',
        STEP_TIMEOUT_MS,
        250,
      ).catch(fail);
      if (/Connected to code-server/.test(text)) break;
      if (Date.now() > deadline) throw new Error(`never connected:\n${text}`);
      await sleep(1000);
    }

    const ends: Array<[string, string, () => Promise<void>]> = [
      ['a.txt', 'Ctrl+S', () => w.page.keyboard.press('Control+s')],
      ['b.txt', 'Reject Proposed Change', () => palette('Gemini CLI: Reject Proposed Change')],
      ['c.txt', 'Ctrl+W', () => w.page.keyboard.press('Control+w')],
      // The user stays in the terminal and answers the CLI's own question there.
      ['d.txt', "the CLI's own answer", () => w.page.keyboard.press('Enter')],
    ];
    for (const [file, how, end] of ends) {
      const filePath = path.join(dirs.workspace, file);
      await submit(`please write ${file}`);
      await waitFor(async () => (await w.api()).pendingDiffs.some((d) => d.filePath === filePath), `the diff of ${file}`, STEP_TIMEOUT_MS, 250).catch(fail);
      await waitFor(async () => (await diffTabCount(w)) === 1, 'the diff tab', STEP_TIMEOUT_MS);
      assert.equal(await activeElementIsTerminal(w.page), true, "the diff must not take the keyboard from gemini's terminal");
      if (file === 'd.txt')
        await waitFor(async () => /Apply this change\?|Allow once/i.test(await screen()), "the CLI's question", STEP_TIMEOUT_MS, 250).catch(fail);
      // The user goes to the proposal (but for the CLI's own answer), then ends the diff.
      else await w.page.locator('.editor-instance .editor.modified .view-lines').first().click();
      await end();
      await waitFor(
        async () => (await w.api()).pendingDiffs.length === 0 && (await diffTabCount(w)) === 0,
        `the diff ended by ${how}`,
        STEP_TIMEOUT_MS,
        250,
      ).catch(fail);
      await waitFor(() => activeElementIsTerminal(w.page), `the keyboard in gemini's terminal after ${how}`, FOCUS_TIMEOUT_MS, 100).catch(
        async (err: Error) => {
          const active = await w.page.evaluate<string>('document.activeElement?.className ?? "none"');
          await fail(new Error(`${err.message}; the keyboard is in ${active}`));
        },
      );
      if (file === 'a.txt' || file === 'd.txt')
        await waitFor(() => fs.readFileSync(filePath, 'utf8') === `${file[0]} from the model\n`, `gemini wrote ${file}`, STEP_TIMEOUT_MS, 100).catch(fail);
      // Let the CLI finish its turn, then the user's next prompt, typed: gemini answers it below this turn.
      await waitFor(async () => (await screen()).includes('Type your message'), 'the prompt back', STEP_TIMEOUT_MS, 250).catch(fail);
      await submit('/ide status');
      await waitFor(
        async () => /Connected to code-server/.test((await screen()).split(`please write ${file}`).at(-1)!),
        'gemini to answer /ide status',
        STEP_TIMEOUT_MS,
        250,
      ).catch(fail);
    }
    assert.equal(fs.readFileSync(path.join(dirs.workspace, 'b.txt'), 'utf8'), 'b\n');
    assert.equal(fs.readFileSync(path.join(dirs.workspace, 'c.txt'), 'utf8'), 'c\n');
    await w.eval(`for (const t of vscode.window.terminals) t.dispose();`);
  });
});
