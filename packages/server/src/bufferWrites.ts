/**
 * An agent's whole new text of a file written under the user's buffer
 * (Amp's editFile in `buffer` mode), one rule for every end: the companion
 * refuses a buffer with unsaved changes, a read-only one and one whose file
 * changed on disk since the editor read it (the end's `checkDocumentDirty`
 * answer), and a file without write permission; writes the bytes by
 * descriptor as a reviewed accept does (shared/pinnedFiles.ts), only if the
 * file still holds what it held at the check; then asks the end to `reload`
 * its buffers of the file, which keeps undo (Vim and Neovim within
 * 'undoreload', Emacs's revert), so the user undoes the write there. A file
 * no buffer shows is just written. An in-process end with a `writeBuffer` of
 * its own (VS Code) is handed the text after the same checks.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { diffWords } from '@ide-companion/protocol';
import { readPinned, writePinned } from '@ide-companion/shared/pinnedFiles';
import type { EditorActions } from './editorActions.js';
import { describeError } from './logger.js';
import { askEditor } from './tools/askEditor.js';
import type { ToolEnvironment } from './tools/toolDefinition.js';

/** Whether `editor` can take a buffer write: it says whether a buffer is dirty, and rereads one (or writes its own). */
export function canWriteBuffers(editor: EditorActions | undefined): boolean {
  return Boolean(editor?.checkDocumentDirty && (editor.reload || editor.writeBuffer));
}

export interface BufferWrite {
  /** The checked real path (ampRequests.ts editTarget). */
  target: string;
  content: string;
  /** Who writes, as the user reads it ("Amp"), and the editor's name ("Neovim"), for the words. */
  agent: string;
  ideName: string;
  maxBytes: number;
}

/** Why a buffer write was refused: its message says so; nothing was written. */
export class BufferWriteRefused extends Error {
  override name = 'BufferWriteRefused';
}

/**
 * Writes `content` to `target` under its buffer, or throws: BufferWriteRefused (the user's state says no),
 * a PinnedFileError (the file), or the editor's error. Resolves once the editor has reread its buffers: to
 * undefined, or what the agent is told when the file was written but the editor did not reread it.
 */
export async function writeUnderBuffer(env: ToolEnvironment, write: BufferWrite): Promise<string | undefined> {
  const { target, content, ideName } = write;
  const shown = path.basename(target);
  if (Buffer.byteLength(content) > write.maxBytes) throw new BufferWriteRefused(`the content is over the ${write.maxBytes}-byte limit`);
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (stat && !writable(target, stat)) throw new BufferWriteRefused(`${shown} is read-only; nothing was written`);
  const state = await askEditor(env, 'checkDocumentDirty', { path: target });
  if (state.isDirty) throw new BufferWriteRefused(`${shown} has unsaved changes in ${ideName}; save or undo them first`);
  if (state.readOnly) throw new BufferWriteRefused(`${shown} is read-only in ${ideName}; nothing was written`);
  if (state.changedOnDisk) throw new BufferWriteRefused(`${shown} changed on disk since ${ideName} read it; revert its buffer first`);
  const editor = env.editor!;
  if (editor.writeBuffer && !editor.reload) {
    await askEditor(env, 'writeBuffer', { path: target, content });
    return undefined;
  }
  const roots = env.context.getRoots();
  // What the file held at the check: a write that came in since refuses this one (nothing lost on either side).
  const before = await readPinned(target, write.maxBytes, { roots, use: 'write' });
  writePinned(target, content, { roots, use: 'write', expect: before ?? null });
  if (!state.isOpen) return undefined;
  try {
    await askEditor(env, 'reload', { path: target, unsavedWarning: diffWords.notReloaded(shown, write.agent) });
  } catch (err) {
    return `${ideName} did not reread its buffer of it (${describeError(err)}): reload it there`;
  }
  return undefined;
}

/** Whether the user may write `file`: root may write any, so for root no write bit set is read-only. */
function writable(file: string, stat: fs.Stats): boolean {
  if (process.getuid?.() === 0) return (stat.mode & 0o222) !== 0;
  try {
    fs.accessSync(file, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
