/**
 * The companion's context as Codex CLI's `ide-context` answer
 * (ide_context.rs): the active file with its 0-based selection and the
 * selected text, and the open files as tabs, paths relative to the root the
 * CLI asked for. The same context every end already sends; nothing here
 * is Codex's own but the shape.
 */
import * as path from 'node:path';
import { CODEX_MAX_SELECTION_CHARS, type CodexFileDescriptor, type CodexIdeContext, type CodexRequest, type IdeContext } from '@ide-companion/protocol';
import { selectionOf } from './selection.js';

/** At most this many tabs: the context tracker sends 10; a bound all the same. */
const MAX_TABS = 100;

export function codexIdeContext(context: IdeContext, selectionBackward: boolean, workspaceRoot: string): CodexIdeContext {
  const files = context.workspaceState?.openFiles ?? [];
  const describe = (fsPath: string): CodexFileDescriptor => ({ label: path.basename(fsPath), path: relativeTo(workspaceRoot, fsPath), fsPath });
  const openTabs = files.slice(0, MAX_TABS).map((f) => describe(f.path));
  const selection = selectionOf(context, selectionBackward);
  if (!selection) return { openTabs };
  const range = { start: selection.selection.start, end: selection.selection.end };
  return {
    activeFile: {
      ...describe(selection.filePath),
      selection: range,
      activeSelectionContent: cutSelection(selection.text),
      selections: selection.selection.isEmpty ? [] : [range],
    },
    openTabs,
  };
}

/** The CLI's own cap, in characters (code points), never splitting one. */
function cutSelection(text: string): string {
  if (text.length <= CODEX_MAX_SELECTION_CHARS) return text;
  return Array.from(text).slice(0, CODEX_MAX_SELECTION_CHARS).join('');
}

/** Relative to the root when inside it ("src/a.ts"), else the absolute path (both are absolute and normalized: the tracker's and the roots'). */
function relativeTo(root: string, fsPath: string): string {
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return fsPath.startsWith(prefix) && fsPath.length > prefix.length ? fsPath.slice(prefix.length) : fsPath;
}

/** The longest of `roots` that is `workspaceRoot` or holds it; undefined when none does. */
export function rootHolding(roots: readonly string[], workspaceRoot: string): string | undefined {
  let best: string | undefined;
  for (const root of roots) {
    const holds = workspaceRoot === root || workspaceRoot.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
    if (holds && (best === undefined || root.length > best.length)) best = root;
  }
  return best;
}

/** The workspace root an ide-context asks for: an absolute path, else undefined (no folder holds it: no-client-found). */
export function codexWorkspaceRoot(request: CodexRequest): string | undefined {
  const root = (request.params as { workspaceRoot?: unknown } | undefined)?.workspaceRoot;
  return typeof root === 'string' && root.startsWith('/') ? root : undefined;
}
