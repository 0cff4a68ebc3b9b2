/**
 * GitHub Copilot CLI (issue 31), the real pinned CLI, against `ide-companion
 * serve`, offline (a custom provider: testkit's OpenAI-compatible mock, no
 * GitHub sign-in): started in the project, it finds serve through the lock
 * file in COPILOT_HOME/ide and connects over the companion's Unix socket;
 * serve names it; its proposed edit opens in serve's review (open_diff),
 * accepted there it lands, rejected the file is left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COPILOT_AGENT_PROMPT, copilotCommand, findCopilotCli, skipUnless, startOpenAiMock, Tmux, waitFor, which } from '@ide-companion/testkit';
import { serveDirs, startServe } from './support/serveInTmux.js';

const copilot = findCopilotCli();
const skip =
  skipUnless(copilot !== undefined, 'GitHub Copilot CLI 1.0.102', 'run scripts/install-copilot-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

/** Waits until serve's screen has not changed for 3 s (at most 30 s). */
async function settled(serve: Tmux): Promise<void> {
  let last = serve.screen();
  let since = Date.now();
  const deadline = Date.now() + 30_000;
  while (Date.now() - since < 3_000 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = serve.screen();
    if (now !== last) [last, since] = [now, Date.now()];
  }
}

test(
  "copilot in the project connects to ide-companion serve (named GitHub Copilot CLI); its proposed edit accepted in serve's review lands, a rejected one changes nothing",
  { skip, timeout: 240_000 },
  async (t) => {
    const dirs = serveDirs('ide-companion-copilot-serve-');
    const { project } = dirs;
    const home = path.join(dirs.root, 'home');
    fs.mkdirSync(path.join(home, '.copilot'), { recursive: true });
    const file = path.join(project, 'a.txt');
    fs.writeFileSync(file, 'original line\n');
    const model = await startOpenAiMock(
      [
        { text: 'Hello.' },
        { tool: 'edit', args: { path: file, old_str: 'original line', new_str: 'line from the model' } },
        { text: 'Done.' },
        { tool: 'edit', args: { path: file, old_str: 'line from the model', new_str: 'rejected text' } },
        { text: 'Done.' },
      ],
      COPILOT_AGENT_PROMPT,
    );
    const { serve, tui } = await startServe(t, dirs, model, { HOME: home, COPILOT_HOME: path.join(home, '.copilot') }, 'copilot there connects', [180, 50]);
    assert.equal(fs.readdirSync(path.join(home, '.copilot', 'ide')).filter((name) => name.endsWith('.lock')).length, 1, 'serve wrote the lock file');
    tui.start(copilotCommand(copilot!, { home, baseUrl: model.baseUrl }), { cwd: project });
    await serve.waitForText('1 CLI session connected (GitHub Copilot CLI)', 90_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- copilot ---\n${tui.screen()}`);
    });
    // Its folder-trust question first.
    await tui.waitForText('Do you trust the files in this folder?', 60_000);
    tui.keys('Enter');
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    // A first turn: Copilot CLI reloads its MCP servers (the IDE's among them) as its session starts; a diff open then is lost.
    await tui.submit('hello', 10_000);
    await tui.waitForText('Hello.', 60_000);
    await tui.waitForText('MCP Servers reloaded: 1 server connected', 30_000).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await tui.submit('please change a.txt', 10_000);
    await serve.waitForText(`proposes a change to ${file}`, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- copilot ---\n${tui.screen()}`);
    });
    // Copilot CLI 1.0.102 closes and reopens its diff while its IDE connection settles (its dialog re-renders):
    // answer once its own question is up and serve's proposal has stopped changing.
    await tui.waitForText('Do you want to edit', 60_000);
    const written = () => fs.readFileSync(file, 'utf8') === 'line from the model\n';
    // Each accept answers the proposal open then; one the CLI had already replaced is lost with it: accept the new one (at most 4 times).
    for (let attempt = 0; attempt < 4 && !written(); attempt++) {
      await settled(serve);
      serve.type('a');
      await waitFor(written, 'Copilot CLI to write its edit', 8_000).catch(() => undefined);
    }
    await waitFor(written, 'Copilot CLI to write its edit', 10_000).catch((err: Error) => {
      throw new Error(
        `${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- copilot ---\n${tui.screen()}\n--- serve ---\n${serve.screen()}`,
      );
    });

    await tui.waitForText('Done.', 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await tui.submit('once more', 10_000);
    await serve.waitForText('+rejected text', 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- copilot ---\n${tui.screen()}`);
    });
    await settled(serve);
    serve.type('r');
    await serve.waitForText('Rejected', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(fs.readFileSync(file, 'utf8'), 'line from the model\n', 'the rejected edit never reached the file');
  },
);
