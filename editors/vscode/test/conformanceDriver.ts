/**
 * The VS Code end's conformance driver: the extension in code-server, driven
 * through the VS Code API in each window's extension host (codeServer.ts).
 * The heaviest end, so one code-server (and one Chromium) serves every
 * session of a test file: each session is a window on a folder of its own
 * (its own extension host, hence its own companion). `stopSharedCodeServer`
 * ends it after the file's suites.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDiscoveryFile } from '@ide-companion/protocol';
import { makeTempDir, waitFor, type AgentTerminal, type DiffEnding, type EndDriver, type EndSession, type Position } from '@ide-companion/testkit';
import { CodeServer, WITH_API, type Window } from './codeServer.js';
import { activeElementIsTerminal, diffTabCount, palette, runGemini, terminalText, terminalUi } from './workbench.js';

const TIMEOUT = 30_000;

let shared: Promise<{ cs: CodeServer; agents: { path: string; cleanup: () => void } }> | undefined;
let sessions = 0;

function codeServer() {
  shared ??= (async () => {
    // The agents' lock file folders are code-server's env (its windows inherit it): fixed at its start.
    const agents = makeTempDir('ide-companion-vscode-agents-');
    // Every agent's folder named, so each window's companion serves every face (Codex's socket: the first window's, the others join it).
    const cs = new CodeServer({
      env: { QWEN_HOME: path.join(agents.path, 'qwen'), CLAUDE_CONFIG_DIR: path.join(agents.path, 'claude'), ...agentHomes(agents.path) },
    });
    await cs.start();
    return { cs, agents };
  })();
  return shared;
}

const agentHomes = (dir: string) => ({ AMP_DATA_HOME: path.join(dir, 'amp'), COPILOT_HOME: path.join(dir, 'copilot'), CODEX_HOME: path.join(dir, 'codex') });

export async function stopSharedCodeServer(): Promise<void> {
  const started = shared;
  shared = undefined;
  if (!started) return;
  const { cs, agents } = await started;
  await cs.stop().catch(() => undefined);
  agents.cleanup();
}

/** The VS Code position of `p` (1-based, in characters) in the active editor, as code for the extension host. */
const POSITION = `const at = (p) => { const text = e.document.lineAt(p.line - 1).text; return new vscode.Position(p.line - 1, [...text].slice(0, p.character - 1).join('').length); };`;

const ENDING_KEYS: Record<DiffEnding, string> = {
  accept: 'Ctrl+S',
  reject: 'Gemini CLI: Reject Proposed Change',
  close: 'Ctrl+W',
  agentAnswer: 'Enter in the terminal',
};

/**
 * "Gemini CLI: Run" from the palette, the agent in a workbench terminal;
 * keys typed where the keyboard is, the screen read from the terminal's rows.
 * Opening a diff must not take the keyboard from it.
 */
async function startAgentTerminal(win: Window, command: string): Promise<AgentTerminal> {
  // The screen is the terminal's visible rows: at the default font an `/ide status` answer listing the suite's
  // open files scrolls its own first line away (a maximized panel is restored as each diff opens). A small font
  // shows it whole.
  await win.eval(`await vscode.workspace.getConfiguration('terminal.integrated').update('fontSize', 5, vscode.ConfigurationTarget.Global);`);
  await runGemini(win, command);
  const screen = () => terminalText(win.page);
  return {
    ...terminalUi(win),
    hasKeyboard: () => activeElementIsTerminal(win.page),
    where: async () =>
      `the keyboard is in ${await win.page.evaluate<string>('document.activeElement?.className ?? "none"')}\n--- terminal ---\n${await screen().catch(() => '')}`,
    async diffShown() {
      await waitFor(async () => (await diffTabCount(win)) === 1, 'the diff tab', TIMEOUT);
      assert.equal(await activeElementIsTerminal(win.page), true, "the diff must not take the keyboard from gemini's terminal");
    },
    async endDiff(_file, how) {
      // The user goes to the proposal (but for the CLI's own answer, given in the terminal), then ends the diff.
      if (how !== 'agentAnswer') await win.page.locator('.editor-instance .editor.modified .view-lines').first().click();
      if (how === 'accept') await win.page.keyboard.press('Control+s');
      else if (how === 'reject') await palette(win, ENDING_KEYS.reject);
      else if (how === 'close') await win.page.keyboard.press('Control+w');
      else await win.page.keyboard.press('Enter');
    },
    async afterEnd(_file, how) {
      await waitFor(async () => (await diffTabCount(win)) === 0, `the diff tab closed by ${ENDING_KEYS[how]}`, TIMEOUT);
      // The CLI finishes its turn before the user types the next prompt.
      await waitFor(async () => (await screen()).includes('Type your message'), 'the prompt back', 60_000, 250);
    },
    async close() {
      await win.eval(`for (const t of vscode.window.terminals) t.dispose();`);
    },
  };
}

export const vscodeDriver: EndDriver = {
  name: 'vscode',
  displayName: 'code-server',
  unsupported: {
    agentStatus: 'its status bar item is drawn by the workbench, not read here (extension.test.ts)',
    swapOnOpen: "the swap at VS Code's open event is extension.test.ts's (its tab closed); no driver hook here",
    'faces:droid':
      "code-server's HOME is not moved to a folder of the session's own here (it keeps its data there, shared by every window): Droid's lock file would be the user's ~/.factory",
    readOnlyBuffer: "VS Code's checkDocumentDirty reports no readOnly (capabilities.ts): its writeBuffer edits the document itself",
    changedOnDisk: 'VS Code rereads an unmodified document whose file changed itself; its checkDocumentDirty reports no changedOnDisk',
  },
  agentTerminal: { endings: ENDING_KEYS, variants: { terminal: false } },
  endOfLine: 'afterLastCharacter',
  // One extension host per window: the window does not start another (extension.test.ts covers the next window).
  restartsHost: false,
  async start(files, options) {
    const { cs, agents } = await codeServer();
    const qwenHome = path.join(agents.path, 'qwen');
    const claudeConfigDir = path.join(agents.path, 'claude');
    const homes = agentHomes(agents.path);
    const workspace = path.join(fs.realpathSync(cs.dir), `ws-${++sessions}`);
    fs.mkdirSync(workspace);
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace, name), text);
    if (options?.ampEditFile) {
      // The window's own setting (the env is code-server's, shared by every window).
      fs.mkdirSync(path.join(workspace, '.vscode'));
      fs.writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'ideCompanion.ampEditFile': options.ampEditFile }));
    }
    const win: Window = await cs.openWindow(workspace);
    const diffOf = (file: string) => waitFor(async () => (await win.api()).pendingDiffs.find((d) => d.filePath === file), `the diff of ${file}`, TIMEOUT);
    const session: EndSession = {
      workspace,
      tmpdir: cs.tmpdir,
      qwenHome,
      claudeConfigDir,
      ampDataHome: homes.AMP_DATA_HOME,
      copilotHome: homes.COPILOT_HOME,
      codexHome: homes.CODEX_HOME,
      async discovery() {
        const file = (await win.api()).discoveryFile;
        return { path: file, content: parseDiscoveryFile(fs.readFileSync(file, 'utf8')) };
      },
      async open(file) {
        await win.eval(`await vscode.window.showTextDocument(vscode.Uri.file(args.file), { preview: false });`, { file });
      },
      async moveCursor(p: Position) {
        await win.eval(`const e = vscode.window.activeTextEditor; ${POSITION} const q = at(args.p); e.selection = new vscode.Selection(q, q);`, { p });
      },
      async select(sel) {
        const [anchor, active] = sel.backward ? [sel.end, sel.start] : [sel.start, sel.end];
        await win.eval(`const e = vscode.window.activeTextEditor; ${POSITION} e.selection = new vscode.Selection(at(args.anchor), at(args.active));`, {
          anchor,
          active,
        });
      },
      async shownProposal(file) {
        const { id } = await diffOf(file);
        // The diff is pending a moment before its view has opened the proposal's document.
        return waitFor(
          async () =>
            (await win.eval<string | null>(
              `const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'ide-companion-proposal' && d.uri.query === args.id);
               return doc ? doc.getText() : null;`,
              { id },
            )) ?? undefined,
          `the proposal document of ${file}`,
          TIMEOUT,
        );
      },
      async editProposal(file, text) {
        await session.shownProposal(file);
        const { id } = await diffOf(file);
        await win.eval(
          `const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'ide-companion-proposal' && d.uri.query === args.id);
           const edit = new vscode.WorkspaceEdit();
           edit.replace(doc.uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), args.text);
           await vscode.workspace.applyEdit(edit);`,
          { id, text },
        );
      },
      async accept(file) {
        await session.shownProposal(file);
        const { id } = await diffOf(file);
        await win.eval(`await vscode.commands.executeCommand('ideCompanion.acceptDiff', args.id);`, { id });
      },
      async reject(file) {
        await session.shownProposal(file);
        const { id } = await diffOf(file);
        await win.eval(`await vscode.commands.executeCommand('ideCompanion.rejectDiff', args.id);`, { id });
      },
      async showsProposal(file) {
        return (await win.api()).pendingDiffs.some((d) => d.filePath === file);
      },
      cursor: () =>
        win.eval(
          `const e = vscode.window.activeTextEditor;
           if (!e) return { path: '', line: 0, character: 0 };
           const p = e.selection.active;
           return { path: e.document.uri.fsPath, line: p.line + 1, character: [...e.document.lineAt(p.line).text.slice(0, p.character)].length + 1 };`,
        ),
      async setWarning(file) {
        await win.eval(
          `globalThis.testDiagnostics ??= vscode.languages.createDiagnosticCollection('test');
           globalThis.testDiagnostics.set(vscode.Uri.file(args.file), [new vscode.Diagnostic(new vscode.Range(0, 0, 0, 1), 'w', vscode.DiagnosticSeverity.Warning)]);`,
          { file },
        );
      },
      async mention(file, startLine, endLine) {
        await win.eval(
          `const e = await vscode.window.showTextDocument(vscode.Uri.file(args.file), { preview: false });
           e.selection = new vscode.Selection(args.startLine - 1, 0, args.endLine - 1, e.document.lineAt(args.endLine - 1).text.length);
           await vscode.commands.executeCommand('ideCompanion.sendToAgent');`,
          { file, startLine, endLine },
        );
      },
      bufferText: async (file) =>
        (await win.eval<string | null>(`const d = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === args.file); return d ? d.getText() : null;`, {
          file,
        })) ?? undefined,
      async undo(file) {
        await win.eval(`await vscode.window.showTextDocument(vscode.Uri.file(args.file), { preview: false }); await vscode.commands.executeCommand('undo');`, {
          file,
        });
      },
      async killHost() {
        process.kill(win.pid, 'SIGKILL');
      },
      startAgentTerminal: (command) => startAgentTerminal(win, command),
      async ping() {
        await win.eval(`${WITH_API} return api.running;`);
      },
      async close() {
        await win.close().catch(() => undefined);
        fs.rmSync(workspace, { recursive: true, force: true });
      },
    };
    return session;
  },
};
