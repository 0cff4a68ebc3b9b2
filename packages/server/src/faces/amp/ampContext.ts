/** The editor's context as Amp's notifications carry it, and "send to agent" as amp.nvim's reference. */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AmpSelectionDidChange, AmpVisibleFilesDidChange, IdeContext } from '@ide-companion/protocol';
import { selectionOf } from '../selection.js';

/** The active file's selection as Amp counts (0-based), or undefined with no active file. */
export function ampSelection(context: IdeContext, backward = false): AmpSelectionDidChange | undefined {
  const selection = selectionOf(context, backward);
  if (!selection) return undefined;
  const { start, end } = selection.selection;
  return {
    uri: selection.fileUrl,
    selections: [
      { range: { startLine: start.line, startCharacter: start.character, endLine: end.line, endCharacter: end.character }, content: selection.text },
    ],
  };
}

/** The files the editor reports open, as `file://` URIs (the active one first). */
export function ampVisibleFiles(context: IdeContext): AmpVisibleFilesDidChange {
  const files = [...(context.workspaceState?.openFiles ?? [])].sort((a, b) => Number(b.isActive ?? false) - Number(a.isActive ?? false));
  return { uris: files.map((f) => pathToFileURL(f.path).href) };
}

/** amp.nvim's reference for "send to agent": `@path` relative to the root holding it (else absolute), `#Lx` or `#Lx-y` (1-based). */
export function ampReference(filePath: string, roots: readonly string[], startLine?: number, endLine?: number): string {
  const root = roots.find((r) => {
    const rel = path.relative(r, filePath);
    return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
  });
  let ref = `@${root ? path.relative(root, filePath) : filePath}`;
  if (startLine !== undefined) ref += endLine !== undefined && endLine !== startLine ? `#L${startLine}-${endLine}` : `#L${startLine}`;
  return ref;
}
