/**
 * DiffView for Neovim: the host decides what to show (disk text and proposal,
 * split into exact buffer lines), lua/ide_companion/diff.lua shows it in a tab.
 * The user's decision comes back as a diffAccept / diffReject notification.
 */
import * as fs from 'node:fs/promises';
import type { DiffCloseReason, DiffView, PendingDiff } from '@ide-companion/server';
import { BufferStateSchema, bufferFromText, textFromBuffer, type BufferContent } from './bufferText.js';
import type { LuaBridge } from './luaBridge.js';

const DIFF_MODULE = 'ide_companion.diff';

export interface DiffSpec {
  id: string;
  path: string;
  proposal: BufferContent;
  /** Absent for a new file. */
  original?: BufferContent;
}

/** The file as it is on disk, or undefined when it does not exist yet. */
async function readOriginal(filePath: string): Promise<string | undefined> {
  try {
    return await fs.readFile(filePath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export class NeovimDiffView implements DiffView {
  constructor(private readonly lua: LuaBridge) {}

  async show(diff: PendingDiff): Promise<void> {
    const original = await readOriginal(diff.filePath);
    const spec: DiffSpec = { id: diff.id, path: diff.filePath, proposal: bufferFromText(diff.newContent) };
    if (original !== undefined) spec.original = bufferFromText(original);
    await this.lua.call(DIFF_MODULE, 'open', spec);
  }

  async currentText(diff: PendingDiff): Promise<string | undefined> {
    const state = await this.lua.call(DIFF_MODULE, 'state', diff.id);
    if (state === null || state === undefined) return undefined;
    return textFromBuffer(BufferStateSchema.parse(state));
  }

  async close(diff: PendingDiff, reason: DiffCloseReason): Promise<void> {
    await this.lua.call(DIFF_MODULE, 'close', diff.id, reason);
  }
}
