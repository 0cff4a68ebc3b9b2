/**
 * getDiagnostics' answer from an end's unshaped items (`diagnosticItems`,
 * packages/protocol editor/diagnosticItems.ts): each kind read into 1-based
 * lines and characters with a severity name, kept to one file when asked
 * (through symlinks too), and the same problem reported twice (ALE fills the
 * location list too) listed once. The end only reads what its editor holds.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic, DiagnosticItem, DiagnosticSeverity, EditorDiagnostics } from '@ide-companion/protocol';

const QF_SEVERITY: Readonly<Record<string, DiagnosticSeverity>> = { E: 'error', W: 'warning', I: 'information', N: 'hint', H: 'hint' };
const LSP_SEVERITY: Readonly<Record<number, DiagnosticSeverity>> = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };
const COC_SEVERITY: Readonly<Record<string, DiagnosticSeverity>> = { Error: 'error', Warning: 'warning', Information: 'information', Hint: 'hint' };

type Fields = Record<string, unknown>;

const int = (value: unknown, fallback = 0): number => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const position = (line: number, character: number) => ({ line: Math.max(line, 1), character: Math.max(character, 1) });

function codeOf(value: unknown): string | number | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' || typeof value === 'number' ? value : JSON.stringify(value);
}

/** The 1-based character column of 1-based byte column `col` in `line` (UTF-8); `col` itself when the line is unknown. */
export function charColumn(line: unknown, col: number): number {
  if (col <= 1 || typeof line !== 'string') return Math.max(col, 1);
  return (
    [
      ...Buffer.from(line, 'utf8')
        .subarray(0, col - 1)
        .toString('utf8'),
    ].length + 1
  );
}

function fromQuickfix(item: Fields, path: string, source: string | undefined): Diagnostic | undefined {
  const lnum = int(item['lnum']);
  if (lnum <= 0 || item['valid'] === 0) return undefined;
  const col = int(item['col']);
  // 'vcol' items count screen columns: close enough to characters for a report.
  const start = position(lnum, item['vcol'] ? col : charColumn(item['line'], col));
  const endLnum = int(item['end_lnum']);
  const end = endLnum > 0 ? position(endLnum, charColumn(item['endLine'], Math.max(int(item['end_col']), 1))) : { ...start };
  const nr = int(item['nr']);
  // Untyped entries (:grep, :vimgrep, some :make output) are not known to be errors.
  const severity = QF_SEVERITY[(str(item['type']) ?? '').toUpperCase()] ?? 'information';
  const code = codeOf(item['code']) ?? (nr > 0 ? String(nr) : undefined);
  return {
    path,
    range: { start, end },
    severity,
    message: str(item['text']) ?? '',
    ...(source && { source }),
    ...(code !== undefined && { code: String(code) }),
  };
}

/** LSP positions are 0-based, in UTF-16 units: close enough for a report. */
function fromLsp(item: Fields, path: string, source: string | undefined): Diagnostic | undefined {
  const d = item['diagnostic'] as { range?: { start?: Fields; end?: Fields }; severity?: unknown; message?: unknown; source?: unknown; code?: unknown } | null;
  const range = d?.range;
  if (!d || !range?.start || !range.end) return undefined;
  const at = (p: Fields) => position(int(p['line']) + 1, int(p['character']) + 1);
  const code = codeOf(d.code);
  return {
    path,
    range: { start: at(range.start), end: at(range.end) },
    severity: LSP_SEVERITY[int(d.severity, 1)] ?? 'error',
    message: str(d.message) ?? '',
    ...((str(d.source) ?? source) && { source: str(d.source) ?? source }),
    ...(code !== undefined && { code: String(code) }),
  };
}

function fromCoc(item: Fields, path: string, source: string | undefined): Diagnostic {
  const start = position(int(item['lnum'], 1), int(item['col'], 1));
  const end = position(int(item['end_lnum'], start.line), int(item['end_col'], start.character));
  const code = codeOf(item['code']);
  return {
    path,
    range: { start, end },
    severity: COC_SEVERITY[str(item['severity']) ?? ''] ?? 'error',
    message: str(item['message']) ?? '',
    source: str(item['source']) ?? source ?? 'coc',
    ...(code !== undefined && { code: String(code) }),
  };
}

/** Neovim's vim.diagnostic: 0-based lines, 0-based byte columns, LSP's severity numbers. */
function fromNvim(item: Fields, path: string, source: string | undefined): Diagnostic {
  const lnum = int(item['lnum']);
  const col = int(item['col']);
  const start = position(lnum + 1, charColumn(item['line'], col + 1));
  const end = position(int(item['end_lnum'], lnum) + 1, charColumn(item['endLine'], int(item['end_col'], col) + 1));
  const code = codeOf(item['code']);
  return {
    path,
    range: { start, end },
    severity: LSP_SEVERITY[int(item['severity'], 1)] ?? 'error',
    message: str(item['message']) ?? '',
    ...((str(item['source']) ?? source) && { source: str(item['source']) ?? source }),
    ...(code !== undefined && { code: String(code) }),
  };
}

/** flymake's `:error` and `flymake-error`, flycheck's `error`; any other level (`:note`, `info`, a checker's own) is information. */
const EMACS_SEVERITY: Readonly<Record<string, DiagnosticSeverity>> = { error: 'error', warning: 'warning' };

function fromEmacs(item: Fields, path: string, source: string | undefined): Diagnostic {
  const at = (p: unknown, fallback: { line: number; character: number }) => {
    const f = (typeof p === 'object' && p !== null ? p : {}) as Fields;
    return position(int(f['line'], fallback.line), int(f['character'], fallback.character));
  };
  const start = at(item['start'], { line: 1, character: 1 });
  const level = (str(item['severity']) ?? '').replace(/^:|^flymake-/, '');
  const code = str(item['code']);
  return {
    path,
    range: { start, end: at(item['end'], start) },
    severity: EMACS_SEVERITY[level] ?? 'information',
    message: str(item['message']) ?? '',
    ...(source && { source }),
    ...(code !== undefined && { code }),
  };
}

const READERS = { qf: fromQuickfix, lsp: fromLsp, coc: fromCoc, emacs: fromEmacs, nvim: fromNvim } as const;

/**
 * The diagnostics of `items`: of the file `only` (absolute) when given, else
 * all, or those under one of `roots` when given (the workspace); each problem once.
 */
export function diagnosticsFromItems(items: readonly DiagnosticItem[], only?: string, roots?: readonly string[]): EditorDiagnostics {
  const real = new Map<string, string>();
  const realOf = (p: string) => {
    let r = real.get(p);
    if (r === undefined) {
      try {
        r = fs.realpathSync(p);
      } catch {
        r = p;
      }
      real.set(p, r);
    }
    return r;
  };
  const want = only === undefined ? undefined : realOf(only);
  const under = (roots ?? []).map((root) => realOf(root) + path.sep);
  const inWorkspace = (p: string) => only !== undefined || roots === undefined || under.some((root) => realOf(p).startsWith(root));
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const item of items) {
    if (item.path === '' || (only !== undefined && item.path !== only && realOf(item.path) !== want) || !inWorkspace(item.path)) continue;
    const d = READERS[item.kind](item as Fields, item.path, item.source);
    if (!d) continue;
    const key = JSON.stringify([d.path, d.range.start.line, d.range.start.character, d.message]);
    if (seen.has(key)) continue;
    seen.add(key);
    diagnostics.push(d);
  }
  return { diagnostics };
}
