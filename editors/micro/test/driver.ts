/**
 * The micro end's conformance driver: a real micro in tmux with the plugin
 * (harness.ts); the user's keys go in through tmux (moves, selections,
 * Ctrl-S, Ctrl-Q), state is read over the test's channel.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentFolders, makeTempDir, waitFor, type EndDriver, type EndSession, type Position } from '@ide-companion/testkit';
import { lua, shownDiffs, startMicro, TIMEOUT, type MicroSession } from './harness.js';

/** Lua that finds the pane showing `file` (or the proposal buffer named `name`) as `p`, in tab `ti`, pane `pi`. */
const findPane = (match: string) =>
  `local p, ti, pi; local tabs = micro.Tabs(); for i = 1, #tabs.List do local t = tabs.List[i]; for j = 1, #t.Panes do local q = t.Panes[j]; if q.Buf ~= nil and ${match} then p, ti, pi = q, i, j end end end `;
const byFile = (file: string) => findPane(`q.Buf.AbsPath == ${lua(file)} and q.Buf.Path:sub(1, 1) == "/"`);

/** The user's keys from anywhere in the active buffer to `p`: top, down, right (micro's Loc counts characters). */
function goTo(s: MicroSession, p: Position): void {
  // No Escape first: micro has no modes, and an Escape right before C-Home's sequence reads as Alt.
  s.keys('C-Home');
  if (p.line > 1) s.keys('-N', String(p.line - 1), 'Down');
  if (p.character > 1) s.keys('-N', String(p.character - 1), 'Right');
}

/** Characters from `a` to `b` in `text` (a line break is one, as Shift-Right crosses it). */
function charsBetween(text: string, a: Position, b: Position): number {
  const lines = text.split(/\r?\n/).map((l) => [...l].length);
  let n = 0;
  for (let line = a.line; line < b.line; line++) n += lines[line - 1]! + 1;
  return n + b.character - a.character;
}

async function proposal(s: MicroSession, file: string): Promise<{ id: string; path: string; text: string }> {
  return waitFor(async () => (await shownDiffs(s)).find((d) => d.path === file), `the proposal for ${file}`, TIMEOUT);
}
/** Makes the proposal's pane the active one, as the user's keys would. */
async function focusProposal(s: MicroSession, file: string): Promise<void> {
  const d = await proposal(s, file);
  const name = `proposal for ${path.basename(file)} [${d.id.slice(0, 8)}]`;
  await s.run(`${findPane(`q.Buf.Path == ${lua(name)}`)} tabs:SetActive(ti - 1); tabs.List[ti]:SetActive(pi - 1)`);
}

export const microDriver: EndDriver = {
  name: 'micro',
  displayName: 'micro',
  unsupported: {
    mention: 'the micro end has no "Send to agent" command',
    swapOnOpen: 'micro has no hook before it reads a file to swap it in',
    agentTerminal: "micro's own terminal (`> ide-agent`) is tested with the real Gemini CLI in geminiBinary.test.ts",
  },
  endOfLine: 'afterLastCharacter',
  restartsHost: true,
  async start(files, options) {
    const dirs = makeTempDir('ide-companion-micro-conformance-');
    const tmp = dirs.path;
    const workspace = path.join(tmp, 'ws');
    fs.mkdirSync(workspace);
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(workspace, name), text);
    const agents = agentFolders(tmp);
    let s: MicroSession;
    try {
      s = await startMicro({
        dirs: { tmp, workspace },
        env: agents.env,
        ...(options?.ampEditFile && { settings: { 'ide_companion.ampeditfile': options.ampEditFile } }),
      });
      await s.discovery();
    } catch (err) {
      dirs.cleanup();
      throw err;
    }
    const session: EndSession = {
      workspace,
      tmpdir: tmp,
      ...agents.session,
      discovery: () => s.discovery(),
      async open(file) {
        // `> tab FILE` as the user types it (the pane showing it if there is one; micro's empty start buffer is replaced).
        await s.run(
          `${byFile(file)} if p then tabs:SetActive(ti - 1); tabs.List[ti]:SetActive(pi - 1) return end; if micro.CurPane() == nil or micro.CurPane().Buf.Path ~= "" then micro.InfoBar():AddTab() end; micro.CurPane():OpenBuffer((buffer.NewBufferFromFile(${lua(file)})))`,
        );
      },
      async moveCursor(p) {
        goTo(s, p);
      },
      async select(sel) {
        const text = fs.readFileSync((await session.cursor!()).path, 'utf8');
        const n = charsBetween(text, sel.start, sel.end);
        goTo(s, sel.backward ? sel.end : sel.start);
        if (n > 0) s.keys('-N', String(n), sel.backward ? 'S-Left' : 'S-Right');
      },
      shownProposal: async (file) => (await proposal(s, file)).text,
      async editProposal(file, text) {
        const d = await proposal(s, file);
        const name = `proposal for ${path.basename(file)} [${d.id.slice(0, 8)}]`;
        await s.run(`${findPane(`q.Buf.Path == ${lua(name)}`)} p.Buf:Replace(p.Buf:Start(), p.Buf:End(), ${lua(text)})`);
      },
      async accept(file) {
        await focusProposal(s, file);
        s.keys('C-s');
      },
      async reject(file) {
        // Ctrl-Q in the proposal (`> ide-reject` is geminiBinary.test.ts's).
        await focusProposal(s, file);
        s.keys('C-q');
      },
      showsProposal: async (file) => (await shownDiffs(s)).some((d) => d.path === file),
      cursor: () =>
        s.run('local bp = micro.CurPane(); local c = bp.Buf:GetActiveCursor(); return { path = bp.Buf.AbsPath, line = c.Y + 1, character = c.X + 1 }'),
      async setWarning(file) {
        // A linter's message on the file's buffer, opened in a tab of its own if no pane shows it (the user's pane stays).
        await s.run(
          `${byFile(file)} if not p then local back = tabs:Active(); micro.InfoBar():AddTab(); p = micro.CurPane(); p:OpenBuffer((buffer.NewBufferFromFile(${lua(file)}))); tabs:SetActive(back) end; p.Buf:AddMessage(buffer.NewMessageAtLine("lint", "w", 1, buffer.MTWarning))`,
        );
      },
      bufferText: async (file) => (await s.run<string | null>(`${byFile(file)} return p and util.String(p.Buf:Bytes())`)) ?? undefined,
      async undo(file) {
        await s.run(`${byFile(file)} p:Undo()`);
      },
      async revert(file) {
        await s.run(`${byFile(file)} p.Buf:ReOpen()`);
      },
      async setReadOnly(file) {
        await s.run(`${byFile(file)} p.Buf:ReOpen(); p.Buf:SetOptionNative("readonly", true)`);
      },
      // "running for ...; N sessions connected (AGENT, ...)", as `> ide-status` says it.
      agentStatus: async () => [...(await s.run<string>('return statusLine()')).matchAll(/connected \(([^)]*)\)/g)].map((m) => m[1]).join(', '),
      async killHost() {
        process.kill(await s.run<number>('return hostPid()'), 'SIGKILL');
      },
      async ping() {
        await s.run('return 1');
      },
      async close() {
        await s.close();
        dirs.cleanup();
      },
    };
    // The harness's session too, for the end's own tests (end.test.ts).
    return Object.assign(session, { micro: s });
  },
};
