/**
 * What the agent asks of its client, answered with the editor as the IDE:
 * `fs/read_text_file` from the file, `fs/write_text_file` through the editor's
 * diff (written only on accept, with the user's bytes exactly), and
 * `session/request_permission` asked of the user. Without an editor, writes are
 * asked in the terminal: nothing is ever written silently. Paths outside the
 * workspace are refused before anything is read or shown.
 */
import { mkdirSync } from 'node:fs';
import { PinnedFileError, readPinned, writePinned } from '@ide-companion/shared/pinnedFiles';
import * as path from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import type {
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
}

/** The largest file we read for an agent (its answer travels in one message). */
export const MAX_READ_BYTES = 32 * 1024 * 1024;

export interface IdeBridgeOptions {
  ui: AgentUi;
  /** The editor's companion, connected or not (undefined: none was looked for). */
  companion: CompanionClient | undefined;
  /** Where the agent may read and write. */
  roots: readonly string[];
}

export class IdeBridge {
  private saidNoEditor = false;

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
    // What the file held when the write was asked: what the user reviews against.
    const before = await this.pinned(() => readPinned(file, MAX_READ_BYTES, { roots: this.options.roots, use: 'write' }));
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
    const title = params.toolCall.title ?? params.toolCall.kind ?? 'a tool call';
    const choices = params.options.map((o) => ({ id: o.optionId, label: `${o.name} (${o.kind})` }));
    const picked = await this.options.ui.choose(`The agent asks permission: ${title}`, choices);
    if (picked === undefined) return { outcome: { outcome: 'cancelled' } };
    return { outcome: { outcome: 'selected', optionId: picked } };
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

function countLines(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function rejected(shown: string, where: string): RequestError {
  return new RequestError(-32000, `The user rejected the change to ${shown} ${where}; the file was not written.`);
}
