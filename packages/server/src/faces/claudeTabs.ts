/**
 * `getOpenEditors` in Claude Code's shape: every field the VS Code extension
 * gives a tab (coder/claudecode.nvim's get_open_editors.lua lists the same),
 * from what the editor said and, where it said nothing, what the companion
 * can work out once for every end: the file's name, its label, its line
 * count on disk, the active file's selection.
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ClaudeSelectionChanged, OpenEditor } from '@ide-companion/protocol';
import { lineCountOf } from './openFileRange.js';

export interface ClaudeTab {
  uri: string;
  isActive: boolean;
  isPinned: boolean;
  isPreview: boolean;
  isDirty: boolean;
  label: string;
  groupIndex: number;
  viewColumn: number;
  isGroupActive: boolean;
  fileName: string;
  languageId: string;
  lineCount: number;
  isUntitled: boolean;
  selection?: { start: { line: number; character: number }; end: { line: number; character: number }; isReversed: boolean };
}

/** One tab; `selection` is the active file's (selectionOf), attached to the active tab only. */
export async function claudeTab(editor: OpenEditor, selection: ClaudeSelectionChanged | undefined, backward: boolean): Promise<ClaudeTab> {
  const groupIndex = editor.groupIndex ?? 0;
  const tab: ClaudeTab = {
    uri: pathToFileURL(editor.path).href,
    isActive: editor.isActive,
    isPinned: editor.isPinned ?? false,
    isPreview: editor.isPreview ?? false,
    isDirty: editor.isDirty ?? false,
    label: path.basename(editor.path),
    groupIndex,
    // VS Code's ViewColumn counts groups from 1.
    viewColumn: groupIndex + 1,
    isGroupActive: editor.isActive,
    fileName: editor.path,
    languageId: editor.languageId ?? 'plaintext',
    lineCount: editor.lineCount ?? (await lineCountOf(editor.path)) ?? 0,
    // Every editor lists files with a path: none is untitled.
    isUntitled: false,
  };
  if (editor.isActive && selection?.filePath === editor.path) {
    tab.selection = { start: selection.selection.start, end: selection.selection.end, isReversed: backward };
  }
  return tab;
}
