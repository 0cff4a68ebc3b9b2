/**
 * The agent's `terminal/*` requests: each command run as a child of ours, from
 * its argv (never a shell line), in a folder inside the workspace. Its output
 * is shown to the user line by line as it comes (the UI cleans and prefixes
 * it) and kept for `terminal/output` up to the byte limit, cut from the start
 * at a character boundary as the spec says. Every command runs in a process
 * group of its own, so that a kill reaches what it started too; all are killed
 * when the session ends, and a turn's when the turn is cancelled. No question
 * is asked here: agents ask permission (session/request_permission) before a
 * command, and that question is the user's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { RequestError } from '@agentclientprotocol/sdk';
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  KillTerminalRequest,
  ReleaseTerminalRequest,
  TerminalExitStatus,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import { checkWorkspaceDir, PathRefused } from './workspacePath.js';

/** Output kept per terminal when the agent names no limit, and the most it may name. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;
/** Terminals not yet released at once; one more is refused. */
export const MAX_TERMINALS = 16;
/** Lines of one command shown in the user's terminal before the rest are only kept for the agent. */
export const MAX_SHOWN_LINES = 2_000;
/** A line longer than this is shown in pieces (a command writing no newline). */
const MAX_LINE_CHARS = 4_096;
/** After SIGTERM, how long a command's group has before SIGKILL. */
const KILL_GRACE_MS = 1_000;
/** After the command exits, how long its output pipes may stay open (held by what it left running) before the exit is told. */
const EXIT_DRAIN_MS = 300;

export interface TerminalsUi {
  notice(line: string): void;
  /** One line of a command's output (not yet cleaned), `label` naming the terminal. */
  commandOutput?(label: string, line: string): void;
}

interface Term {
  id: string;
  label: string;
  child: ChildProcess;
  chunks: Buffer[];
  bytes: number;
  limit: number;
  truncated: boolean;
  exit: TerminalExitStatus | undefined;
  exited: Promise<TerminalExitStatus>;
  /** Its pipes closed: nothing of its group can write to us any more. */
  closed: boolean;
  turn: number;
  decoder: StringDecoder;
  partial: string;
  shownLines: number;
  killTimer: NodeJS.Timeout | undefined;
}

export class Terminals {
  private readonly live = new Map<string, Term>();
  private next = 1;
  private turn = 0;
  private closed = false;

  constructor(
    private readonly options: {
      ui: TerminalsUi;
      /** Where a command runs when the agent names no cwd (the session's folder). */
      cwd: string;
      roots: readonly string[];
    },
  ) {}

  /** A new turn: the terminals created from now on are its own (killed by its cancel). */
  beginTurn(): void {
    this.turn++;
  }

  async create(params: CreateTerminalRequest): Promise<CreateTerminalResponse> {
    const { ui } = this.options;
    if (this.closed) throw RequestError.internalError(undefined, 'the session is ending');
    if (typeof params.command !== 'string' || params.command === '' || params.command.includes('\0')) {
      throw RequestError.invalidParams(undefined, 'command must be a non-empty string');
    }
    const args = params.args ?? [];
    if (!Array.isArray(args) || args.some((a) => typeof a !== 'string' || a.includes('\0'))) {
      throw RequestError.invalidParams(undefined, 'args must be strings');
    }
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const v of params.env ?? []) {
      if (typeof v?.name !== 'string' || !/^[^=\0]+$/.test(v.name) || typeof v.value !== 'string' || v.value.includes('\0')) {
        throw RequestError.invalidParams(undefined, 'env must be {name, value} strings (a name without "=")');
      }
      env[v.name] = v.value;
    }
    const requested = params.outputByteLimit ?? MAX_OUTPUT_BYTES;
    if (!Number.isSafeInteger(requested) || requested < 0) throw RequestError.invalidParams(undefined, 'outputByteLimit must be an integer from 0');
    const shownCommand = [params.command, ...args].join(' ');
    let cwd = this.options.cwd;
    if (params.cwd !== undefined && params.cwd !== null) {
      try {
        cwd = checkWorkspaceDir(params.cwd, this.options.roots);
      } catch (err) {
        if (!(err instanceof PathRefused)) throw err;
        ui.notice(`refused the agent's command ${shownCommand}: ${err.message}`);
        throw RequestError.invalidParams(undefined, err.message);
      }
    }
    if (this.live.size >= MAX_TERMINALS) {
      ui.notice(`refused the agent's command ${shownCommand}: ${MAX_TERMINALS} terminals are open`);
      throw RequestError.internalError(undefined, `too many terminals (${MAX_TERMINALS} not released): release one first`);
    }
    const id = `term-${this.next++}`;
    const label = `$${id.slice(5)}`;
    // Its own process group (detached): a kill reaches what it starts, and the user's Ctrl-C is ours to route.
    const child = spawn(params.command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, shell: false });
    const started = await new Promise<string | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (err) => resolve(err.message));
    });
    if (started !== undefined) {
      ui.notice(`the agent's command ${shownCommand} could not start: ${started}`);
      throw RequestError.internalError(undefined, `could not start ${params.command}: ${started} (the command is run without a shell)`);
    }
    let settle: (s: TerminalExitStatus) => void = () => undefined;
    const term: Term = {
      id,
      label,
      child,
      chunks: [],
      bytes: 0,
      limit: Math.min(requested, MAX_OUTPUT_BYTES),
      truncated: false,
      exit: undefined,
      exited: new Promise((resolve) => (settle = resolve)),
      closed: false,
      turn: this.turn,
      decoder: new StringDecoder('utf8'),
      partial: '',
      shownLines: 0,
      killTimer: undefined,
    };
    this.live.set(id, term);
    ui.notice(`${label} the agent runs: ${shownCommand}${cwd === this.options.cwd ? '' : ` (in ${cwd})`}`);
    const onData = (chunk: Buffer) => this.onOutput(term, chunk);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const ended = (code: number | null, signal: NodeJS.Signals | null) => {
      if (term.exit) return;
      this.show(term, term.decoder.end(), true);
      term.exit = { exitCode: code, signal };
      if (!this.closed) ui.notice(`${label} ${signal ? `killed by ${signal}` : `exited with code ${code}`}`);
      settle(term.exit);
    };
    // Told at 'close' (all its output read), or shortly after 'exit' when something it started holds the pipes open.
    child.once('exit', (code, signal) => setTimeout(() => ended(code, signal), EXIT_DRAIN_MS).unref());
    child.once('close', (code, signal) => {
      term.closed = true;
      if (term.killTimer) clearTimeout(term.killTimer);
      ended(code, signal);
    });
    return { terminalId: id };
  }

  async output(params: TerminalOutputRequest): Promise<TerminalOutputResponse> {
    const term = this.get(params.terminalId);
    return { output: Buffer.concat(term.chunks).toString('utf8'), truncated: term.truncated, exitStatus: term.exit ?? null };
  }

  async waitForExit(params: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse> {
    const status = await this.get(params.terminalId).exited;
    return { exitCode: status.exitCode ?? null, signal: status.signal ?? null };
  }

  async kill(params: KillTerminalRequest): Promise<Record<string, never>> {
    this.stop(this.get(params.terminalId));
    return {};
  }

  /** Killed if still running, then forgotten: its id is no longer valid. */
  async release(params: ReleaseTerminalRequest): Promise<Record<string, never>> {
    const term = this.get(params.terminalId);
    this.stop(term);
    this.live.delete(term.id);
    return {};
  }

  /** The cancelled turn's commands are killed (their terminals stay, for the agent to read). */
  killTurn(): void {
    for (const term of this.live.values()) if (term.turn === this.turn) this.stop(term);
  }

  /** The session ends: every command killed, waited for (bounded by the SIGKILL after the grace). */
  async closeAll(): Promise<void> {
    this.closed = true;
    const terms = [...this.live.values()];
    for (const term of terms) this.stop(term);
    await Promise.all(terms.map((t) => t.exited));
    this.live.clear();
  }

  private get(id: unknown): Term {
    const term = typeof id === 'string' ? this.live.get(id) : undefined;
    if (!term) throw RequestError.invalidParams(undefined, `no terminal ${String(id)} (unknown or released)`);
    return term;
  }

  /** SIGTERM to the command's group (while anything of it may hold its pipes), SIGKILL after the grace. */
  private stop(term: Term): void {
    if (term.closed || term.killTimer) return;
    signalGroup(term.child, 'SIGTERM');
    term.killTimer = setTimeout(() => signalGroup(term.child, 'SIGKILL'), KILL_GRACE_MS);
  }

  private onOutput(term: Term, chunk: Buffer): void {
    term.chunks.push(chunk);
    term.bytes += chunk.length;
    if (term.bytes > term.limit) {
      // Cut from the start, then past any UTF-8 continuation bytes: the kept text starts on a character.
      const all = Buffer.concat(term.chunks);
      let start = all.length - term.limit;
      while (start < all.length && (all[start]! & 0xc0) === 0x80) start++;
      const kept = Buffer.from(all.subarray(start));
      term.chunks = [kept];
      term.bytes = kept.length;
      term.truncated = true;
    }
    this.show(term, term.decoder.write(chunk), false);
  }

  private show(term: Term, text: string, end: boolean): void {
    term.partial += text;
    const lines = term.partial.split('\n');
    term.partial = lines.pop() ?? '';
    while (term.partial.length > MAX_LINE_CHARS) {
      lines.push(term.partial.slice(0, MAX_LINE_CHARS));
      term.partial = term.partial.slice(MAX_LINE_CHARS);
    }
    if (end && term.partial) {
      lines.push(term.partial);
      term.partial = '';
    }
    for (const line of lines) {
      if (this.closed) return;
      term.shownLines++;
      if (term.shownLines <= MAX_SHOWN_LINES) {
        const { ui } = this.options;
        if (ui.commandOutput) ui.commandOutput(term.label, line);
        else ui.notice(`${term.label} ${line}`);
      } else if (term.shownLines === MAX_SHOWN_LINES + 1) {
        this.options.ui.notice(`${term.label} more than ${MAX_SHOWN_LINES} lines: the rest is not shown (the agent still gets it)`);
      }
    }
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone: the group has no process left.
  }
}
