/**
 * What the agent asks of its client, answered with the editor as the IDE:
 * `fs/read_text_file` from the file, `fs/write_text_file` through the editor's
 * diff (written only on accept, with the user's bytes exactly), and
 * `session/request_permission` asked of the user: in the editor's diff when
 * the tool call carries a `diff` (the edit the agent is about to make itself,
 * as claude-agent-acp's), else in the terminal. Without an editor, writes are
 * asked in the terminal: nothing is ever written silently. Paths outside the
 * workspace are refused before anything is read or shown.
 */
import { mkdirSync } from 'node:fs';
import { PinnedFileError, readPinned, writePinned } from '@ide-companion/shared/pinnedFiles';
import * as path from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import type {
  Diff,
  PermissionOption,
  ReadTextFileRequest,
  ReadTextFileResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
  WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import type { CompanionClient } from '../companionClient.js';
import { checkWorkspacePath, PathRefused } from './workspacePath.js';

export type { SessionUpdate, ToolCallContent } from '@agentclientprotocol/sdk';

/** The terminal side, as the bridge needs it (the command renders; tests can drive it). */
export interface AgentUi {
  update(update: SessionUpdate): void;
  /** One line for the user (already in words; the UI cleans it for the terminal). */
  notice(line: string): void;
  /** Asks the user to pick one of `choices`; undefined when the question was cancelled (Ctrl-C, /cancel, end of input). */
  choose(question: string, choices: ReadonlyArray<{ id: string; label: string }>): Promise<string | undefined>;
  /** One line of an agent's command (terminal/create), not yet cleaned; `label` names its terminal. Absent: shown as a notice. */
  commandOutput?(label: string, line: string): void;
}

/** The largest file we read for an agent (its answer travels in one message). */
export const MAX_READ_BYTES = 32 * 1024 * 1024;
/** A permission whose tool call changes more files than this is asked in the terminal (each file is one review in the editor). */
export const MAX_REVIEWED_DIFFS = 16;

/** One file of a tool call's diff, accepted in the editor: what the agent proposed, what the user accepted. */
interface Accepted {
  file: string;
  shown: string;
  proposed: string;
  accepted: string;
  /** Already written by us (the agent asked fs/write_text_file): watched only in case the agent writes its own version too. */
  written?: boolean;
}

export interface IdeBridgeOptions {
  ui: AgentUi;
  /** The editor's companion, connected or not (undefined: none was looked for). */
  companion: CompanionClient | undefined;
  /** Where the agent may read and write. */
  roots: readonly string[];
}

export class IdeBridge {
  private saidNoEditor = false;
  /** Tool calls whose diffs were accepted in the editor, by toolCallId, until the agent's write is seen (or the turn ends). */
  private readonly accepted = new Map<string, Accepted[]>();
  /** Writes of the user's edits under way (after the agent wrote its version): awaited before a turn is over. */
  private readonly work = new Set<Promise<void>>();
  /** What the agent is told with the next prompt (the user's edits to its changes). */
  private notes: string[] = [];

  constructor(private readonly options: IdeBridgeOptions) {}

  async readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse> {
    const file = this.check(params.path, false);
    // From the saved file (the companion offers no buffer text: docs/acp.md), by descriptor inside the roots, as every read of ours.
    const text = await this.pinned(() => readPinned(file, MAX_READ_BYTES, { roots: this.options.roots, use: 'read' }));
    if (text === undefined) throw RequestError.invalidParams(undefined, `${params.path} does not exist`);
    const line = params.line ?? undefined;
    const limit = params.limit ?? undefined;
    if (line === undefined && limit === undefined) return { content: text };
    if ((line !== undefined && (!Number.isInteger(line) || line < 1)) || (limit !== undefined && (!Number.isInteger(limit) || limit < 0))) {
      throw RequestError.invalidParams(undefined, 'line must be an integer from 1, limit an integer from 0');
    }
    const lines = text.split('\n');
    const start = (line ?? 1) - 1;
    const picked = lines.slice(start, limit === undefined ? undefined : start + limit);
    // The last line keeps its newline when the file had one after it.
    const endsFile = limit === undefined || start + limit >= lines.length;
    return { content: picked.join('\n') + (picked.length > 0 && !endsFile ? '\n' : '') };
  }

  async writeTextFile(params: WriteTextFileRequest): Promise<Record<string, never>> {
    const file = this.check(params.path, true);
    const { ui, companion } = this.options;
    const shown = path.relative(this.options.roots[0] ?? '/', file) || file;
    // Already reviewed: the permission for this very change was accepted in the editor (Gemini asks, then writes).
    // Taken before any wait: opencode reports the tool call done without waiting for this answer.
    const reviewed = this.takeAccepted(file, params.content);
    // What the file held when the write was asked: what the user reviews against.
    const before = await this.pinned(() => readPinned(file, MAX_READ_BYTES, { roots: this.options.roots, use: 'write' }));
    if (reviewed) {
      try {
        await this.write(file, reviewed.accepted, before);
      } catch (err) {
        // opencode also writes its own version meanwhile: the user's bytes go over exactly that, nothing else.
        const now = await readPinned(file, MAX_READ_BYTES, { roots: this.options.roots, use: 'write' }).catch(() => undefined);
        // Already the user's bytes (written again when the agent reported its own write): done.
        if (now !== reviewed.accepted) {
          if (now !== reviewed.proposed) throw err;
          await this.write(file, reviewed.accepted, reviewed.proposed);
        }
      }
      const edited = reviewed.accepted !== reviewed.proposed;
      if (edited) this.noteEdited(reviewed.shown);
      ui.notice(`wrote ${shown} as accepted in the editor${edited ? ' (with your edits)' : ''}`);
      return {};
    }
    if (companion?.isDiffingEnabled()) {
      let outcome;
      try {
        outcome = await companion.openDiff(file, params.content);
      } catch (err) {
        ui.notice(`the editor's diff of ${shown} failed (${(err as Error).message}); asking here instead`);
        return this.askInTerminal(file, shown, params.content, before);
      }
      if (outcome.status === 'rejected') {
        ui.notice(`rejected in the editor: ${shown} was not written`);
        throw rejected(shown, 'in the editor');
      }
      // The user's bytes exactly: the diff view's text, edits included; refused if the file changed during the review.
      await this.write(file, outcome.content, before);
      if (outcome.content !== params.content) this.noteEdited(shown);
      ui.notice(`accepted in the editor: wrote ${shown}${outcome.content === params.content ? '' : ' (with your edits)'}`);
      return {};
    }
    if (!this.saidNoEditor) {
      this.saidNoEditor = true;
      const why =
        companion?.status.status === 'connected'
          ? 'the editor offers no diffs'
          : `no editor connected${companion?.status.details ? ` (${companion.status.details})` : ''}`;
      ui.notice(`${why}: the agent's writes are asked here`);
    }
    return this.askInTerminal(file, shown, params.content, before);
  }

  async requestPermission(params: RequestPermissionRequest): Promise<RequestPermissionResponse> {
    const diffs = (params.toolCall.content ?? []).filter((c): c is Diff & { type: 'diff' } => c.type === 'diff');
    if (diffs.length > 0 && this.options.companion?.isDiffingEnabled()) {
      const answer = await this.reviewInEditor(params, diffs);
      if (answer) return answer;
    }
    const title = params.toolCall.title ?? params.toolCall.kind ?? 'a tool call';
    const choices = params.options.map((o) => ({ id: o.optionId, label: `${o.name} (${o.kind})` }));
    const picked = await this.options.ui.choose(`The agent asks permission: ${title}`, choices);
    if (picked === undefined) return { outcome: { outcome: 'cancelled' } };
    return { outcome: { outcome: 'selected', optionId: picked } };
  }

  /**
   * A session update from the agent: when a tool call whose diffs were accepted in the editor with the
   * user's edits has completed (the agent wrote its own version), the user's bytes are written over it.
   */
  onUpdate(update: SessionUpdate): void {
    if (update.sessionUpdate !== 'tool_call_update' || (update.status !== 'completed' && update.status !== 'failed')) return;
    const files = this.accepted.get(update.toolCallId);
    if (!files) return;
    this.accepted.delete(update.toolCallId);
    const status = update.status;
    const job = (async () => {
      for (const f of files) if (f.accepted !== f.proposed) await this.applyEdits(f, status === 'completed');
    })();
    this.work.add(job);
    void job.finally(() => this.work.delete(job));
  }

  /** The turn is over: the user's edits still waiting for an agent's write that never came are dropped, and said so. */
  async endTurn(): Promise<void> {
    await Promise.all([...this.work]);
    for (const files of this.accepted.values()) {
      for (const f of files) {
        if (f.accepted !== f.proposed && !f.written) {
          this.options.ui.notice(`the agent did not report writing ${f.shown}: your edits to it were not written`);
        }
      }
    }
    this.accepted.clear();
  }

  /** What the agent should hear with the next prompt, once. */
  takeNotes(): string[] {
    const notes = this.notes;
    this.notes = [];
    return notes;
  }

  /**
   * The tool call's diffs shown one by one in the editor. All accepted: the allow option (the user's edits are
   * written once the agent reports its write); one rejected: the reject option, nothing written. Undefined: it
   * cannot be reviewed there (no allow_once and reject option, a diff that is not a whole file, the editor
   * failed), so the caller asks in the terminal.
   */
  private async reviewInEditor(params: RequestPermissionRequest, diffs: Diff[]): Promise<RequestPermissionResponse | undefined> {
    const { ui, companion } = this.options;
    const allow = params.options.find((o: PermissionOption) => o.kind === 'allow_once');
    const reject = params.options.find((o: PermissionOption) => o.kind === 'reject_once') ?? params.options.find((o) => o.kind === 'reject_always');
    if (!allow || !reject || !companion) return undefined;
    const files = byFile(diffs).size;
    if (files > MAX_REVIEWED_DIFFS) {
      ui.notice(`the agent's change touches ${files} files (more than ${MAX_REVIEWED_DIFFS}): asked here rather than in the editor`);
      return undefined;
    }
    const answer = (option: PermissionOption): RequestPermissionResponse => ({ outcome: { outcome: 'selected', optionId: option.optionId } });
    const accepted: Accepted[] = [];
    for (const [diffPath, parts] of byFile(diffs)) {
      let file: string;
      let before: string | undefined;
      try {
        file = checkWorkspacePath(diffPath, this.options.roots, true);
        before = await readPinned(file, MAX_READ_BYTES, { roots: this.options.roots, use: 'write' });
      } catch (err) {
        if (!(err instanceof PathRefused) && !(err instanceof PinnedFileError)) throw err;
        ui.notice(`refused the agent's change: ${err.message}`);
        return answer(reject);
      }
      const shown = path.relative(this.options.roots[0] ?? '/', file) || file;
      const proposed = parts.every((d) => typeof d.newText === 'string') ? wholeFileOf(before, parts) : undefined;
      if (proposed === undefined) {
        ui.notice(`the agent's change to ${shown} does not apply to the file as it is: asked here rather than in the editor`);
        return undefined;
      }
      let outcome;
      try {
        outcome = await companion.openDiff(file, proposed);
      } catch (err) {
        ui.notice(`the editor's diff of ${shown} failed (${(err as Error).message}); asking here instead`);
        return undefined;
      }
      if (outcome.status === 'rejected') {
        ui.notice(`rejected in the editor: ${shown} was not changed`);
        return answer(reject);
      }
      accepted.push({ file, shown, proposed, accepted: outcome.content });
    }
    this.accepted.set(params.toolCall.toolCallId, accepted);
    for (const f of accepted) {
      ui.notice(`accepted in the editor: ${f.shown}${f.accepted === f.proposed ? '' : ' (with your edits, written once the agent has written its version)'}`);
    }
    return answer(allow);
  }

  /**
   * The accepted review of exactly this write (`file` with `content`), marked written. One with the user's edits
   * stays listed until the tool call ends: opencode writes its own version too, after asking us to write.
   */
  private takeAccepted(file: string, content: string): Accepted | undefined {
    for (const [id, files] of this.accepted) {
      const i = files.findIndex((f) => !f.written && f.file === file && f.proposed === content);
      if (i < 0) continue;
      const found = files[i]!;
      found.written = true;
      if (found.accepted === found.proposed) files.splice(i, 1);
      if (files.length === 0) this.accepted.delete(id);
      return found;
    }
    return undefined;
  }

  /** The agent wrote its version of `f` (or failed to): the user's accepted bytes over it, only if the file holds exactly the agent's version. */
  private async applyEdits(f: Accepted, agentWrote: boolean): Promise<void> {
    const { ui } = this.options;
    if (f.written) {
      // Ours is on disk unless the agent then wrote its own version over it: then the user's bytes again.
      if (!agentWrote) return;
      const now = await readPinned(f.file, MAX_READ_BYTES, { roots: this.options.roots, use: 'write' }).catch(() => undefined);
      if (now !== f.proposed) return;
      try {
        await this.write(f.file, f.accepted, f.proposed);
      } catch (err) {
        ui.notice(`the agent wrote its own version of ${f.shown} over your edits, and yours could not be written again: ${(err as Error).message}`);
        return;
      }
      ui.notice(`the agent wrote its own version of ${f.shown} over your edits: yours written again`);
      return;
    }
    if (!agentWrote) {
      ui.notice(`the agent's change to ${f.shown} failed: your edits to it were not written`);
      return;
    }
    try {
      await this.write(f.file, f.accepted, f.proposed);
    } catch (err) {
      ui.notice(`your edits to ${f.shown} were not written: ${(err as Error).message}`);
      return;
    }
    this.noteEdited(f.shown);
    ui.notice(`wrote your edits to ${f.shown} over the agent's version`);
  }

  private noteEdited(shown: string): void {
    this.notes.push(
      `The user edited your change to ${shown} in the editor before accepting it: the file holds the user's version. Read it again before changing it.`,
    );
  }

  private async askInTerminal(file: string, shown: string, content: string, before: string | undefined): Promise<Record<string, never>> {
    const what = before ? `${countLines(before)} -> ${countLines(content)} lines` : `new file, ${countLines(content)} lines`;
    const answer = await this.options.ui.choose(`The agent wants to write ${shown} (${what}).`, [
      { id: 'write', label: 'write it' },
      { id: 'reject', label: 'do not write it' },
    ]);
    if (answer !== 'write') {
      this.options.ui.notice(`not written: ${shown}`);
      throw rejected(shown, 'in the terminal');
    }
    await this.write(file, content, before);
    this.options.ui.notice(`wrote ${shown}`);
    return {};
  }

  /** By descriptor inside the roots, only if the file still holds `before` (undefined: it must still not exist). */
  private async write(file: string, content: string, before: string | undefined): Promise<void> {
    mkdirSync(path.dirname(file), { recursive: true });
    await this.pinned(async () => writePinned(file, content, { roots: this.options.roots, use: 'write', expect: before ?? null }));
  }

  /** A pinned read or write, its refusal (a link, not a regular file, outside, changed meanwhile) an invalid-params error. */
  private async pinned<T>(io: () => Promise<T>): Promise<T> {
    try {
      return await io();
    } catch (err) {
      if (err instanceof PinnedFileError) throw RequestError.invalidParams(undefined, err.message);
      throw err;
    }
  }

  private check(p: unknown, forWrite: boolean): string {
    try {
      return checkWorkspacePath(p, this.options.roots, forWrite);
    } catch (err) {
      if (err instanceof PathRefused) {
        this.options.ui.notice(`refused the agent's ${forWrite ? 'write' : 'read'}: ${err.message}`);
        throw RequestError.invalidParams(undefined, err.message);
      }
      throw err;
    }
  }
}

/**
 * The whole file after a diff: ACP's `diff` content is the whole file (Gemini's) or, as claude-agent-acp sends
 * an Edit, the replaced fragment (`oldText`, found once in the file) and its replacement. Undefined when it does
 * not apply (the fragment is missing or ambiguous).
 */
export function wholeFile(before: string | undefined, oldText: string | null, newText: string): string | undefined {
  if (oldText === null || oldText === before || (oldText === '' && !before)) return newText;
  if (before === undefined || oldText === '') return undefined;
  const at = before.indexOf(oldText);
  if (at < 0 || before.indexOf(oldText, at + 1) >= 0) return undefined;
  return before.slice(0, at) + newText + before.slice(at + oldText.length);
}

/**
 * The whole file after all of one file's diffs: one diff as wholeFile takes it; several (codex-acp sends each
 * hunk of a patch as a diff of its own, its context lines in both texts) each a fragment found once in the file,
 * none overlapping, applied together. Undefined when they do not apply so.
 */
export function wholeFileOf(before: string | undefined, parts: ReadonlyArray<{ oldText?: string | null; newText: string }>): string | undefined {
  if (parts.length === 1) return wholeFile(before, parts[0]!.oldText ?? null, parts[0]!.newText);
  if (before === undefined) return undefined;
  const found: Array<{ at: number; end: number; newText: string }> = [];
  for (const { oldText, newText } of parts) {
    if (!oldText) return undefined;
    const at = before.indexOf(oldText);
    if (at < 0 || before.indexOf(oldText, at + 1) >= 0) return undefined;
    found.push({ at, end: at + oldText.length, newText });
  }
  found.sort((a, b) => a.at - b.at);
  let out = '';
  let from = 0;
  for (const f of found) {
    if (f.at < from) return undefined;
    out += before.slice(from, f.at) + f.newText;
    from = f.end;
  }
  return out + before.slice(from);
}

/** A tool call's diffs grouped by their path, in the order they came: one review per file. */
function byFile(diffs: readonly Diff[]): Map<string, Diff[]> {
  const files = new Map<string, Diff[]>();
  for (const d of diffs) files.set(d.path, [...(files.get(d.path) ?? []), d]);
  return files;
}

function countLines(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function rejected(shown: string, where: string): RequestError {
  return new RequestError(-32000, `The user rejected the change to ${shown} ${where}; the file was not written.`);
}
