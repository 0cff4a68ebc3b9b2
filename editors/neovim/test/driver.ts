/**
 * The Neovim end's conformance driver: a real headless Neovim with the plugin
 * (harness.ts); the user's keys go in with nvim_input, state is read over RPC.
 */
import * as path from 'node:path';
import { waitFor, type EndDriver, type EndSession, type Position } from '@ide-companion/testkit';
import { bufferLines, inProposal, startNeovim, TIMEOUT, waitForDiff } from './harness.js';

/** Keys that put the cursor on `p` (1-based, in characters) from any mode but Insert. */
const goTo = (p: Position) => `${p.line}G0${p.character > 1 ? `${p.character - 1}l` : ''}`;

export const neovimDriver: EndDriver = {
  name: 'neovim',
  displayName: 'Neovim',
  unsupported: {},
  endOfLine: 'onLastCharacter',
  restartsHost: true,
  async start(files) {
    const s = await startNeovim({ files });
    await s.discovery();
    const proposalOf = async (file: string) => (await waitForDiff(s, file)).proposal;
    const session: EndSession = {
      workspace: s.workspace,
      tmpdir: s.tmp,
      qwenHome: path.join(s.tmp, 'qwen-home'),
      claudeConfigDir: path.join(s.tmp, 'home', '.claude'),
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
      async ping() {
        await s.lua('return 1');
      },
      close: () => s.close(),
    };
    return session;
  },
};
