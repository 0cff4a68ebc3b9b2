/**
 * Issue 39, with an agent other than Gemini CLI connected (GitHub Copilot
 * CLI, through its own face: testkit's client speaks as the CLI does):
 * - Emacs named Gemini for every agent: its status said "listening ... for
 *   Gemini CLI", its mode line `Gemini[1]`, its ediff buffers `*gemini
 *   original: a.txt*`. Now each names the agent the host says the session and
 *   the diff belong to.
 * - Quitting Emacs with the agent connected left Codex CLI's socket behind
 *   (5 of 6 quits): the stop waited for the discovery file only, then killed
 *   the host in the middle of its stop. Now it waits (bounded) for its exit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectCopilotClient, makeTempDir, processRunning, waitFor } from '@ide-companion/testkit';
import { skipEmacsInTmux } from './emacs.js';
import { elispString, startEmacs, TIMEOUT, waitForProposalBuffer } from './harness.js';

const skip = skipEmacsInTmux;

/** Emacs serving Copilot CLI and Codex CLI from folders of the test's own, and a Copilot session connected to it. */
async function withCopilot(t: import('node:test').TestContext, files: Record<string, string> = {}) {
  const homes = makeTempDir('ide-companion-emacs-agents-');
  const copilotHome = path.join(homes.path, 'copilot');
  const codexHome = path.join(homes.path, 'codex');
  const emacs = await startEmacs({ files, env: { COPILOT_HOME: copilotHome, CODEX_HOME: codexHome } });
  t.after(async () => {
    await emacs.close();
    homes.cleanup();
  });
  await emacs.discovery();
  const lockDir = path.join(copilotHome, 'ide');
  const lockFile = await waitFor(() => fs.readdirSync(lockDir).find((f) => f.endsWith('.lock')), "Copilot CLI's lock file", TIMEOUT);
  const copilot = await connectCopilotClient(JSON.parse(fs.readFileSync(path.join(lockDir, lockFile), 'utf8')));
  t.after(() => copilot.close());
  await waitFor(async () => (await emacs.evalJson<string>('(ide-companion--status-text)')).includes('1 session connected'), 'the session in Emacs', TIMEOUT);
  return { emacs, copilot, lockFile: path.join(lockDir, lockFile), codexSocket: path.join(codexHome, 'ipc', 'ipc.sock') };
}

test("with a Copilot CLI session, Emacs's status, mode line and diff buffers name Copilot, not Gemini", { skip, timeout: 120_000 }, async (t) => {
  const { emacs, copilot } = await withCopilot(t, { 'a.txt': 'one\n' });
  const status = await emacs.evalJson<string>('(ide-companion--status-text)');
  assert.match(
    status,
    /^ide-companion: listening on port \d+ for Gemini CLI, .*GitHub Copilot CLI.*; 1 session connected \(GitHub Copilot CLI\); discovery file /,
  );
  assert.equal(await emacs.evalJson<string>("(format-mode-line (cadr (assq 'ide-companion-mode minor-mode-alist)))"), ' Copilot[1]');

  const file = path.join(emacs.workspace, 'a.txt');
  const answer = copilot.client.callTool({ name: 'open_diff', arguments: { original_file_path: file, new_file_contents: 'two\n', tab_name: 'a.txt (1)' } });
  const proposal = await waitForProposalBuffer(emacs, TIMEOUT, file);
  assert.equal(proposal, '*GitHub Copilot CLI proposal: a.txt*');
  assert.equal(
    await emacs.evalJson<string>(
      `(let (name) (maphash (lambda (_id d) (setq name (buffer-name (ide-companion--diff-original d)))) ide-companion--diffs) name)`,
    ),
    '*GitHub Copilot CLI original: a.txt*',
  );
  await emacs.eval(`(with-current-buffer ${elispString(proposal)} (ide-companion-reject))`);
  assert.match(JSON.stringify(await answer), /REJECTED/);

  await copilot.close();
  await waitFor(async () => (await emacs.evalJson<string>('(ide-companion--status-text)')).includes('0 sessions connected;'), 'the session gone', TIMEOUT);
  assert.equal(await emacs.evalJson<string>("(format-mode-line (cadr (assq 'ide-companion-mode minor-mode-alist)))"), ' IDE');
});

test(
  'C-x C-c with a Copilot CLI session connected: the host exits cleanly, no socket or lock file left, 5 quits of 5',
  { skip, timeout: 300_000 },
  async (t) => {
    for (let round = 1; round <= 5; round++) {
      await t.test(`quit ${round}`, async (t) => {
        const { emacs, lockFile, codexSocket } = await withCopilot(t);
        const { content, path: discoveryFile } = await emacs.discovery();
        assert.ok(fs.existsSync(codexSocket) && fs.existsSync(lockFile), "the host's socket and lock file, before");
        const quit = Date.now();
        emacs.tmux.keys('C-x', 'C-c');
        // Gone, or a zombie not reaped yet.
        await waitFor(() => !processRunning(emacs.pid), 'Emacs to exit', TIMEOUT).catch((err: Error) => {
          throw new Error(`${err.message}\n--- screen ---\n${emacs.tmux.screen()}`);
        });
        t.diagnostic(`C-x C-c to Emacs gone: ${Date.now() - quit} ms (the host's exit waited for, at most 5 s)`);
        const left = [codexSocket, lockFile, discoveryFile, content.socketPath ?? ''].filter((f) => f && fs.existsSync(f));
        assert.deepEqual(left, [], 'nothing of the host is left once Emacs is gone');
      });
    }
  },
);
