/**
 * The Vim end's conformance driver: a real Vim in tmux with the plugin
 * (harness.ts); the user's keys go in through tmux, state is read over the
 * test's channel.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, type EndDriver, type EndSession, type Position } from '@ide-companion/testkit';
import { bufferLines, gotoBuffer, startVim, vimString, waitForDiff } from './harness.js';

/** Keys that put the cursor on `p` (1-based, in characters) from Normal or Visual mode. */
const goTo = (p: Position) => `${p.line}G0${p.character > 1 ? `${p.character - 1}l` : ''}`;

export const vimDriver: EndDriver = {
  name: 'vim',
  displayName: 'Vim',
  unsupported: {},
  endOfLine: 'onLastCharacter',
  restartsHost: true,
  async start(files) {
    const dirs = makeTempDir('ide-companion-vim-conformance-');
    const tmp = fs.realpathSync(dirs.path);
    const workspace = path.join(tmp, 'ws');
    fs.mkdirSync(workspace);
    const qwenHome = path.join(tmp, 'qwen');
    const claudeConfigDir = path.join(tmp, 'claude');
    let s: Awaited<ReturnType<typeof startVim>>;
    try {
      s = await startVim({ files, dirs: { tmp, workspace }, env: { QWEN_HOME: qwenHome, CLAUDE_CONFIG_DIR: claudeConfigDir } });
    } catch (err) {
      dirs.cleanup();
      throw err;
    }
    const proposalOf = async (file: string) => (await waitForDiff(s, file)).proposal;
    const session: EndSession = {
      workspace,
      tmpdir: tmp,
      qwenHome,
      claudeConfigDir,
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
      // "connected (AGENT)" a session.
      agentStatus: async () => [...(await s.ex('GeminiStatus')).matchAll(/connected \(([^)]*)\)/g)].map((m) => m[1]).join(', '),
      async killHost() {
        process.kill(await s.expr<number>('ide_companion#host#state().hostPid'), 'SIGKILL');
      },
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
