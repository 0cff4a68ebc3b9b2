/**
 * The Kakoune end's conformance driver: a real `kak` in tmux with the plugin (rc/ide-companion.kak) and
 * its bridge; the user's commands go in through `kak -p` into the user's client (the plugin's own idle
 * hook runs after each, as after the user's keys), and state is read back with `echo -to-file`.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONTAINER_ENV, parseDiscoveryFile } from '@ide-companion/protocol';
import { makeTempDir, repoRoot, skipUnless, Tmux, waitFor, type EndDriver, type EndSession, type Position, type Selection } from '@ide-companion/testkit';

export const RC = path.join(repoRoot, 'editors', 'kakoune', 'rc', 'ide-companion.kak');
export const hasKak = spawnSync('kak', ['-version'], { stdio: 'ignore' }).status === 0;
const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
export const skipKak = skipUnless(hasKak, 'Kakoune', 'apt-get install -y kakoune') || skipUnless(hasTmux, 'tmux', 'apt-get install -y tmux');
export const TIMEOUT = 20_000;

/** Kakoune's quoting, the test's own (the bridge's `kq` is what the tests check). */
export function kq(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** The words `echo -quoting shell` wrote. */
function shellWords(s: string): string[] {
  const words: string[] = [];
  for (const m of s.matchAll(/'((?:[^']|'\\'')*)'(?= |$)/g)) words.push(m[1]!.replaceAll("'\\''", "'"));
  return words;
}

export interface KakSession {
  readonly tmux: Tmux;
  readonly session: string;
  readonly env: Record<string, string>;
  readonly tmp: string;
  readonly workspace: string;
  /** Runs commands in the user's client (as the user typing them at the `:` prompt would). */
  run(commands: string): void;
  /** The values of `expansions` (e.g. `%val{buffile}`) in the user's client. */
  read(expansions: string, context?: string, before?: string): Promise<string[]>;
  close(): Promise<void>;
}

let nextSession = 0;

/** Kakoune in tmux in a fresh workspace holding `files`; `command` (default: kak with only the plugin) opens `open`. */
export async function startKak(
  files: Record<string, string>,
  options: {
    open?: string[];
    env?: Record<string, string>;
    /** The shell command that runs kak (default: with only the plugin sourced). */
    command?: (session: string) => string;
    /** Runs before kak starts, with its env (its HOME to install into). */
    setup?: (env: Record<string, string>) => void;
  } = {},
): Promise<KakSession> {
  const tmpDir = makeTempDir('ide-companion-kak-');
  const tmp = fs.realpathSync(tmpDir.path);
  const workspace = path.join(tmp, 'ws');
  const home = path.join(tmp, 'home');
  fs.mkdirSync(path.join(home, '.factory'), { recursive: true });
  fs.mkdirSync(workspace);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace, name), text);
  const session = `idec${process.pid}x${nextSession++}`;
  const env: Record<string, string> = {
    TMPDIR: tmp,
    HOME: home,
    QWEN_HOME: path.join(tmp, 'qwen'),
    CLAUDE_CONFIG_DIR: path.join(tmp, 'claude'),
    AMP_DATA_HOME: path.join(tmp, 'amp'),
    COPILOT_HOME: path.join(tmp, 'copilot'),
    CODEX_HOME: path.join(tmp, 'codex'),
    ...options.env,
  };
  options.setup?.(env);
  const unset = ['XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME', 'KAKOUNE_CONFIG_DIR', ...Object.values(CONTAINER_ENV)].map((n) => `-u ${n}`).join(' ');
  const kak = options.command?.(session) ?? `kak -n -s ${session} -e ${shq(`source ${kq(RC)}; ide-start`)}`;
  const tmux = new Tmux(160, 40);
  tmux.start(`env ${unset} ${kak} ${(options.open ?? []).map(shq).join(' ')}`, { cwd: workspace, env });
  const processEnv = { ...process.env, ...env };
  for (const name of unset.split(' ').filter((w) => w !== '-u')) delete processEnv[name];
  const send = (commands: string) => spawnSync('kak', ['-p', session], { input: commands, env: processEnv, timeout: 5000 });
  let reads = 0;
  const s: KakSession = {
    tmux,
    session,
    env,
    tmp,
    workspace,
    run: (commands) => void send(`evaluate-commands -client client0 ${kq(commands)}`),
    async read(expansions, context = '-client client0', before = 'nop') {
      const out = path.join(tmp, `read-${reads++}`);
      // kak -p fails at once while the session is not up yet.
      if (send(`evaluate-commands ${context} ${kq(`${before}; echo -quoting shell -to-file ${kq(out)} -- ${expansions} .`)}`).status !== 0)
        throw new Error('kak -p failed');
      const text = await waitFor(
        () => (fs.existsSync(out) && fs.readFileSync(out, 'utf8').endsWith("'.'") ? fs.readFileSync(out, 'utf8') : undefined),
        `kak to answer ${expansions}`,
        TIMEOUT,
      );
      fs.rmSync(out);
      return shellWords(text).slice(0, -1);
    },
    async close() {
      send('kill!');
      await waitFor(() => fs.readdirSync(tmp).every((f) => !f.startsWith('ide-companion-kak.')), 'the bridge to end', TIMEOUT).catch(() => undefined);
      // Every pane's programs, the agent that `:ide-terminal` started among them (it outlives a tmux server's SIGHUP).
      await tmux.stop();
      tmpDir.cleanup();
    },
  };
  await waitFor(async () => (await s.read('%val{client}').catch(() => []))[0] === 'client0', 'Kakoune to start', TIMEOUT).catch(async (err: Error) => {
    // Nothing left running when it does not start.
    await s.close();
    throw err;
  });
  return s;
}

function shq(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** Kakoune's `line.column` (column in bytes) of the character at `offset` (in characters) of `text`. */
function bytePos(text: string, offset: number): string {
  const before = [...text].slice(0, offset).join('');
  const lines = before.split('\n');
  return `${lines.length}.${Buffer.byteLength(lines.at(-1)!) + 1}`;
}

function offsetOf(text: string, p: Position): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < p.line - 1; i++) offset += [...lines[i]!].length + 1;
  return offset + p.character - 1;
}

export const proposalBuffer = async (s: KakSession, file: string) =>
  (await s.read('%val{buflist}', '-try-client client0')).find((b) => b === `*proposal ${path.basename(file)}*`);

export const kakouneDriver: EndDriver = {
  name: 'kakoune',
  displayName: 'Kakoune',
  endOfLine: 'afterLastCharacter',
  restartsHost: true,
  unsupported: {
    capabilityTools: 'the Kakoune end declares no capability tools yet (openFile, getOpenEditors, getSelection, diagnostics, dirty, save)',
    setWarning: 'the Kakoune end declares no diagnostics',
    mention: 'the Kakoune end has no "Send to agent" command',
    agentTerminal: 'Kakoune has no terminal of its own: ide-terminal opens the agent in a tmux pane (kakoune.test.ts runs the real Gemini CLI there)',
    ampBuffer: "the Kakoune end declares no checkDocumentDirty: Amp's edits are reviewed",
    swapOnOpen: 'the Kakoune end declares no openFile',
  },
  async start(files) {
    const s = await startKak(files);
    let active: string | undefined;
    const selectAndTell = (desc: string) => s.run(`select ${desc}; ide-pos`);
    const session: EndSession = {
      workspace: s.workspace,
      tmpdir: s.tmp,
      qwenHome: s.env['QWEN_HOME']!,
      claudeConfigDir: s.env['CLAUDE_CONFIG_DIR']!,
      ampDataHome: s.env['AMP_DATA_HOME']!,
      copilotHome: s.env['COPILOT_HOME']!,
      codexHome: s.env['CODEX_HOME']!,
      factoryHome: s.env['HOME']!,
      async discovery() {
        const dir = path.join(s.tmp, 'gemini', 'ide');
        const name = await waitFor(
          () => (fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.json')) : undefined),
          'the discovery file',
          TIMEOUT,
        );
        const file = path.join(dir, name);
        return { path: file, content: parseDiscoveryFile(fs.readFileSync(file, 'utf8')) };
      },
      async open(file) {
        active = file;
        s.run(`edit -existing ${kq(file)}`);
        await waitFor(async () => (await s.read('%val{buffile}'))[0] === file, `${file} shown`, TIMEOUT);
      },
      async moveCursor(p: Position) {
        const text = fs.readFileSync(active!, 'utf8');
        const at = bytePos(text, offsetOf(text, p));
        selectAndTell(`${at},${at}`);
      },
      async select(sel: Selection) {
        const text = fs.readFileSync(active!, 'utf8');
        const first = bytePos(text, offsetOf(text, sel.start));
        const last = bytePos(text, offsetOf(text, sel.end) - 1);
        selectAndTell(sel.backward ? `${last},${first}` : `${first},${last}`);
      },
      async shownProposal(file) {
        const buf = await waitFor(() => proposalBuffer(s, file), `the proposal of ${file}`, TIMEOUT);
        return (await s.read('%val{selection}', `-buffer ${kq(buf)}`, "execute-keys '%'"))[0]!;
      },
      async editProposal(file, text) {
        const buf = (await proposalBuffer(s, file))!;
        s.run(`buffer ${kq(buf)}; set-register dquote ${kq(text)}; execute-keys '%R'`);
        await waitFor(async () => (await s.read('%val{selection}'))[0]?.startsWith(text.split('\n')[0]!), 'the edit', TIMEOUT);
      },
      async accept(file) {
        s.run(`buffer ${kq((await proposalBuffer(s, file))!)}; ide-accept`);
      },
      async reject(file) {
        s.run(`buffer ${kq((await proposalBuffer(s, file))!)}; ide-reject`);
      },
      async showsProposal(file) {
        return (await proposalBuffer(s, file)) !== undefined;
      },
      async cursor() {
        const [file, line, character] = await s.read('%val{buffile} %val{cursor_line} %val{cursor_char_column}');
        return { path: file!, line: Number(line), character: Number(character) };
      },
      async agentStatus() {
        return (await s.read('%opt{ide_status}'))[0]!;
      },
      async killHost() {
        const pid = Number((await s.read('%opt{ide_host_pid}'))[0]);
        process.kill(pid, 'SIGKILL');
      },
      async ping() {
        await s.read('%val{session}');
      },
      close: () => s.close(),
    };
    return session;
  },
};
