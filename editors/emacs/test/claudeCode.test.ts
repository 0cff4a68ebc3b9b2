/**
 * Claude Code (issue 19), the real pinned CLI, against the companion this
 * Emacs runs: only the lock file and WebSocket of the Claude face. Started
 * with --ide in the workspace it connects (the doctor lists it), its request
 * carries Emacs's region, and its proposed write, edited in the proposal
 * buffer and accepted, lands byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  claudeCommand,
  claudeProposeWriteTurns,
  claudeSubmit,
  findClaudeCode,
  makeClaudeHome,
  makeTempDir,
  skipUnless,
  startAnthropicMock,
  Tmux,
  waitClaudeIdeConnected,
  waitFor,
  which,
} from '@ide-companion/testkit';
import { emacsclientPath, hasEmacs } from './emacs.js';
import { elispString, startEmacs, TIMEOUT, waitForProposalBuffer } from './harness.js';

const claude = findClaudeCode();
const skip =
  skipUnless(hasEmacs && emacsclientPath !== undefined, 'emacs and emacsclient', 'apt-get install -y emacs-nox') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux') ||
  skipUnless(claude !== undefined, 'Claude Code 2.1.332', 'run scripts/install-claude-code.sh');

test(
  'Claude Code connects to this Emacs and sees its region; its proposed write, edited in the proposal buffer and accepted, lands byte for byte',
  { skip, timeout: 240_000 },
  async (t) => {
    const dirs = makeTempDir('ide-companion-emacs-claude-');
    const { home, claudeDir } = makeClaudeHome(path.join(dirs.path, 'home'), []);
    const emacs = await startEmacs({ files: { 'a.txt': 'original line\n' }, open: ['a.txt'], env: { CLAUDE_CONFIG_DIR: claudeDir } });
    const file = path.join(emacs.workspace, 'a.txt');
    makeClaudeHome(home, [emacs.workspace]);
    const model = await startAnthropicMock(claudeProposeWriteTurns(file, 'line from the model\n'));
    const tui = new Tmux(160, 50);
    t.after(async () => {
      await tui.stop();
      await model.close();
      await emacs.close();
      dirs.cleanup();
    });
    const { content } = await emacs.discovery();
    assert.ok(fs.existsSync(path.join(claudeDir, 'ide', `${content.port}.lock`)), "Emacs's host wrote the lock file");
    tui.start(claudeCommand(claude!, { home, baseUrl: model.baseUrl }), { cwd: emacs.workspace });
    assert.match(await waitClaudeIdeConnected(tui, 'Emacs'), /Emacs/);
    const doctor = await waitFor(
      async () => {
        const text = await emacs.evalJson<string>('(string-join (ide-companion--doctor-lines) "\\n")');
        return text.includes('(Claude Code)') ? text : undefined;
      },
      'the doctor to list Claude Code',
      TIMEOUT,
    );
    assert.match(doctor, /agents served: Gemini CLI, Qwen Code, Claude Code/);
    // The user marks "line" in a.txt before asking.
    emacs.tmux.keys('M-<', 'M-f', 'C-f', 'C-Space', 'M-f');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await claudeSubmit(tui, 'please change a.txt');
    const proposal = await waitForProposalBuffer(emacs, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n--- screen ---\n${tui.screen()}`);
    });
    const edited = 'the user’s line 😀\nno final newline';
    await emacs.eval(`(with-current-buffer ${elispString(proposal)} (erase-buffer) (insert ${elispString(edited)}) (ide-companion-accept))`);
    await waitFor(() => fs.readFileSync(file, 'utf8') === edited, "Claude Code to write the user's text", TIMEOUT * 2).catch((err: Error) => {
      throw new Error(`${err.message}; a.txt holds ${JSON.stringify(fs.readFileSync(file, 'utf8'))}\n--- screen ---\n${tui.screen()}`);
    });
    assert.ok((model.agentRequests()[0] ?? '').includes(`The user selected the lines 1 to 1 from ${file}:\\nline\\n`), "Emacs's region reaches the model");
  },
);
