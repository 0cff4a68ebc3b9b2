/**
 * The bridge end's conformance driver: the real `ide-companion bridge` on
 * JSON lines, with a scripted editor as its user: it reports focus, cursor
 * and selection as a script plugin would, shows diffs by keeping them, and
 * accepts or rejects as its user says. It declares no capabilities (what the
 * bridge forwards of them is bridge.test.ts's).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { CONTAINER_ENV, parseDiscoveryFile } from '@ide-companion/protocol';
import { agentFolders, makeTempDir, repoRoot, waitFor, type EndDriver, type EndSession, type Position, type Selection } from '@ide-companion/testkit';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');
const TIMEOUT = 15_000;

/** The character offset of `p` (1-based) in `text`. */
function offsetOf(text: string, p: Position): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < p.line - 1; i++) offset += [...lines[i]!].length + 1;
  return offset + p.character - 1;
}

class ScriptedEditor {
  readonly fromHost: any[] = [];
  readonly host: ChildProcessWithoutNullStreams;
  /** Shown proposals by file: the diff's id and its text as the user left it. */
  readonly diffs = new Map<string, { diffId: string; text: string }>();
  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.host = spawn(process.execPath, [bin, 'bridge', ...args], { env });
    this.host.stdin.on('error', () => undefined);
    readline.createInterface({ input: this.host.stdout }).on('line', (line) => {
      const m = JSON.parse(line);
      this.fromHost.push(m);
      if (m.type === 'request') this.answer(m);
    });
  }
  send(m: unknown): void {
    if (this.host.exitCode === null && !this.host.stdin.destroyed) this.host.stdin.write(`${JSON.stringify(m)}\n`);
  }
  /** What the script does when the companion asks: show, give the text, close. */
  private answer(m: { id: string; action: string; params: any }): void {
    const entry = [...this.diffs].find(([, d]) => d.diffId === m.params?.diffId);
    if (m.action === 'showDiff') {
      this.diffs.set(m.params.filePath, { diffId: m.params.diffId, text: m.params.newContent });
      this.send({ type: 'response', id: m.id, result: null });
    } else if (m.action === 'diffText') {
      this.send({ type: 'response', id: m.id, result: { text: entry ? entry[1].text : null } });
    } else if (m.action === 'closeDiff') {
      if (entry) this.diffs.delete(entry[0]);
      this.send({ type: 'response', id: m.id, result: null });
    } else {
      this.send({ type: 'response', id: m.id, error: `the scripted editor has no ${m.action}` });
    }
  }
}

export const bridgeDriver: EndDriver = {
  name: 'bridge',
  displayName: 'Scripted Editor',
  unsupported: {
    capabilityTools: 'the scripted editor declares no capabilities (bridge.test.ts checks what the bridge forwards of them)',
    cursor: 'the scripted editor has no cursor of its own to read back',
    agentStatus: 'the scripted editor shows no status of its own',
    agentTerminal: 'the scripted editor has no terminal to run an agent in',
    setWarning: 'the scripted editor declares no capabilities: no diagnostics to list',
    ampBuffer: "the scripted editor declares no writeBuffer: Amp's edits are reviewed",
  },
  endOfLine: 'afterLastCharacter',
  restartsHost: false,
  async start(files) {
    const tmp = makeTempDir('ide-companion-bridge-conformance-');
    const workspace = path.join(fs.realpathSync(tmp.path), 'ws');
    fs.mkdirSync(workspace);
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace, name), text);
    const agents = agentFolders(tmp.path);
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp.path, ...agents.env };
    for (const name of Object.values(CONTAINER_ENV)) delete env[name];
    const editor = new ScriptedEditor(['--name', 'scripted', '--display-name', 'Scripted Editor', '--workspace', workspace], env);
    editor.send({ type: 'hello', protocol: 1, pid: process.pid, capabilities: [] });
    const ready = await waitFor(() => editor.fromHost.find((m) => m.type === 'ready'), 'ready', TIMEOUT);
    let active: string | undefined;
    const diffOf = (file: string) => {
      const d = editor.diffs.get(file);
      if (!d) throw new Error(`no proposal shown for ${file}`);
      return d;
    };
    const session: EndSession = {
      workspace,
      tmpdir: tmp.path,
      ...agents.session,
      async discovery() {
        const file = ready.discoveryFile as string;
        await waitFor(() => fs.existsSync(file), 'the discovery file', TIMEOUT);
        return { path: file, content: parseDiscoveryFile(fs.readFileSync(file, 'utf8')) };
      },
      async open(file) {
        active = file;
        editor.send({ type: 'focus', path: file, cursor: { line: 1, character: 1 } });
      },
      async moveCursor(p: Position) {
        editor.send({ type: 'cursor', path: active, cursor: p });
      },
      async select(s: Selection) {
        const text = [...fs.readFileSync(active!, 'utf8')];
        const selected = text.slice(offsetOf(text.join(''), s.start), offsetOf(text.join(''), s.end)).join('');
        editor.send({ type: 'cursor', path: active, cursor: s.backward ? s.start : s.end, selectedText: selected, selectionBackward: s.backward });
      },
      async shownProposal(file) {
        return waitFor(() => editor.diffs.get(file)?.text, `the proposal of ${file}`, TIMEOUT);
      },
      async editProposal(file, text) {
        diffOf(file).text = text;
      },
      async accept(file) {
        const d = diffOf(file);
        editor.diffs.delete(file);
        editor.send({ type: 'diffAccepted', diffId: d.diffId, content: d.text });
      },
      async reject(file) {
        const d = diffOf(file);
        editor.diffs.delete(file);
        editor.send({ type: 'diffRejected', diffId: d.diffId });
      },
      async showsProposal(file) {
        return editor.diffs.has(file);
      },
      async mention(file, startLine, endLine) {
        editor.send({ type: 'mention', path: file, startLine, endLine });
      },
      async killHost() {
        editor.host.kill('SIGKILL');
        await waitFor(() => editor.host.exitCode !== null || editor.host.signalCode !== null, 'the bridge to die', TIMEOUT);
      },
      async ping() {
        if (editor.host.exitCode !== null || editor.host.signalCode !== null) throw new Error('the bridge exited');
      },
      async close() {
        if (editor.host.exitCode === null && editor.host.signalCode === null) {
          const exited = new Promise((resolve) => editor.host.once('exit', resolve));
          editor.host.stdin.end();
          const timer = setTimeout(() => editor.host.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(timer);
        }
        tmp.cleanup();
      },
    };
    return session;
  },
};
