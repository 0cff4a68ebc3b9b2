/**
 * The optional actions of the editor seam, answered from VS Code's API:
 * open a file at a line, the open editors, the selection, diagnostics,
 * unsaved state, save. Shapes as in docs/editor-protocol.md.
 */
import * as vscode from 'vscode';
import type { Cursor } from './editorEvents.js';
import { cursorOf, filePathOf, openTabPaths } from './contextFeed.js';
import { utf16Offset } from './positions.js';

export type Severity = 'error' | 'warning' | 'information' | 'hint';

export interface DiagnosticInfo {
  path: string;
  range: { start: Cursor; end: Cursor };
  severity: Severity;
  message: string;
  source?: string;
  code?: string;
}

const SEVERITY: Record<vscode.DiagnosticSeverity, Severity> = {
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

function codeOf(code: vscode.Diagnostic['code']): string | undefined {
  if (code === undefined) return undefined;
  return typeof code === 'object' ? String(code.value) : String(code);
}

export const vscodeCapabilities = {
  async openFile(params: { path: string; line?: number; column?: number }): Promise<null> {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(params.path));
    const options: vscode.TextDocumentShowOptions = { preview: false, preserveFocus: true };
    if (params.line !== undefined) {
      const line = Math.min(Math.max(params.line, 1), document.lineCount) - 1;
      const character = utf16Offset(document.lineAt(line).text, params.column ?? 1);
      const position = new vscode.Position(line, character);
      options.selection = new vscode.Range(position, position);
    }
    await vscode.window.showTextDocument(document, options);
    return null;
  },

  getOpenEditors(): { editors: Array<{ path: string; isActive: boolean; isDirty?: boolean; languageId?: string }> } {
    const active = filePathOf(vscode.window.activeTextEditor?.document.uri);
    const editors = [...openTabPaths()].map((p) => {
      const document = documentFor(p);
      return {
        path: p,
        isActive: p === active,
        ...(document && { isDirty: document.isDirty, languageId: document.languageId }),
      };
    });
    return { editors };
  },

  getSelection(): { path: string; text: string; start: Cursor; end: Cursor } | null {
    const editor = vscode.window.activeTextEditor;
    const p = filePathOf(editor?.document.uri);
    if (!editor || !p) return null;
    const { document, selection } = editor;
    return { path: p, text: document.getText(selection), start: toCursor(document, selection.start), end: toCursor(document, selection.end) };
  },

  getDiagnostics(params: { path?: string }): { diagnostics: DiagnosticInfo[] } {
    const pairs: Array<[vscode.Uri, readonly vscode.Diagnostic[]]> =
      params.path !== undefined ? [[vscode.Uri.file(params.path), vscode.languages.getDiagnostics(vscode.Uri.file(params.path))]] : vscode.languages.getDiagnostics();
    const diagnostics: DiagnosticInfo[] = [];
    for (const [uri, list] of pairs) {
      const p = filePathOf(uri);
      if (!p) continue;
      const document = documentFor(p);
      for (const d of list) {
        const info: DiagnosticInfo = {
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

  checkDocumentDirty(params: { path: string }): { isOpen: boolean; isDirty: boolean } {
    const document = documentFor(params.path);
    return { isOpen: document !== undefined && !document.isClosed, isDirty: document?.isDirty ?? false };
  },

  async saveDocument(params: { path: string }): Promise<{ saved: boolean; message?: string }> {
    const document = documentFor(params.path);
    if (!document) return { saved: false, message: `${params.path} is not open in VS Code` };
    if (!document.isDirty) return { saved: true, message: 'no unsaved changes' };
    const saved = await document.save();
    return saved ? { saved: true } : { saved: false, message: `VS Code could not save ${params.path}` };
  },
};
