/**
 * The Neovim end's conformance driver: a real headless Neovim with the plugin
 * (harness.ts); the user's keys go in with nvim_input, state is read over RPC.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { waitFor, type AgentTerminal, type DiffEnding, type EndDriver, type EndSession, type Position } from '@ide-companion/testkit';
import { bufferLines, inProposal, startNeovim, TIMEOUT, waitForDiff, type NeovimSession } from './harness.js';

/** Keys that put the cursor on `p` (1-based, in characters) from any mode but Insert. */
const goTo = (p: Position) => `${p.line}G0${p.character > 1 ? `${p.character - 1}l` : ''}`;

/** tmux's key names as Neovim's key notation. */
const KEYS: Record<string, string> = { Enter: '<CR>', BSpace: '<BS>', Escape: '<Esc>' };
const ENDING_KEYS: Partial<Record<DiffEnding, string>> = { accept: ':w', reject: ':q!', close: ':tabclose' };

/**
 * `:Gemini` typed by the user, the agent in Neovim's own terminal. Keys go in
 * with nvim_input, as a UI sends them; the screen is the terminal buffer's
 * visible rows.
 */
async function startAgentTerminal(s: NeovimSession, command: string): Promise<AgentTerminal> {
  // As the user's tmux pane of 200x60: the terminal split gets the columns gemini draws its box in.
  await s.nvim.command('set columns=200 lines=60');
  await s.lua("require('ide_companion').config.terminal.cmd = { ... }", command);
  const input = (keys: string) => s.nvim.input(keys).then(() => undefined);
  await input('<Esc>:Gemini<CR>');
  const { buf, pid } = await waitFor(
    () => s.lua<{ buf: number; pid: number } | null>("return require('ide_companion.terminal').info()").then((i) => i ?? undefined),
    'the terminal job',
    TIMEOUT,
  );
  const screen = () =>
    s
      .lua<string[]>(
        `local buf = ...
         local win = vim.fn.win_findbuf(buf)[1]
         local rows = win and vim.api.nvim_win_get_height(win) or vim.o.lines
         return vim.api.nvim_buf_get_lines(buf, math.max(0, vim.api.nvim_buf_line_count(buf) - rows), -1, false)`,
        buf,
      )
      .then((lines) => lines.join('\n'));
  const term: AgentTerminal = {
    type: (text) => input(text.replace(/</g, '<lt>')),
    keys: (...keys) => input(keys.map((k) => KEYS[k] ?? `<${k}>`).join('')),
    screen,
    hasKeyboard: () => s.lua<boolean>("return vim.api.nvim_get_mode().mode == 't' and vim.api.nvim_get_current_buf() == ...", buf),
    where: async () => `mode ${(await s.nvim.mode).mode}, buffer ${await s.lua<string>('return vim.bo.buftype')}\n--- screen ---\n${await screen()}`,
    async diffShown(file) {
      assert.equal(await s.lua('return vim.bo.buftype'), 'acwrite', 'the cursor is in the proposal');
      // The diff tab's label names the file readably (it was the whole path, each folder cut to a letter):
      // the label Neovim draws, its buffer's name with each folder cut to a letter.
      const label = await s.lua<string>("return vim.fn.pathshorten(vim.fn.fnamemodify(vim.fn.bufname(), ':~'))");
      const name = path.basename(file);
      assert.ok(label.endsWith(name) && label.length <= `i//1/p/${name}`.length, `the tab label ${label}`);
    },
    endDiff: (_file, how) => input(`${ENDING_KEYS[how]}<CR>`),
    async close() {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await input('<C-\\><C-n>');
      await s.lua('pcall(vim.api.nvim_buf_delete, ..., { force = true })', buf);
    },
  };
  return term;
}

export const neovimDriver: EndDriver = {
  name: 'neovim',
  displayName: 'Neovim',
  unsupported: {
    changedOnDisk:
      "Neovim's checkDocumentDirty reports no changedOnDisk: an unmodified buffer whose file changed is reread by the write's reload, nothing of the user's lost",
  },
  agentTerminal: { endings: ENDING_KEYS, variants: { terminal: false } },
  endOfLine: 'onLastCharacter',
  restartsHost: true,
  async start(files, options) {
    // Every agent's folder named, so the host serves every face; Amp's edits through the buffer when asked.
    const s = await startNeovim({
      files,
      copilot: true,
      codex: true,
      amp: true,
      droid: true,
      ...(options?.ampEditFile && { setup: `{ amp_edit_file = '${options.ampEditFile}' }` }),
    });
    await s.discovery();
    const proposalOf = async (file: string) => (await waitForDiff(s, file)).proposal;
    const session: EndSession = {
      workspace: s.workspace,
      tmpdir: s.tmp,
      qwenHome: path.join(s.tmp, 'qwen-home'),
      claudeConfigDir: path.join(s.tmp, 'home', '.claude'),
      ampDataHome: path.join(s.tmp, 'data'),
      copilotHome: path.join(s.tmp, 'home', '.copilot'),
      codexHome: path.join(s.tmp, 'home', '.codex'),
      factoryHome: path.join(s.tmp, 'home'),
      discovery: () => s.discovery(),
      async open(file) {
        await s.nvim.input('<Esc>');
        await s.lua("vim.cmd('edit ' .. vim.fn.fnameescape(...))", file);
      },
      async moveCursor(p) {
        await s.nvim.input(`<Esc>${goTo(p)}`);
      },
      async select(sel) {
        // Visual mode includes the character under the cursor: the last selected one is the one before `end`.
        const last = { line: sel.end.line, character: sel.end.character - 1 };
        const [from, to] = sel.backward ? [last, sel.start] : [sel.start, last];
        await s.nvim.input(`<Esc>${goTo(from)}v${goTo(to)}`);
      },
      async shownProposal(file) {
        const lines = await bufferLines(s, await proposalOf(file));
        return lines.join('\n');
      },
      async editProposal(file, text) {
        const lines = text.replace(/\n$/, '').split('\n');
        await s.lua('vim.api.nvim_buf_set_lines(select(1, ...), 0, -1, false, select(2, ...))', await proposalOf(file), lines);
      },
      async accept(file) {
        await inProposal(s, await proposalOf(file), 'write');
      },
      async reject(file) {
        await inProposal(s, await proposalOf(file), 'GeminiReject');
      },
      async showsProposal(file) {
        const list = await s.lua<Array<{ path: string }>>("return require('ide_companion.diff').list()");
        return list.some((d) => d.path === file);
      },
      async cursor() {
        const [p, line, character] = await s.lua<[string, number, number]>(
          'return { vim.api.nvim_buf_get_name(0), vim.fn.line("."), vim.fn.strchars(vim.fn.getline("."):sub(1, vim.fn.col(".") - 1)) + 1 }',
        );
        return { path: p, line, character };
      },
      async setWarning(file) {
        await s.lua(
          `local ns = vim.api.nvim_create_namespace('test-lint')
           vim.diagnostic.set(ns, vim.fn.bufnr(...), { { lnum = 0, col = 0, severity = vim.diagnostic.severity.WARN, message = 'w' } })`,
          file,
        );
      },
      async mention(file, startLine, endLine) {
        await session.open(file);
        await s.nvim.command(`${startLine},${endLine}GeminiSend`);
      },
      bufferText: (file) =>
        s
          .lua<string | null>(
            `local b = vim.fn.bufnr(...)
             if b < 0 or not vim.api.nvim_buf_is_loaded(b) then return nil end
             return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\\n') .. (vim.bo[b].eol and '\\n' or '')`,
            file,
          )
          .then((text) => text ?? undefined),
      async swapOnOpen(file, swap) {
        await s.lua(
          `local file, swap = ...
           vim.api.nvim_create_autocmd('BufReadPre', { pattern = file, once = true, callback = function() assert(vim.loop.fs_rename(swap, file)) end })`,
          file,
          swap,
        );
      },
      async undo(file) {
        await s.lua("vim.api.nvim_buf_call(vim.fn.bufnr(...), function() vim.cmd('undo') end)", file);
      },
      async setReadOnly(file) {
        await s.lua("vim.api.nvim_buf_call(vim.fn.bufnr(...), function() vim.cmd('edit! | setlocal readonly') end)", file);
      },
      async agentStatus() {
        // One line a session: "  AGENT: CLIENT VERSION (listening)".
        const lines = await s.lua<string[]>("return require('ide_companion').status_lines()");
        return lines.flatMap((l) => /^\s+([^:]+): \S+ /.exec(l)?.[1] ?? []).join(', ');
      },
      async killHost() {
        const hostPid = await waitFor(
          async () => (await s.lua<number | null>('local i = require("ide_companion.host").state.info; return i and i.hostPid')) ?? undefined,
          'the host to report',
          TIMEOUT,
        );
        process.kill(hostPid, 'SIGKILL');
      },
      startAgentTerminal: (command) => startAgentTerminal(s, command),
      async ping() {
        await s.lua('return 1');
      },
      close: () => s.close(),
    };
    return session;
  },
};
