/**
 * `diagnosticItems`: an end's diagnostics as its editor holds them, unshaped
 * (Vim: the quickfix and location lists, ALE, vim-lsp, coc.nvim; Emacs: flymake, flycheck;
 * Neovim: vim.diagnostic). The host
 * shapes them into `getDiagnostics`' answer (packages/server
 * diagnosticItems.ts), so severity names, 0- or 1-based positions, byte
 * columns, the filter by path and the dedupe are written once, in TypeScript.
 * An end declares `diagnosticItems` beside `getDiagnostics` to be asked this
 * instead of `getDiagnostics`.
 */
import * as z from 'zod/mini';
import { lazySchema } from '../lazySchema.js';

/**
 * `kind` says how to read the rest:
 * - `qf`: a quickfix item (`lnum`, `col` in bytes, `end_lnum`, `end_col`,
 *   `vcol`, `type` E/W/I/N/H, `text`, `nr`, `valid`, `code`), with `line` and
 *   `endLine` the text of its lines when the editor has them (for characters);
 * - `lsp`: `diagnostic`, an LSP Diagnostic (0-based, numeric severity);
 * - `coc`: coc.nvim's list entry (`lnum`, `col`, `end_lnum`, `end_col` in
 *   characters, `severity` Error/Warning/Information/Hint, `message`, `code`);
 * - `emacs`: a flymake diagnostic or flycheck error (`start`, `end`:
 *   `{line, character}`, 1-based characters; `severity` the name of
 *   flymake's type category or flycheck's level: `:error`, `flymake-warning`,
 *   `info`...; `message`, `source`, `code`);
 * - `nvim`: Neovim's vim.diagnostic (`lnum`, `col`, `end_lnum`, `end_col`,
 *   0-based, columns in bytes, `severity` 1-4, `message`, `source`, `code`),
 *   with `line` and `endLine` as for `qf`.
 * `path`: the file, absolute ('' for an item of no file: left out); `source`:
 * who reported it when the item does not say.
 */
export const DiagnosticItemSchema = /* @__PURE__ */ lazySchema(() =>
  z.looseObject({ kind: z.enum(['qf', 'lsp', 'coc', 'emacs', 'nvim']), path: z.string(), source: z.optional(z.string()) }),
);
export type DiagnosticItem = z.infer<typeof DiagnosticItemSchema>;

export const DiagnosticItemsParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({}));
export const DiagnosticItemsResultSchema = /* @__PURE__ */ lazySchema(() => z.object({ items: z.array(DiagnosticItemSchema) }));
