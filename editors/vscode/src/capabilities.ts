/**
 * The optional actions of the editor seam, answered from VS Code's API:
 * open a file at a line, the open editors, the selection, diagnostics,
 * unsaved state, save. Shapes as in docs/editor-protocol.md.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { Cursor, Diagnostic, DiagnosticSeverity, GetOpenEditorsResult, GetSelectionResult } from '@ide-companion/protocol';
import type { CapabilityActions } from '@ide-companion/server/editorActions';
import { cursorOf, filePathOf, openTabPaths, tabFilePath } from './contextFeed.js';
import { utf16Offset } from './positions.js';

const SEVERITY: Record<vscode.DiagnosticSeverity, DiagnosticSeverity> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function documentFor(filePath: string): vscode.TextDocument | undefined {
  const key = vscode.Uri.file(filePath).toString();
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

/** A position as the protocol counts it; code points need the line's text, else UTF-16 is the best we have. */
function toCursor(document: vscode.TextDocument | undefined, position: vscode.Position): Cursor {
  if (document && position.line < document.lineCount) return cursorOf(document, position);
  return { line: position.line + 1, character: position.character + 1 };
}

function codeOf(code: vscode.Diagnostic['code']): string | number | undefined {
  return typeof code === 'object' ? code.value : code;
}

export const vscodeCapabilities: CapabilityActions = {
  // Defaults (docs/editor-protocol.md): no line keeps the editor's own selection (the top of a file not open yet), no
  // column is the line's start; a line past the end is the last line, a column past the line its end.
  async openFile(params) {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(params.path));
    // preview and focus as the agent asks (Claude's preview, makeFrontmost); else a kept tab and the terminal keeps the focus.
    const options: vscode.TextDocumentShowOptions = { preview: params.preview ?? false, preserveFocus: !(params.focus ?? false) };
    if (params.line !== undefined) {
      // The last line with text, not the empty one VS Code counts after a final newline (as Vim, Neovim and Emacs land).
      const count = document.lineCount;
      const last = count > 1 && document.lineAt(count - 1).text === '' ? count - 1 : count;
      const line = Math.min(Math.max(params.line, 1), last) - 1;
      const character = utf16Offset(document.lineAt(line).text, params.column ?? 1);
      const position = new vscode.Position(line, character);
      let end = position;
      if (params.endLine !== undefined) {
        // Up to, not including, endColumn of endLine; no endColumn: the whole of endLine.
        const endLine = Math.min(Math.max(params.endLine, line + 1), count) - 1;
        const text = document.lineAt(endLine).text;
        end = new vscode.Position(endLine, params.endColumn === undefined ? text.length : utf16Offset(text, params.endColumn));
        if (end.isBefore(position)) end = position;
      }
      options.selection = new vscode.Range(position, end);
    }
    await vscode.window.showTextDocument(document, options);
  },

  getOpenEditors(): GetOpenEditorsResult {
    const active = filePathOf(vscode.window.activeTextEditor?.document.uri);
    const editors = [...openTabPaths()].map((p) => {
      const document = documentFor(p);
      return {
        path: p,
        isActive: p === active,
        ...(document && { isDirty: document.isDirty, languageId: document.languageId, lineCount: document.lineCount }),
        ...tabFields(p),
      };
    });
    return { editors };
  },

  getSelection(): GetSelectionResult {
    const editor = vscode.window.activeTextEditor;
    const p = filePathOf(editor?.document.uri);
    // An empty selection (a bare cursor) is no selection: the documented answer is null, as on every other end.
    if (!editor || !p || editor.selection.isEmpty) return { selection: null };
    const { document, selection } = editor;
    return { selection: { path: p, text: document.getText(selection), start: toCursor(document, selection.start), end: toCursor(document, selection.end) } };
  },

  getDiagnostics(params) {
    const pairs: Array<[vscode.Uri, readonly vscode.Diagnostic[]]> =
      params.path !== undefined
        ? [[vscode.Uri.file(params.path), vscode.languages.getDiagnostics(vscode.Uri.file(params.path))]]
        : vscode.languages.getDiagnostics();
    const diagnostics: Diagnostic[] = [];
    for (const [uri, list] of pairs) {
      const p = filePathOf(uri);
      if (!p) continue;
      const document = documentFor(p);
      for (const d of list) {
        const info: Diagnostic = {
          path: p,
          range: { start: toCursor(document, d.range.start), end: toCursor(document, d.range.end) },
          severity: SEVERITY[d.severity],
          message: d.message,
        };
        if (d.source) info.source = d.source;
        const code = codeOf(d.code);
        if (code !== undefined) info.code = code;
        diagnostics.push(info);
      }
    }
    return { diagnostics };
  },

  checkDocumentDirty(params) {
    const document = documentFor(params.path);
    return { isOpen: document !== undefined && !document.isClosed, isDirty: document?.isDirty ?? false };
  },

  async saveDocument(params) {
    const document = documentFor(params.path);
    if (!document) return { saved: false, message: `${params.path} is not open in VS Code` };
    if (!document.isDirty) return { saved: true, message: 'no unsaved changes' };
    const saved = await document.save();
    return saved ? { saved: true } : { saved: false, message: `VS Code could not save ${params.path}` };
  },

  /**
   * Amp's editFile in `buffer` mode, after the companion's checks (server/src/bufferWrites.ts): the document (opened, or a new file made) takes the text as one edit the user undoes, in the
   * text's line endings (CRLF when every break is one), then is saved.
   */
  async writeBuffer(params) {
    const uri = vscode.Uri.file(params.path);
    let document = documentFor(params.path);
    if (!document) {
      if (!fs.existsSync(params.path)) {
        const create = new vscode.WorkspaceEdit();
        create.createFile(uri, { ignoreIfExists: true });
        if (!(await vscode.workspace.applyEdit(create))) throw new Error(`VS Code could not create ${params.path}`);
      }
      document = await vscode.workspace.openTextDocument(uri);
    }
    // Typed in since the companion's check: still the user's.
    if (document.isDirty) throw new Error(`${params.path} has unsaved changes in VS Code; save or undo them first`);
    const breaks = params.content.split('\n').length - 1;
    const crlf = breaks > 0 && params.content.split('\r\n').length - 1 === breaks;
    const eol = crlf ? vscode.EndOfLine.CRLF : vscode.EndOfLine.LF;
    // The line endings first, on their own (in one edit with the text, VS Code's undo of it lost text).
    if (document.eol !== eol) {
      const endings = new vscode.WorkspaceEdit();
      endings.set(uri, [vscode.TextEdit.setEndOfLine(eol)]);
      if (!(await vscode.workspace.applyEdit(endings))) throw new Error(`VS Code did not change the line endings of ${params.path}`);
    }
    const whole = new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
    const edit = new vscode.WorkspaceEdit();
    edit.replace(uri, whole, crlf ? params.content.replace(/\r\n/g, '\n') : params.content);
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`VS Code did not apply the edit to ${params.path}`);
    if (!(await document.save())) throw new Error(`VS Code could not save ${params.path}`);
  },

  // The companion takes back an openFile whose path was swapped while VS Code opened it: its tabs close, unless unsaved.
  async closeFile(params) {
    const key = vscode.Uri.file(params.path).toString();
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === key && !tab.isDirty);
    if (tabs.length > 0) await vscode.window.tabGroups.close(tabs);
  },
};

/** Where `filePath`'s tab is: pinned, preview, its 0-based group (Claude's getOpenEditors gives them). */
function tabFields(filePath: string): { isPinned?: boolean; isPreview?: boolean; groupIndex?: number } {
  for (const [index, group] of vscode.window.tabGroups.all.entries()) {
    for (const tab of group.tabs) {
      if (tabFilePath(tab) === filePath) {
        return { isPinned: tab.isPinned, isPreview: tab.isPreview, groupIndex: index };
      }
    }
  }
  return {};
}
