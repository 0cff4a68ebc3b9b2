/**
 * `ide-companion agent`'s terminal, in plain lines: the agent's message
 * streamed as it arrives, each tool call and plan on lines of their own, and
 * questions (permission, a write without an editor) answered on the prompt
 * line. Everything the agent sends is cleaned of terminal controls first.
 */
import type { Interface } from 'node:readline';
import { cleanText } from '@ide-companion/protocol';
import type { AgentUi, SessionUpdate, ToolCallContent } from '@ide-companion/client/acp/ideBridge';

interface Question {
  choices: ReadonlyArray<{ id: string; label: string }>;
  resolve: (id: string | undefined) => void;
}

const PLAN_MARK: Record<string, string> = { completed: 'x', in_progress: '~', pending: ' ' };

export class TerminalUi implements AgentUi {
  private midLine = false;
  private question: Question | undefined;
  private readonly toolTitles = new Map<string, string>();

  private rl: Interface | undefined;
  private closed = false;

  /** Nothing more is printed (the session is ending: a disconnection then is ours). */
  close(): void {
    this.closed = true;
  }

  constructor(private readonly out: NodeJS.WritableStream) {}

  /** The prompt line, once there is one (questions wait for it). */
  attach(rl: Interface): void {
    this.rl = rl;
  }

  /** Text that continues the current line (the agent's message). */
  private stream(text: string): void {
    if (!text || this.closed) return;
    this.out.write(text);
    this.midLine = !text.endsWith('\n');
  }

  /** A line of its own: the streamed message is ended first. */
  line(text: string): void {
    if (this.closed) return;
    if (this.midLine) this.out.write('\n');
    this.midLine = false;
    this.out.write(`${cleanText(text)}\n`);
  }

  notice(text: string): void {
    this.line(`[${text}]`);
  }

  /** A line of the agent's command, behind its terminal's label (`$1 | ...`) so that it does not read as ours or the agent's message. */
  commandOutput(label: string, line: string): void {
    this.line(`${label} | ${line}`);
  }

  /** Ends a streamed message (a turn's end). */
  endTurn(): void {
    if (this.midLine) this.out.write('\n');
    this.midLine = false;
  }

  update(update: SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        if (update.content.type === 'text') this.stream(cleanText(update.content.text));
        else this.line(`[${update.content.type}]`);
        return;
      case 'tool_call':
        this.toolTitles.set(update.toolCallId, update.title);
        this.line(`[tool] ${update.title}${update.kind ? ` (${update.kind})` : ''}: ${update.status ?? 'pending'}`);
        this.toolContent(update.content);
        return;
      case 'tool_call_update': {
        if (update.title) this.toolTitles.set(update.toolCallId, update.title);
        const title = this.toolTitles.get(update.toolCallId) ?? update.toolCallId;
        if (update.status) this.line(`[tool] ${title}: ${update.status}`);
        this.toolContent(update.content);
        return;
      }
      case 'plan':
        this.line('[plan]');
        for (const e of update.entries) this.line(`  [${PLAN_MARK[e.status] ?? ' '}] ${e.content}`);
        return;
      case 'current_mode_update':
        this.notice(`mode: ${update.currentModeId}`);
        return;
      default:
        // Thoughts, commands, usage: not shown in this plain-lines view.
        return;
    }
  }

  private toolContent(content: ToolCallContent[] | null | undefined): void {
    for (const c of content ?? []) if (c.type === 'diff') this.line(`  diff: ${c.path}`);
  }

  get asking(): boolean {
    return this.question !== undefined;
  }

  /** Questions are asked one at a time: an agent asking twice at once gets the second after the first. */
  private questions: Promise<unknown> = Promise.resolve();
  private generation = 0;

  choose(question: string, choices: ReadonlyArray<{ id: string; label: string }>): Promise<string | undefined> {
    const generation = this.generation;
    // A cancel also answers the questions queued behind the open one.
    const asked = this.questions.then(() => (generation === this.generation ? this.ask(question, choices) : undefined));
    this.questions = asked.catch(() => undefined);
    return asked;
  }

  private ask(question: string, choices: ReadonlyArray<{ id: string; label: string }>): Promise<string | undefined> {
    this.line(question);
    choices.forEach((c, i) => this.line(`  ${i + 1}) ${c.label}`));
    return new Promise((resolve) => {
      this.question = { choices, resolve };
      this.rl?.setPrompt(`choose 1-${choices.length} (Ctrl-C: cancel)> `);
      this.rl?.prompt();
    });
  }

  /** A typed line while a question is open: true when it was the answer (or refused as one). */
  answer(input: string): boolean {
    const q = this.question;
    if (!q) return false;
    const text = input.trim();
    const n = Number(text);
    const picked = Number.isInteger(n) && n >= 1 && n <= q.choices.length ? q.choices[n - 1] : q.choices.find((c) => c.id === text);
    if (!picked) {
      this.line(`answer with a number from 1 to ${q.choices.length}`);
      this.rl?.prompt();
      return true;
    }
    this.settle(picked.id);
    return true;
  }

  /** Cancels the open question, if any (Ctrl-C, /cancel, end of input). */
  cancelQuestion(): boolean {
    this.generation++;
    if (!this.question) return false;
    this.line('(cancelled)');
    this.settle(undefined);
    return true;
  }

  private settle(id: string | undefined): void {
    const q = this.question;
    this.question = undefined;
    this.rl?.setPrompt('> ');
    q?.resolve(id);
  }
}
