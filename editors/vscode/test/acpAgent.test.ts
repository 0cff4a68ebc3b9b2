/**
 * "ide-companion: Run ACP Agent" from the palette of a real code-server runs
 * an ACP agent (the real Gemini CLI 0.61.0 `--acp`, scripted turns, its own
 * IDE mode off) under `ide-companion agent` (found on PATH: the installed
 * extension is no clone) in a terminal of this window: it connects to this
 * window, and the write it proposes opens VS Code's diff, where the user's
 * edit accepted with the title-bar button lands byte for byte.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findGeminiCli, geminiEnv, makeGeminiRunDirs, makeTempDir, repoRoot, waitFor, writeAcpGeminiScript, writeFileTurns } from '@ide-companion/testkit';
import { CodeServer, skipCodeServerWithGemini } from './codeServer.js';
import { diffTabCount, palette, terminalUi } from './workbench.js';

const cli = findGeminiCli();
const skip = skipCodeServerWithGemini();
const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const EDITED = 'line the user wrote in VS Code ✓\n';

let cs: CodeServer;
const bin = makeTempDir('ide-companion-vscode-acp-bin-');
const dirs = makeGeminiRunDirs('ide-companion-vscode-acp-', {
  files: { 'a.txt': 'original line\n' },
  turns: writeFileTurns('a.txt', 'line from the model\n', 'Wrote it.'),
});

before(async () => {
  if (skip) return;
  fs.symlinkSync(path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js'), path.join(bin.path, 'ide-companion'));
  cs = new CodeServer({ env: { PATH: `${bin.path}${path.delimiter}${process.env['PATH'] ?? ''}` } });
  await cs.start();
});

after(async () => {
  await cs?.stop();
  bin.cleanup();
  dirs.cleanup();
});

test(
  'VS Code: "Run ACP Agent" runs an ACP agent connected to this window; its write opens the diff and the edited accept lands',
  { skip, timeout: 10 * 60_000 },
  async () => {
    const w = await cs.openWindow(dirs.workspace);
    const script = writeAcpGeminiScript(dirs, cli!, geminiEnv({ home: dirs.home, tmpdir: cs.tmpdir }));
    await w.eval(`await vscode.workspace.getConfiguration('ideCompanion').update('agentCommand', [args.script], vscode.ConfigurationTarget.Global);`, {
      script,
    });
    const term = terminalUi(w);
    const fail = async (err: Error): Promise<never> => {
      const toasts = await w.page.evaluate<string>("[...document.querySelectorAll('.notification-toast')].map((e) => e.innerText).join('\\n')").catch(() => '');
      const terminals = await w.eval<string[]>('return vscode.window.terminals.map((t) => t.name)').catch(() => []);
      throw new Error(`${err.message}\n--- terminals: ${terminals.join(', ')}; notifications:\n${toasts}\n--- terminal ---\n${await term.screen()}`);
    };
    await palette(w, 'ide-companion: Run ACP Agent');
    await waitFor(
      async () => (await term.screen()).includes('IDE: connected to code-server') || undefined,
      'connected to this window',
      START_TIMEOUT_MS,
      250,
    ).catch(fail);
    await waitFor(async () => (await term.screen()).includes('[agent: ') || undefined, 'the agent started', START_TIMEOUT_MS, 250).catch(fail);
    await term.type('please write a.txt');
    await term.keys('Enter');
    const diff = await waitFor(async () => (await w.api()).pendingDiffs[0], 'the diff', STEP_TIMEOUT_MS, 250).catch(fail);
    assert.equal(diff.filePath, path.join(fs.realpathSync(dirs.workspace), 'a.txt'));
    await waitFor(async () => (await diffTabCount(w)) === 1, 'the diff tab', STEP_TIMEOUT_MS, 250);
    const proposal = () =>
      w.eval<string | null>(
        `return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'ide-companion-proposal' && d.uri.query === args.id)?.getText() ?? null;`,
        {
          id: diff.id,
        },
      );
    assert.equal(await waitFor(async () => (await proposal()) ?? undefined, "the proposal's document", STEP_TIMEOUT_MS, 250), 'line from the model\n');
    // The user replaces the proposal (VS Code's edit API, as an edit command would) and clicks Accept.
    await w.eval(
      `const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'ide-companion-proposal' && d.uri.query === args.id);
     const edit = new vscode.WorkspaceEdit();
     edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), args.text);
     if (!(await vscode.workspace.applyEdit(edit))) throw new Error('the edit failed');`,
      { id: diff.id, text: EDITED },
    );
    await w.page.locator('[aria-label^="Accept Proposed Change"]').first().click();
    await waitFor(async () => (await term.screen()).includes('Wrote it.') || undefined, 'the turn after the write', STEP_TIMEOUT_MS, 250).catch(fail);
    assert.equal(fs.readFileSync(diff.filePath, 'utf8'), EDITED);
    await w.eval(`for (const t of vscode.window.terminals) t.dispose();`);
  },
);
