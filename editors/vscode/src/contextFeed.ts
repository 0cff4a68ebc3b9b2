/**
 * Turns what the user does in VS Code into editor events: every open text
 * tab whose file is on disk (not only visible editors), focus with real
 * timestamps, the active editor's cursor and selection, workspace folders,
 * trust, close, rename and delete. Untitled and virtual (non-`file:`)
 * documents never reach the CLI.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { MAX_SELECTED_TEXT_LENGTH } from '@ide-companion/protocol';
import type { Cursor, EditorEvent } from '@ide-companion/protocol';
import { codePointColumn } from './positions.js';

export type EmitEditorEvent = (event: EditorEvent) => void;

/** A file on disk, as an absolute path; undefined for untitled, virtual and diff documents. */
export function filePathOf(uri: vscode.Uri | undefined): string | undefined {
  return uri?.scheme === 'file' ? uri.fsPath : undefined;
}

export function cursorOf(document: vscode.TextDocument, position: vscode.Position): Cursor {
  return { line: position.line + 1, character: codePointColumn(document.lineAt(position.line).text, position.character) };
}

/** The selected text, read only up to what the CLI keeps (a select-all of a huge file costs nothing more). */
export function selectedTextOf(document: vscode.TextDocument, selection: vscode.Selection): string | undefined {
  if (selection.isEmpty) return undefined;
  const start = document.offsetAt(selection.start);
  const end = Math.min(document.offsetAt(selection.end), start + MAX_SELECTED_TEXT_LENGTH + 1);
  return document.getText(new vscode.Range(selection.start, document.positionAt(end)));
}

/** The cursor and selection as an event carries them; a selection made backward (its cursor at its start) says so. */
function positionOf(document: vscode.TextDocument, selection: vscode.Selection): { cursor: Cursor; selectedText?: string; selectionBackward?: true } {
  const selectedText = selectedTextOf(document, selection);
  return {
    cursor: cursorOf(document, selection.active),
    selectedText,
    ...(selectedText !== undefined && selection.isReversed && { selectionBackward: true as const }),
  };
}

export function tabFilePath(tab: vscode.Tab): string | undefined {
  return tab.input instanceof vscode.TabInputText ? filePathOf(tab.input.uri) : undefined;
}

/** Every file open in a text tab, in any group. */
export function openTabPaths(): Set<string> {
  const paths = new Set<string>();
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const p = tabFilePath(tab);
      if (p) paths.add(p);
    }
  }
  return paths;
}

export function workspaceRoots(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => filePathOf(f.uri)).filter((p): p is string => p !== undefined);
}

const isInside = (child: string, parent: string) => child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

export class ContextFeed implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** Files we told the companion about (open tabs), to send close/rename for folders. */
  private known = new Set<string>();

  constructor(private readonly emit: EmitEditorEvent) {}

  /** Sends the current state, then follows changes. */
  start(): void {
    this.emit({ type: 'roots', roots: workspaceRoots() });
    this.emit({ type: 'trust', trusted: vscode.workspace.isTrusted });
    this.known = openTabPaths();
    for (const p of this.known) this.emit({ type: 'open', path: p });
    this.focusActive();
    const w = vscode.window;
    const ws = vscode.workspace;
    this.disposables.push(
      w.onDidChangeActiveTextEditor(() => this.focusActive()),
      // The window regaining focus is a real focus of its active file.
      w.onDidChangeWindowState((state) => state.focused && this.focusActive()),
      w.onDidChangeTextEditorSelection((e) => this.selectionChanged(e)),
      w.tabGroups.onDidChangeTabs(() => this.tabsChanged()),
      ws.onDidChangeWorkspaceFolders(() => this.emit({ type: 'roots', roots: workspaceRoots() })),
      ws.onDidGrantWorkspaceTrust(() => this.emit({ type: 'trust', trusted: true })),
      ws.onDidRenameFiles((e) => this.renamed(e.files)),
      ws.onDidDeleteFiles((e) => this.deleted(e.files)),
      ws.onDidSaveTextDocument((doc) => {
        const p = filePathOf(doc.uri);
        if (p) this.emit({ type: 'saved', path: p });
      }),
    );
  }

  private focusActive(): void {
    const editor = vscode.window.activeTextEditor;
    const p = filePathOf(editor?.document.uri);
    if (!editor || !p) return;
    this.known.add(p);
    this.emit({ type: 'focus', path: p, ...positionOf(editor.document, editor.selection) });
  }

  private selectionChanged(e: vscode.TextEditorSelectionChangeEvent): void {
    if (e.textEditor !== vscode.window.activeTextEditor) return;
    const p = filePathOf(e.textEditor.document.uri);
    const selection = e.selections[0];
    if (!p || !selection) return;
    this.emit({ type: 'cursor', path: p, ...positionOf(e.textEditor.document, selection) });
  }

  private tabsChanged(): void {
    const now = openTabPaths();
    for (const p of this.known) if (!now.has(p)) this.emit({ type: 'close', path: p });
    // A tab opened in the background ranks just below the active file.
    for (const p of now) if (!this.known.has(p)) this.emit({ type: 'open', path: p });
    this.known = now;
  }

  private renamed(files: ReadonlyArray<{ oldUri: vscode.Uri; newUri: vscode.Uri }>): void {
    for (const { oldUri, newUri } of files) {
      const from = filePathOf(oldUri);
      const to = filePathOf(newUri);
      if (!from || !to) continue;
      // A folder's rename moves every open file under it.
      for (const p of [...this.known]) {
        const target = p === from ? to : isInside(p, from) ? to + p.slice(from.length) : undefined;
        if (!target) continue;
        this.emit({ type: 'rename', from: p, to: target });
        this.known.delete(p);
        this.known.add(target);
      }
    }
  }

  private deleted(files: readonly vscode.Uri[]): void {
    for (const uri of files) {
      const gone = filePathOf(uri);
      if (!gone) continue;
      for (const p of [...this.known]) {
        if (p !== gone && !isInside(p, gone)) continue;
        this.emit({ type: 'delete', path: p });
        this.known.delete(p);
      }
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.disposables.length = 0;
  }
}
