/**
 * The terminal as a diff view, for editors without a plugin: each proposal is
 * printed as a coloured unified diff and answered with a key and Enter:
 * [a]ccept, [r]eject, [e]dit in $VISUAL/$EDITOR (then review again), [d]iff again.
 * Proposals wait in a queue and are reviewed one at a time.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { DiffCloseReason, EditorActions, PendingDiff } from '@ide-companion/server';
import { paint, renderUnifiedDiff } from './renderDiff.js';

export interface DiffOutcomes {
  accept(id: string, content?: string): boolean;
  reject(id: string): boolean;
}

export interface TerminalReviewOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  color: boolean;
  outcomes: DiffOutcomes;
  /** The editor command line ($VISUAL, $EDITOR, vi). */
  editor: string;
  /** Structured events for --json. */
  onEvent?: (event: Record<string, unknown>) => void;
}

interface Entry {
  diff: PendingDiff;
  /** The proposal as the user has edited it so far. */
  proposal: string;
}

export const PROMPT = '[a]ccept  [r]eject  [e]dit  [d]iff again > ';

export class TerminalReview implements EditorActions {
  private readonly queue: Entry[] = [];
  private current: Entry | undefined;
  private editing = false;
  private inputClosed = false;
  private readonly rl: readline.Interface;

  constructor(private readonly options: TerminalReviewOptions) {
    this.rl = readline.createInterface({ input: options.input, terminal: false });
    this.rl.on('line', (line) => this.answer(line));
    this.rl.on('close', () => {
      this.inputClosed = true;
    });
  }

  showDiff(diff: PendingDiff): void {
    this.queue.push({ diff, proposal: diff.newContent });
    this.options.onEvent?.({ event: 'diffOpened', filePath: diff.filePath, session: diff.sessionId, bytes: Buffer.byteLength(diff.newContent) });
    if (this.current) {
      this.print(paint(`(queued: a proposal for ${diff.filePath}; ${this.queue.length} waiting)\n`, 'dim', this.options.color));
    } else {
      this.next();
    }
  }

  diffText(diff: PendingDiff): string | undefined {
    return this.find(diff.id)?.proposal;
  }

  closeDiff(diff: PendingDiff, reason: DiffCloseReason): void {
    const index = this.queue.findIndex((e) => e.diff.id === diff.id);
    if (index !== -1) this.queue.splice(index, 1);
    this.options.onEvent?.({ event: 'diffClosed', filePath: diff.filePath, reason });
    if (this.current?.diff.id === diff.id) {
      this.current = undefined;
      const why =
        reason === 'closedByCli' ? 'answered in the Gemini CLI terminal' : reason === 'replaced' ? 'replaced by a newer proposal' : 'its CLI session ended';
      this.print(`\n${paint(`Proposal for ${diff.filePath} closed: ${why}.`, 'dim', this.options.color)}\n`);
      if (!this.editing) this.next();
    }
  }

  dispose(): void {
    this.rl.close();
  }

  private find(id: string): Entry | undefined {
    if (this.current?.diff.id === id) return this.current;
    return this.queue.find((e) => e.diff.id === id);
  }

  private next(): void {
    this.current = this.queue.shift();
    if (!this.current) return;
    this.render(this.current);
  }

  private render(entry: Entry): void {
    const { diff } = entry;
    const edited = entry.proposal !== diff.newContent ? ' (with your edits)' : '';
    this.print(`\n${paint(`Gemini CLI proposes a change to ${diff.filePath}${edited}:`, 'bold', this.options.color)}\n`);
    this.print(renderUnifiedDiff(diff.filePath, diff.originalContent, entry.proposal, { color: this.options.color }));
    if (this.inputClosed) {
      this.print('(no terminal input: answer this proposal in the Gemini CLI terminal)\n');
    } else {
      this.print(PROMPT);
    }
  }

  private answer(line: string): void {
    const entry = this.current;
    if (!entry || this.editing) return;
    const key = line.trim().toLowerCase()[0];
    switch (key) {
      case 'a': {
        this.current = undefined;
        const edited = entry.proposal !== entry.diff.newContent;
        this.options.outcomes.accept(entry.diff.id, entry.proposal);
        this.print(paint(`Accepted${edited ? ' with your edits' : ''}: Gemini CLI writes ${entry.diff.filePath}.\n`, 'green', this.options.color));
        this.options.onEvent?.({ event: 'diffAccepted', filePath: entry.diff.filePath, edited });
        this.next();
        return;
      }
      case 'r':
        this.current = undefined;
        this.options.outcomes.reject(entry.diff.id);
        this.print(paint(`Rejected: ${entry.diff.filePath} stays as it is.\n`, 'red', this.options.color));
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
        this.print(PROMPT);
    }
  }

  /** Opens the proposal in the user's editor; the saved text becomes the proposal. */
  private async edit(entry: Entry): Promise<void> {
    this.editing = true;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-edit-'));
    const file = path.join(dir, path.basename(entry.diff.filePath));
    try {
      fs.writeFileSync(file, entry.proposal, { mode: 0o600 });
      this.options.input.pause();
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn('sh', ['-c', `${this.options.editor} "$1"`, 'sh', file], { stdio: 'inherit' });
        child.on('exit', (c) => resolve(c));
        child.on('error', () => resolve(-1));
      });
      if (code === 0) entry.proposal = fs.readFileSync(file, 'utf8');
      else this.print(paint(`The editor exited with status ${code}; the proposal is unchanged.\n`, 'red', this.options.color));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      this.options.input.resume();
      this.editing = false;
    }
    if (this.current === entry) this.render(entry);
    else if (!this.current) this.next();
  }

  private print(text: string): void {
    this.options.output.write(text);
  }
}
