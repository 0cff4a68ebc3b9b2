/**
 * The terminal as a diff view, for editors without a plugin: each proposal is
 * printed as a coloured unified diff and answered with one key (raw mode on a
 * TTY; a line on a pipe): [a]ccept, [r]eject, [e]dit in $VISUAL/$EDITOR (then
 * review again), [d]iff again. Proposals wait in a queue and are reviewed one
 * at a time. Paths and text from the proposal are printed through `visible`.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { ReadStream } from 'node:tty';
import { shownPathOf, type DiffCloseReason, type EditorActions, type PendingDiff } from '@ide-companion/server/editorActions';
import { keepProposal, proposalFileName, ProposalDraft } from '@ide-companion/server/keptProposals';
import { paint, renderUnifiedDiff } from './renderDiff.js';
import type { StatusLine } from './statusLine.js';
import { visibleLine } from './visible.js';

export interface DiffOutcomes {
  accept(id: string, content?: string): boolean;
  reject(id: string): boolean;
}

export interface TerminalReviewOptions {
  input: NodeJS.ReadableStream;
  /** Where diffs print, above the status line that holds the prompt. */
  screen: StatusLine;
  color: boolean;
  outcomes: DiffOutcomes;
  /** The editor command line ($VISUAL, $EDITOR, vi); the file is passed as one more argument. */
  editor: string;
  /** Structured events for --json. */
  onEvent?: (event: Record<string, unknown>) => void;
}

interface Entry {
  diff: PendingDiff;
  /** The proposal as the user has edited it so far. */
  proposal: string;
  /** Where the user's edits wait until they decide (a serve killed with -9 cannot keep them otherwise). */
  draft: ProposalDraft;
}

export const PROMPT = '[a]ccept  [r]eject  [e]dit  [d]iff again > ';
const KEYS_HINT = 'press one key: a accept, r reject, e edit, d show the diff again';

/** An editor command of plain words runs without a shell; anything else (quotes, $VARS) through sh, as git does. */
const PLAIN_WORDS = /^[\w./:=@%+,-]+( +[\w./:=@%+,-]+)*$/;

export class TerminalReview implements EditorActions {
  private readonly queue: Entry[] = [];
  private current: Entry | undefined;
  private editing = false;
  private inputClosed = false;
  private readonly rl: readline.Interface | undefined;
  /** The input as a TTY in raw mode (one key, no Enter), or undefined on a pipe. */
  private readonly raw: ReadStream | undefined;
  private readonly onKey = (chunk: string) => this.key(chunk);

  constructor(private readonly options: TerminalReviewOptions) {
    const input = options.input as ReadStream;
    if (input.isTTY === true && typeof input.setRawMode === 'function') {
      this.raw = input;
      input.setRawMode(true);
      input.setEncoding('utf8');
      input.on('data', this.onKey);
      input.on('end', () => {
        this.inputClosed = true;
      });
    } else {
      this.rl = readline.createInterface({ input: options.input, terminal: false });
      this.rl.on('line', (line) => this.answer(line.trim()[0]));
      this.rl.on('close', () => {
        this.inputClosed = true;
      });
    }
  }

  showDiff(diff: PendingDiff): void {
    this.queue.push({ diff, proposal: diff.newContent, draft: new ProposalDraft(diff.id, diff.filePath) });
    this.options.onEvent?.({ event: 'diffOpened', filePath: diff.filePath, session: diff.sessionId, bytes: Buffer.byteLength(diff.newContent) });
    if (this.current) {
      this.options.screen.setNotice(`queued: a proposal for ${visibleLine(shownPathOf(diff))} (${this.queue.length} waiting)`);
    } else {
      this.next();
    }
  }

  diffText(diff: PendingDiff): string | undefined {
    return this.find(diff.id)?.proposal;
  }

  closeDiff(diff: PendingDiff, reason: DiffCloseReason): void {
    const entry = this.find(diff.id);
    const index = this.queue.findIndex((e) => e.diff.id === diff.id);
    if (index !== -1) this.queue.splice(index, 1);
    this.options.onEvent?.({ event: 'diffClosed', filePath: diff.filePath, reason });
    // Its CLI went away (or serve stops with the user's edits in it): nobody can take an answer, but the proposal is kept in a file.
    const keep = reason === 'sessionClosed' || (reason === 'companionStopped' && entry?.proposal !== entry?.diff.newContent);
    const kept = keep && entry ? this.keep(entry) : undefined;
    // Not kept when it was meant to be (the folder unwritable): the draft stays, for the next start to report.
    if (!keep || kept) entry?.draft.drop();
    if (this.current?.diff.id === diff.id || kept) {
      if (this.current?.diff.id === diff.id) this.current = undefined;
      const why =
        reason === 'closedByCli'
          ? `answered in the ${diff.agent} terminal`
          : reason === 'replaced'
            ? 'replaced by a newer proposal'
            : reason === 'companionStopped'
              ? 'the companion stopped'
              : `the ${diff.agent} session ended`;
      this.options.screen.setPrompt('');
      this.print(`\n${paint(`Proposal for ${visibleLine(shownPathOf(diff))} closed: ${why}.`, 'dim', this.options.color)}\n`);
      if (kept) this.print(`${paint(`It is kept in ${visibleLine(kept)}: copy it over the file to apply it.`, 'bold', this.options.color)}\n`);
      if (!this.editing) this.next();
    }
  }

  /** Writes the proposal as it stands into a private folder (0600 in 0700); its path, or undefined when it could not. */
  private keep(entry: Entry): string | undefined {
    try {
      const file = keepProposal(entry.diff.filePath, entry.proposal);
      this.options.onEvent?.({ event: 'diffKept', filePath: entry.diff.filePath, keptIn: file });
      return file;
    } catch {
      return undefined;
    }
  }

  dispose(): void {
    this.rl?.close();
    if (this.raw) {
      this.raw.removeListener('data', this.onKey);
      if (this.raw.isTTY) this.raw.setRawMode(false);
      this.raw.pause();
    }
    this.options.screen.setPrompt('');
  }

  private find(id: string): Entry | undefined {
    if (this.current?.diff.id === id) return this.current;
    return this.queue.find((e) => e.diff.id === id);
  }

  private next(): void {
    this.current = this.queue.shift();
    if (!this.current) {
      this.options.screen.setPrompt('');
      return;
    }
    if (this.queue.length === 0) this.options.screen.setNotice('');
    this.render(this.current);
  }

  private render(entry: Entry): void {
    const { diff } = entry;
    const edited = entry.proposal !== diff.newContent ? ' (with your edits)' : '';
    const title = paint(`${diff.agent} proposes a change to ${visibleLine(shownPathOf(diff))}${edited}:`, 'bold', this.options.color);
    const body = renderUnifiedDiff(shownPathOf(diff), diff.originalContent, entry.proposal, { color: this.options.color });
    const keys = this.inputClosed ? `(no terminal input: answer this proposal in the ${diff.agent} terminal)\n` : this.raw ? `(${KEYS_HINT})\n` : '';
    this.print(`\n${title}\n${body}${keys}`);
    this.options.screen.setPrompt(this.inputClosed ? '' : PROMPT);
  }

  /** One chunk of raw TTY input: a single key decides; escape sequences and pastes do not. */
  private key(chunk: string): void {
    if (chunk === '\x03') {
      // Raw mode turns Ctrl+C into a byte: deliver it as the signal it was.
      process.kill(process.pid, 'SIGINT');
      return;
    }
    // A key typed with Enter out of habit arrives as one chunk when the reader is slow: still one key.
    const typed = chunk.length > 1 ? chunk.replace(/[\r\n]+$/, '') : chunk;
    if ([...typed].length !== 1 || typed === '\x1b') {
      if (this.current && !this.editing) this.options.screen.setNotice(`one key at a time: ${KEYS_HINT}`);
      return;
    }
    this.answer(typed);
  }

  private answer(typed: string | undefined): void {
    const entry = this.current;
    if (!entry || this.editing) return;
    const key = typed?.toLowerCase();
    switch (key) {
      case 'a': {
        this.current = undefined;
        const edited = entry.proposal !== entry.diff.newContent;
        this.options.outcomes.accept(entry.diff.id, entry.proposal);
        entry?.draft.drop();
        this.options.screen.setPrompt('');
        this.print(
          paint(
            `Accepted${edited ? ' with your edits' : ''}: ${entry.diff.agent} writes ${visibleLine(shownPathOf(entry.diff))}.\n`,
            'green',
            this.options.color,
          ),
        );
        this.options.onEvent?.({ event: 'diffAccepted', filePath: entry.diff.filePath, edited });
        this.next();
        return;
      }
      case 'r':
        this.current = undefined;
        this.options.outcomes.reject(entry.diff.id);
        entry?.draft.drop();
        this.options.screen.setPrompt('');
        // A proposed new file is not there to stay as it is: it is not made.
        this.print(
          paint(
            entry.diff.originalContent === undefined
              ? `Rejected: ${visibleLine(shownPathOf(entry.diff))} is not created.\n`
              : `Rejected: ${visibleLine(shownPathOf(entry.diff))} stays as it is.\n`,
            'red',
            this.options.color,
          ),
        );
        this.options.onEvent?.({ event: 'diffRejected', filePath: entry.diff.filePath });
        this.next();
        return;
      case 'e':
        void this.edit(entry);
        return;
      case 'd':
        this.render(entry);
        return;
      default:
        if (this.raw) this.options.screen.setNotice(KEYS_HINT);
        else this.options.screen.setPrompt(PROMPT);
    }
  }

  /** Opens the proposal in the user's editor; the saved text becomes the proposal. */
  private async edit(entry: Entry): Promise<void> {
    this.editing = true;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-edit-'));
    const file = path.join(dir, proposalFileName(entry.diff.filePath));
    const screen = this.options.screen;
    try {
      fs.writeFileSync(file, entry.proposal, { mode: 0o600 });
      screen.suspend();
      this.raw?.setRawMode(false);
      this.options.input.pause();
      const { code, signal } = await runEditor(this.options.editor, file);
      const saved = readIfThere(file);
      if (code === 0 && saved !== undefined) entry.proposal = saved;
      else if (signal && saved !== undefined && saved !== entry.proposal) {
        // Killed (out of memory, a closed terminal), not quit: what the user had saved is their work.
        entry.proposal = saved;
        this.print(
          paint(`The editor was killed (${signal}); what it had saved is the proposal now: review it before you accept.\n`, 'red', this.options.color),
        );
      } else {
        const how = signal ? `was killed (${signal})` : saved === undefined ? 'removed the file' : `exited with status ${code}`;
        this.print(paint(`The editor ${how}; the proposal is unchanged.\n`, 'red', this.options.color));
      }
      if (entry.proposal !== entry.diff.newContent) entry.draft.save(entry.proposal);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      this.raw?.setRawMode(true);
      this.options.input.resume();
      this.editing = false;
      screen.resume();
    }
    if (this.current === entry) this.render(entry);
    else if (!this.current) this.next();
  }

  private print(text: string): void {
    this.options.screen.print(text);
  }
}

function readIfThere(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Runs the editor on `file`, the file always one argument of its own (never part of a shell string). */
function runEditor(editor: string, file: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const [command, args] = PLAIN_WORDS.test(editor.trim())
    ? [editor.trim().split(/ +/)[0]!, [...editor.trim().split(/ +/).slice(1), file]]
    : ['sh', ['-c', `${editor} "$1"`, 'sh', file]];
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve({ code, signal }));
    child.on('error', () => resolve({ code: -1, signal: null }));
  });
}
