/**
 * The terminal end's conformance driver: the real `ide-companion serve` in
 * tmux. The user's editor is any terminal editor, so what serve knows of it
 * is the files it saves; proposals are reviewed in serve's terminal with its
 * keys (a, r, e), `e` running $EDITOR (a script writing the user's text).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDiscoveryFile } from '@ide-companion/protocol';
import { agentFolders, makeTempDir, repoRoot, Tmux, waitFor, type EndDriver, type EndSession } from '@ide-companion/testkit';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');
const TIMEOUT = 20_000;

/** The visible pane only (no scrollback): what the user sees now. */
function visiblePane(tmux: Tmux): string {
  return spawnSync('tmux', ['-L', tmux.socket, 'capture-pane', '-p', '-t', 'main'], { encoding: 'utf8' }).stdout;
}

/** The review serve shows for `name` last, while its prompt is the screen's last word: the new side of the unified diff. */
function shownReview(screen: string, name: string): string | undefined {
  const lines = screen.replace(/\s+$/, '').split('\n');
  const prompt = lines.findLastIndex((l) => l.includes('press one key'));
  // Below the prompt only the status line (its keys) may follow: anything else means the review was answered.
  if (prompt < 0 || lines.slice(prompt + 1).some((l) => l.trim() !== '' && !l.includes('[a]ccept'))) return undefined;
  // A proposal equal to the file (an empty new file too) is said in words, with no diff.
  if (lines[prompt - 1]?.startsWith('(no changes to ') && lines[prompt - 1]!.includes(name)) return '';
  const header = lines.findLastIndex((l, i) => i < prompt && l.startsWith('+++') && l.includes(name));
  if (header < 0) return undefined;
  const shown: string[] = [];
  for (const line of lines.slice(header + 1, prompt)) {
    if (line.startsWith('+') || line.startsWith(' ')) shown.push(line.slice(1));
  }
  return shown.join('\n');
}

export const terminalDriver: EndDriver = {
  name: 'terminal',
  displayName: 'IDE Companion (terminal)',
  unsupported: {
    moveCursor: 'a terminal editor tells serve only what it saves: no cursor',
    select: 'a terminal editor tells serve only what it saves: no selection',
    cursor: 'no cursor to read back',
    capabilityTools: 'serve has one capability tool, getOpenEditors (serve.test.ts); openFile and the rest need an editor',
    agentTerminal: 'the agent runs in a terminal of its own, beside the editor: there is no agent terminal in the end to return to',
    setWarning: 'a terminal editor tells serve only what it saves: no diagnostics',
    mention: 'serve has no "Send to agent": what the user sends is typed in the agent',
    ampBuffer: "serve has no buffers (it declares no writeBuffer): Amp's edits are reviewed",
  },
  endOfLine: 'afterLastCharacter',
  restartsHost: false,
  async start(files) {
    const tmp = makeTempDir('ide-companion-serve-conformance-');
    const root = fs.realpathSync(tmp.path);
    const workspace = path.join(root, 'ws');
    fs.mkdirSync(workspace);
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace, name), text);
    const agents = agentFolders(root);
    // $EDITOR: replaces the proposal with what the test put in edited.txt (no quoting of the text in a script).
    const edited = path.join(root, 'edited.txt');
    const editor = path.join(root, 'edit.sh');
    fs.writeFileSync(editor, `#!/bin/sh\ncat '${edited}' > "$1"\n`, { mode: 0o755 });
    const tmux = new Tmux(200, 50);
    tmux.start(`node ${JSON.stringify(bin)} serve --workspace ${JSON.stringify(workspace)}`, {
      cwd: root,
      env: { TMPDIR: root, EDITOR: editor, VISUAL: editor, NO_COLOR: '1', ...agents.env },
    });
    const discoveryDir = path.join(root, 'gemini', 'ide');
    const discovery = async () =>
      waitFor(
        () => {
          const name = fs.existsSync(discoveryDir) && fs.readdirSync(discoveryDir).find((n) => n.startsWith('gemini-ide-server-'));
          if (!name) return undefined;
          const file = path.join(discoveryDir, name);
          return { path: file, content: parseDiscoveryFile(fs.readFileSync(file, 'utf8')) };
        },
        'the discovery file of serve',
        TIMEOUT,
      );
    try {
      await tmux.waitForText('&& gemini', TIMEOUT);
      await discovery();
    } catch (err) {
      const screen = tmux.screen();
      await tmux.stop();
      tmp.cleanup();
      throw new Error(`${(err as Error).message}\n--- screen ---\n${screen}`);
    }
    const review = (file: string) =>
      waitFor(() => shownReview(visiblePane(tmux), path.basename(file)), `serve to show the proposal of ${file}`, TIMEOUT).catch((err: Error) => {
        throw new Error(`${err.message}\n--- screen ---\n${visiblePane(tmux)}`);
      });
    const session: EndSession = {
      workspace,
      tmpdir: root,
      ...agents.session,
      discovery,
      async open(file) {
        // Saving is what serve sees of a terminal editor.
        fs.writeFileSync(file, fs.readFileSync(file));
      },
      shownProposal: review,
      async editProposal(file, text) {
        await review(file);
        fs.writeFileSync(edited, text);
        tmux.type('e');
        await tmux.waitForText('(with your edits)', TIMEOUT);
      },
      async accept(file) {
        await review(file);
        tmux.type('a');
      },
      async reject(file) {
        await review(file);
        tmux.type('r');
      },
      async showsProposal(file) {
        return shownReview(visiblePane(tmux), path.basename(file)) !== undefined;
      },
      // The status line: "● N CLI sessions connected (AGENT, ...)".
      agentStatus: async () =>
        /connected \(([^)]*)\)/.exec(
          visiblePane(tmux)
            .split('\n')
            .findLast((l) => l.includes('●')) ?? '',
        )?.[1] ?? '',
      async killHost() {
        // serve's socket folder is named PID-PORT.
        const { content } = await discovery();
        const pid = Number(path.basename(path.dirname(content.socketPath!)).split('-')[0]);
        process.kill(pid, 'SIGKILL');
      },
      async ping() {
        // serve is the editor end: its companion answering is the end answering (the fuzz checks it), and tmux shows it.
        if (!tmux.panePid()) throw new Error('serve’s terminal is gone');
      },
      async close() {
        await tmux.stop();
        tmp.cleanup();
      },
    };
    return session;
  },
};
