/**
 * The Vim end's conformance driver: a real Vim in tmux with the plugin
 * (harness.ts); the user's keys go in through tmux, state is read over the
 * test's channel.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  agentFolders,
  makeTempDir,
  waitFor,
  type AgentTerminal,
  type DiffEnding,
  type EndDriver,
  type EndSession,
  type Position,
} from '@ide-companion/testkit';
import { openAgentTerminal, bufferLines, gotoBuffer, startVim, TIMEOUT, vimString, waitForDiff, type VimSession } from './harness.js';

/** Keys that put the cursor on `p` (1-based, in characters) from Normal or Visual mode. */
const goTo = (p: Position) => `${p.line}G0${p.character > 1 ? `${p.character - 1}l` : ''}`;

const ENDING_KEYS: Partial<Record<DiffEnding, string>> = { accept: ':w', reject: ':q!', close: ':tabclose' };
/** Long enough for a timer's window change, short enough to fail fast on the old code. */
const MODE_TIMEOUT_MS = 5_000;

/** `:Gemini` typed by the user, the agent in Vim's own terminal; keys and screen through tmux. */
async function startAgentTerminal(s: VimSession, command: string): Promise<AgentTerminal> {
  await s.ex(`let g:ide_companion_gemini_cmd = [${vimString(command)}]`);
  const { terminal, pid } = await openAgentTerminal(s, 'Gemini', 'ide_companion_gemini');
  const { tmux } = s;
  return {
    type: (text) => tmux.type(text),
    keys: (...keys) => tmux.keys(...keys),
    screen: () => tmux.screen(),
    // The agent's window, in Terminal-Job mode.
    hasKeyboard: async () => JSON.stringify(await s.expr("[bufnr(''), mode()]")) === JSON.stringify([terminal, 't']),
    where: async () => `mode ${await s.expr<string>('mode()')}, buffer ${await s.expr<string>('&buftype')}\n--- screen ---\n${tmux.screen()}`,
    async diffShown(file) {
      await waitFor(async () => (await s.expr<string>('&buftype')) === 'acwrite', 'the cursor in the proposal', TIMEOUT);
      // The diff tab's label names the file readably (it was the whole path, each folder cut to a letter).
      const tabline = await waitFor(() => tmux.screen().split('\n')[0], 'the tab line');
      const name = path.basename(file);
      const label = tabline.split(/\s+/).find((word) => word.endsWith(name));
      assert.ok(label !== undefined && label.length <= `i//1/p/${name}`.length, `the tab label in ${tabline}`);
    },
    async endDiff(_file, how) {
      s.type(ENDING_KEYS[how]!);
      s.keys('Enter');
    },
    async afterEnd(_file, how) {
      if (how !== 'accept') return;
      // After :w, CTRL-W N leaves Terminal-Job mode at the first try; `i` goes back.
      s.keys('C-w', 'N');
      await waitFor(
        async () => (await s.expr<string>(`term_getstatus(${terminal})`)).includes('normal'),
        'CTRL-W N to leave Terminal-Job mode after :w',
        MODE_TIMEOUT_MS,
      );
      s.type('i');
      await waitFor(async () => (await s.expr<string>('mode()')) === 't', 'Terminal-Job mode again', MODE_TIMEOUT_MS);
    },
    async close() {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await s.ex(`silent! bwipe! ${terminal}`);
    },
  };
}

export const vimDriver: EndDriver = {
  name: 'vim',
  displayName: 'Vim',
  unsupported: {
    changedOnDisk:
      "Vim's checkDocumentDirty reports no changedOnDisk: an unmodified buffer whose file changed is reread by the write's reload, nothing of the user's lost",
  },
  agentTerminal: { endings: ENDING_KEYS, variants: { terminal: false }, quietAfterEnd: true },
  endOfLine: 'onLastCharacter',
  restartsHost: true,
  async start(files, options) {
    const dirs = makeTempDir('ide-companion-vim-conformance-');
    const tmp = fs.realpathSync(dirs.path);
    const workspace = path.join(tmp, 'ws');
    fs.mkdirSync(workspace);
    const agents = agentFolders(tmp);
    let s: Awaited<ReturnType<typeof startVim>>;
    try {
      s = await startVim({
        files,
        dirs: { tmp, workspace },
        env: agents.env,
        ...(options?.ampEditFile && { vimrc: [`let g:ide_companion_amp_edit_file = '${options.ampEditFile}'`] }),
      });
    } catch (err) {
      dirs.cleanup();
      throw err;
    }
    const proposalOf = async (file: string) => (await waitForDiff(s, file)).proposal;
    const session: EndSession = {
      workspace,
      tmpdir: tmp,
      ...agents.session,
      discovery: () => s.discovery(),
      async open(file) {
        s.keys('Escape');
        await s.ex(`edit ${file.replace(/[ \\%#|"]/g, '\\$&')}`);
      },
      async moveCursor(p) {
        s.keys('Escape');
        s.type(goTo(p));
      },
      async select(sel) {
        // Visual mode includes the character under the cursor: the last selected one is the one before `end`.
        const last = { line: sel.end.line, character: sel.end.character - 1 };
        const [from, to] = sel.backward ? [last, sel.start] : [sel.start, last];
        s.keys('Escape');
        s.type(`${goTo(from)}v${goTo(to)}`);
      },
      async shownProposal(file) {
        return (await bufferLines(s, await proposalOf(file))).join('\n');
      },
      async editProposal(file, text) {
        const buf = await proposalOf(file);
        const lines = text.replace(/\n$/, '').split('\n');
        await s.expr(`deletebufline(${buf}, 1, '$')`);
        await s.expr(`setbufline(${buf}, 1, [${lines.map(vimString).join(', ')}])`);
      },
      async accept(file) {
        await gotoBuffer(s, await proposalOf(file));
        s.keys('Escape');
        s.type(':w');
        s.keys('Enter');
      },
      async reject(file) {
        await gotoBuffer(s, await proposalOf(file));
        await s.ex('GeminiReject');
      },
      async showsProposal(file) {
        return (await s.expr<Array<{ path: string }>>('ide_companion#diff#list()')).some((d) => d.path === file);
      },
      async cursor() {
        const [p, line, character] = await s.expr<[string, number, number]>("[expand('%:p'), line('.'), charcol('.')]");
        return { path: p, line, character };
      },
      async setWarning(file) {
        await s.expr(`setqflist([{'filename': ${vimString(file)}, 'lnum': 1, 'col': 1, 'type': 'W', 'text': 'w'}])`);
      },
      async mention(file, startLine, endLine) {
        await session.open(file);
        await s.ex(`${startLine},${endLine}GeminiSend`);
      },
      bufferText: async (file) =>
        (await s.expr<string | null>(
          `bufloaded(${vimString(file)}) ? join(getbufline(${vimString(file)}, 1, '$'), "\\n") .. (getbufvar(${vimString(file)}, '&eol') ? "\\n" : '') : v:null`,
        )) ?? undefined,
      async swapOnOpen(file, swap) {
        await s.ex(`autocmd BufReadPre ${file} ++once call rename(${vimString(swap)}, ${vimString(file)})`);
      },
      async undo(file) {
        await s.ex(`execute 'buffer' fnameescape(${vimString(file)}) | undo`);
      },
      async setReadOnly(file) {
        await s.ex(`execute 'buffer' fnameescape(${vimString(file)}) | edit! | setlocal readonly`);
      },
      // "N CLI session(s) (AGENT, ...)".
      agentStatus: async () => [...(await s.ex('GeminiStatus')).matchAll(/CLI sessions? \(([^)]*)\)/g)].map((m) => m[1]).join(', '),
      async killHost() {
        process.kill(await s.expr<number>('ide_companion#host#state().hostPid'), 'SIGKILL');
      },
      startAgentTerminal: (command) => startAgentTerminal(s, command),
      async ping() {
        await s.expr('1');
      },
      async close() {
        await s.close();
        dirs.cleanup();
      },
    };
    return session;
  },
};
