/**
 * kak-bridge: what the Kakoune script starts (rc/ide-companion.kak). Kakoune has no job API, so this
 * process stands between it and the JSON-lines host (editors/jsonlines), which owns every rule:
 * - Kakoune's hooks write their words, shell-quoted, to a FIFO this process reads (`echo -quoting shell
 *   -to-file`, no shell per event); they become the host's events.
 * - The host's requests become Kakoune commands sent with `kak -p SESSION`, every string through `kq`
 *   (Kakoune's '...' quoting with '' doubling, under which nothing is expanded): data never becomes a command.
 * It starts a host that served and died again, telling it how the last one ended (the host counts, backs off and
 * says so: server/hostRestarts.ts), and ends when Kakoune does. Node built-ins only (and protocol's constants):
 * installed as one file beside the script.
 *
 *   node kak-bridge.mjs SESSION DIR KAK_PID CWD      (DIR/in is the FIFO)
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

type Host = ChildProcessByStdio<Writable, Readable, null>;
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { HOST_DIED_ENV, HOST_GAVE_UP_EXIT_CODE, HOST_KEPT_ENV } from '@ide-companion/protocol/hostRestarts';

/** Kakoune's quoting: the one way a string reaches a command. */
export function kq(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** Each message's number of words after its type (every message ends with the word `.`). */
const ARITY: Readonly<Record<string, number>> = {
  pos: 6,
  saved: 1,
  closed: 1,
  quit: 0,
  ok: 1,
  err: 2,
  text: 2,
  selected: 3,
  accept: 2,
  reject: 1,
};

/**
 * Splits what `echo -quoting shell` wrote into messages: words `'...'` (a quote inside is `'\''`) joined by
 * one space, a message's last word `.`. Returns the messages complete in `buf` and what is left of it.
 */
export function parseMessages(buf: string): { messages: string[][]; rest: string } {
  const messages: string[][] = [];
  let i = 0;
  for (;;) {
    const start = i;
    const words: string[] = [];
    let arity: number | undefined;
    let complete = false;
    while (i < buf.length) {
      if (words.length > 0) {
        if (buf[i] !== ' ') throw new Error(`unexpected ${JSON.stringify(buf[i])} between words`);
        i++;
      }
      if (i >= buf.length) break;
      if (buf[i] !== "'") throw new Error(`unexpected ${JSON.stringify(buf[i])} at a word's start`);
      let word = '';
      let closed = false;
      for (i++; i < buf.length;) {
        const q = buf.indexOf("'", i);
        if (q < 0) {
          i = buf.length;
          break;
        }
        word += buf.slice(i, q);
        if (buf.startsWith("\\''", q + 1)) {
          word += "'";
          i = q + 4;
          continue;
        }
        // A word ending where the data ends may go on with '\'': only the closing `.` is sure.
        if (q + 1 >= buf.length && !(arity !== undefined && words.length === arity + 1)) break;
        i = q + 1;
        closed = true;
        break;
      }
      if (!closed) break;
      words.push(word);
      if (words.length === 1) {
        arity = ARITY[word];
        if (arity === undefined) throw new Error(`unknown message ${JSON.stringify(word)}`);
      } else if (words.length === arity! + 2) {
        if (word !== '.') throw new Error(`message ${words[0]} does not end with .`);
        complete = true;
        break;
      }
    }
    if (!complete) return { messages, rest: buf.slice(start) };
    messages.push(words.slice(0, -1));
  }
}

const KAK_ANSWER_MS = 4000;

/** What this bridge reads of the host's lines (docs/editor-protocol.md; the host checked them). */
interface HostMessage {
  type: string;
  id?: number;
  action?: string;
  params?: RequestParams;
  env?: Record<string, string>;
  words?: Record<string, string>;
  summary?: string;
  said?: string | string[];
  message?: string;
}
interface RequestParams {
  diffId: string;
  filePath: string;
  newContent: string;
  kept?: boolean;
  words?: { proposed: string };
  reason?: string;
  message?: string;
  path: string;
  unsavedWarning?: string;
}

interface Diff {
  buf: string;
  file: string;
  newContent: string;
}
interface KakWait {
  resolve: (words: string[]) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

class KakBridge {
  private host: Host | undefined;
  private hostOut = '';
  private readonly diffs = new Map<string, Diff>();
  private readonly waits = new Map<string, KakWait>();
  private nextWait = 1;
  private sendQueue: Promise<void> = Promise.resolve();
  private lastPath: string | undefined;
  private lastClient = 'client0';
  private lastFocus: object | undefined;
  private served = false;
  private words: Record<string, string> = {};
  private quitting = false;

  constructor(
    private readonly session: string,
    private readonly kakPid: number,
    private readonly cwd: string,
    private readonly hostPath: string,
  ) {}

  /** Sends commands to Kakoune, one `kak -p` at a time (in order). */
  kak(commands: string): Promise<void> {
    const run = () =>
      new Promise<void>((resolve) => {
        const p = spawn('kak', ['-p', this.session], { stdio: ['pipe', 'ignore', 'ignore'] });
        p.on('error', () => resolve());
        p.on('exit', () => resolve());
        p.stdin.on('error', () => undefined);
        p.stdin.end(commands);
      });
    this.sendQueue = this.sendQueue.then(run);
    return this.sendQueue;
  }

  /** Runs `command` in Kakoune and waits for its answer (`ide-answer` says ok or err if the command does not answer itself). */
  ask(command: (id: string) => string): Promise<string[]> {
    const id = `k${this.nextWait++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waits.delete(id);
        reject(new Error('Kakoune did not answer'));
      }, KAK_ANSWER_MS);
      this.waits.set(id, { resolve, reject, timer });
      void this.kak(`ide-answer ${kq(id)} ${kq(command(kq(id)))}`);
    });
  }

  private settle(id: string, words: string[] | Error): void {
    const wait = this.waits.get(id);
    if (!wait) return;
    this.waits.delete(id);
    clearTimeout(wait.timer);
    if (words instanceof Error) wait.reject(words);
    else wait.resolve(words);
  }

  /** Shows `text` in Kakoune's status line (of the client the user was last in). */
  say(text: string): Promise<void> {
    return this.kak(`evaluate-commands -try-client %opt{ide_client} ${kq(`echo -- ${kq(text)}`)}`);
  }

  startHost(died?: Record<string, string>): void {
    const host = spawn(process.execPath, [this.hostPath], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...died } });
    this.host = host;
    this.served = false;
    this.hostOut = '';
    host.stdin.on('error', () => undefined);
    host.stdout.setEncoding('utf8');
    host.stdout.on('data', (chunk: string) => {
      this.hostOut += chunk;
      let nl: number;
      while ((nl = this.hostOut.indexOf('\n')) >= 0) {
        const line = this.hostOut.slice(0, nl);
        this.hostOut = this.hostOut.slice(nl + 1);
        if (line.trim()) this.fromHost(JSON.parse(line) as HostMessage);
      }
    });
    void this.kak(`set-option global ide_host_pid ${host.pid ?? 0}`);
    host.on('exit', (code, signal) => this.hostDied(host, code, signal));
    this.toHost({
      type: 'hello',
      protocol: 1,
      ide: { name: 'kakoune', displayName: 'Kakoune' },
      pid: this.kakPid,
      roots: [this.cwd],
      capabilities: ['reload'],
    });
    if (this.lastFocus) this.toHost(this.lastFocus);
  }

  private hostDied(host: Host, code: number | null, signal: string | null): void {
    if (host !== this.host || this.quitting) return;
    this.host = undefined;
    // The proposals stay in their buffers, the user's to save; the host that knew them is gone.
    const kept = [...this.diffs.values()].map((d) => (void this.keep(d), d.file));
    this.diffs.clear();
    // One that gave up said so (`say`); one that never served left its reason in the log.
    if (code === HOST_GAVE_UP_EXIT_CODE) return;
    if (!this.served) return void this.kak(`set-option global ide_status ${kq(`stopped (${signal ?? `exit code ${code}`})`)}`);
    this.startHost({ [HOST_DIED_ENV]: signal ?? String(code), [HOST_KEPT_ENV]: JSON.stringify(kept) });
  }

  /** A proposal nobody can take an answer for: a plain scratch buffer, `*kept NAME*`, the user's to save. */
  private keep(diff: Diff): Promise<void> {
    return this.kak(`ide-keep ${kq(diff.buf)} ${kq(diff.buf.replace('*proposal ', '*kept '))}`);
  }

  private toHost(message: object): void {
    if (this.host && !this.host.stdin.destroyed) this.host.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** A message from Kakoune's FIFO. */
  fromKak([type, ...a]: string[]): void {
    switch (type) {
      case 'pos': {
        const [client, file, line, col, aline, acol] = a as [string, string, string, string, string, string];
        // The client the user was last in, where diffs open and words are shown (set here: a move costs kak less).
        if (client !== this.lastClient) void this.kak(`set-option global ide_client ${kq((this.lastClient = client))}`);
        if (!path.isAbsolute(file)) return;
        const cursor = { line: Number(line), character: Number(col) };
        const anchor = { line: Number(aline), character: Number(acol) };
        const selected = anchor.line !== cursor.line || anchor.character !== cursor.character;
        const event = { type: file === this.lastPath ? 'cursor' : 'focus', path: file, cursor, ...(selected && { anchor, selectionKind: 'char' }) };
        this.lastPath = file;
        this.lastFocus = { ...event, type: 'focus' };
        return this.toHost(event);
      }
      case 'saved':
        if (path.isAbsolute(a[0]!)) this.toHost({ type: 'saved', path: a[0] });
        return;
      case 'closed':
        if (path.isAbsolute(a[0]!)) this.toHost({ type: 'close', path: a[0] });
        return;
      case 'accept': {
        const [diffId, text] = a as [string, string];
        const diff = this.diffs.get(diffId);
        if (!diff) return void this.say(fill1(this.words['acceptUnsent'], diff));
        this.diffs.delete(diffId);
        const content = asProposed(text, diff.newContent);
        return this.toHost({ type: 'diffAccepted', diffId, ...(content !== diff.newContent && { content }) });
      }
      case 'reject':
        if (this.diffs.delete(a[0]!)) this.toHost({ type: 'diffRejected', diffId: a[0] });
        return;
      case 'err':
        return this.settle(a[0]!, new Error(`Kakoune: ${a[1]}`));
      case 'ok':
      case 'text':
      case 'selected':
        return this.settle(a[0]!, a.slice(1));
      case 'quit':
        return this.quit();
    }
  }

  private fromHost(m: HostMessage): void {
    if (m.type === 'ready') {
      this.served = true;
      this.words = m.words ?? {};
      const env = Object.entries(m.env ?? {}).map(([k, v]) => kq(`${k}=${v}`));
      void this.kak(`set-option global ide_env ${env.join(' ')}\nset-option global ide_status ${kq(m.summary ?? 'ready')}`);
    } else if (m.type === 'sessions') {
      void this.kak(`set-option global ide_status ${kq(m.summary ?? '')}`);
      for (const said of [m.said ?? []].flat()) void this.say(said);
    } else if (m.type === 'say') {
      void this.kak(`set-option global ide_status ${kq(m.message ?? '')}`);
      void this.say(m.message ?? '');
    } else if (m.type === 'error') {
      void this.kak(`echo -debug -- ${kq(`ide-companion: ${m.message}`)}`);
    } else if (m.type === 'request') {
      this.request(m.action!, m.params ?? ({} as RequestParams)).then(
        (result) => this.toHost({ type: 'response', id: m.id, result: result ?? null }),
        (err: Error) => this.toHost({ type: 'response', id: m.id, error: err.message }),
      );
    }
  }

  private async request(action: string, p: RequestParams): Promise<unknown> {
    switch (action) {
      case 'showDiff': {
        const taken = new Set([...this.diffs.values()].map((d) => d.buf));
        let buf = `*proposal ${path.basename(p.filePath)}*`;
        for (let n = 2; taken.has(buf); n++) buf = `*proposal ${path.basename(p.filePath)} <${n}>*`;
        this.diffs.set(p.diffId, { buf, file: p.filePath, newContent: p.newContent });
        await this.ask(() => `ide-show ${kq(buf)} ${kq(p.diffId)} ${kq(p.newContent)} ${p.kept ? 'false' : 'true'}`);
        if (p.words && !p.kept) await this.say(p.words.proposed);
        return null;
      }
      case 'diffText': {
        const diff = this.diffs.get(p.diffId);
        if (!diff) return { text: null };
        const [text] = await this.ask((id) => `ide-text ${id} ${kq(diff.buf)}`);
        const proposal = asProposed(text!, diff.newContent);
        return { text: proposal === diff.newContent ? null : proposal };
      }
      case 'closeDiff': {
        const diff = this.diffs.get(p.diffId);
        this.diffs.delete(p.diffId);
        // A session gone: its proposal stays in its buffer, the user's to save (the message says where).
        if (diff && p.reason !== 'sessionClosed') await this.ask(() => `ide-close ${kq(diff.buf)}`).catch(() => undefined);
        if (diff && p.reason === 'sessionClosed') await this.keep(diff);
        if (p.message) await this.say(p.message);
        return null;
      }
      case 'selectedText': {
        const [length, text] = await this.ask((id) => `ide-selected ${id}`);
        return { text: Number(length) > 1 ? text : null };
      }
      case 'reload':
        await this.ask(() => `ide-reload ${kq(p.path)} ${kq(p.unsavedWarning ?? '')}`).catch(() => undefined);
        return null;
      default:
        throw new Error(`Kakoune has no ${action}`);
    }
  }

  quit(): void {
    if (this.quitting) return;
    this.quitting = true;
    this.host?.stdin.end();
    const timer = setTimeout(() => process.exit(0), 3000);
    timer.unref();
    if (!this.host) process.exit(0);
    this.host.on('exit', () => process.exit(0));
  }
}

function fill1(words: string | undefined, diff: Diff | undefined): string {
  return (words ?? '').replaceAll('{file}', diff?.file ?? 'this file');
}

/** A Kakoune buffer always ends in a newline: a proposal without one gets it back off (the user's other bytes kept). */
export function asProposed(text: string, proposed: string): string {
  return !proposed.endsWith('\n') && text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** The JSON-lines host: installed beside this file (host/), else the repository's bundle (this file is editors/kakoune/host/kak-bridge.mjs). */
function hostPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const installed = path.join(here, 'host', 'ide-companion-bridge.mjs');
  return process.env['IDE_COMPANION_BRIDGE_HOST'] || (fs.existsSync(installed) ? installed : path.join(here, '../../jsonlines/host/ide-companion-bridge.mjs'));
}

function main(argv: string[]): void {
  const [session, dir, kakPid, cwd] = argv;
  if (!session || !dir || !kakPid || !cwd) {
    process.stderr.write('usage: kak-bridge SESSION DIR KAK_PID CWD\n');
    process.exit(2);
  }
  const bridge = new KakBridge(session, Number(kakPid), cwd, hostPath());
  // Read and write: the FIFO never reads as ended between Kakoune's writes.
  const fifo = new net.Socket({ fd: fs.openSync(path.join(dir, 'in'), fs.constants.O_RDWR | fs.constants.O_NONBLOCK), readable: true, writable: false });
  const decoder = new StringDecoder('utf8');
  let buf = '';
  fifo.on('data', (chunk: Buffer) => {
    buf += decoder.write(chunk);
    // Every message ends with the word `.`: parse only then (a 32 MiB accept arrives in many chunks).
    if (!buf.endsWith("'.'")) return;
    try {
      const { messages, rest } = parseMessages(buf);
      buf = rest;
      for (const m of messages) bridge.fromKak(m);
    } catch (err) {
      process.stderr.write(`kak-bridge: dropped what Kakoune wrote: ${(err as Error).message}\n`);
      buf = '';
    }
  });
  bridge.startHost();
  // Kakoune gone without its KakEnd (killed): end too.
  setInterval(() => {
    try {
      process.kill(Number(kakPid), 0);
    } catch {
      bridge.quit();
    }
  }, 2000).unref();
  fifo.on('close', () => bridge.quit());
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
