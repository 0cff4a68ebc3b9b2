/** What the host tells the Lua to print and report (statusReport.ts), and the selections it shapes (neovimEditor.ts): pure rules. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusReport, type ReportedCompanion } from '../src/host/statusReport.js';
import { selectionFromNeovim } from '../src/host/neovimEditor.js';

const companion: ReportedCompanion = {
  port: 4242,
  discoveryFilePath: '/tmp/gemini/ide/gemini-ide-server-77-4242.json',
  socketPath: '/tmp/ide-companion-1/77-4242/s.sock',
  workspacePath: '/w',
  agentNames: ['Gemini CLI', 'Claude Code'],
};
const session = { id: 's', clientName: 'claude-code', clientVersion: '2.1', streamOpen: true, connectedAt: 0, agent: 'claude' as const };

test(':GeminiStatus lines: the port, the files, the agents, a line a session', () => {
  const { lines } = statusReport(companion, [session]);
  assert.deepEqual(lines, [
    `ide-companion: running on 127.0.0.1:4242 (host pid ${process.pid})`,
    'workspace: /w',
    'discovery file: /tmp/gemini/ide/gemini-ide-server-77-4242.json',
    'socket: /tmp/ide-companion-1/77-4242/s.sock',
    'agents: Gemini CLI, Claude Code',
    '1 CLI session connected',
    '  Claude Code: claude-code 2.1 (listening)',
  ]);
  assert.equal(statusReport(companion, []).lines.at(-1), '0 CLI sessions connected');
});

test('selections: Neovim byte columns become characters, made backward or forward, linewise whole lines', () => {
  const lines = ['héllo wörld', '€uro 😀x'];
  // "llo wörld\n€uro 😀" charwise, from byte 3 of line 1 to the emoji (byte 7 of line 2), both ways.
  const forward = { path: '/w/a.txt', kind: 'v', anchor: [1, 3] as [number, number], cursor: [2, 7] as [number, number], first: 1, lines };
  const expected = { path: '/w/a.txt', text: 'llo wörld\n€uro 😀', start: { line: 1, character: 3 }, end: { line: 2, character: 6 } };
  assert.deepEqual(selectionFromNeovim(forward), expected);
  assert.deepEqual(selectionFromNeovim({ ...forward, anchor: [2, 7], cursor: [1, 3] }), expected);
  // On one line, up to the end of the last character; past the line's end (a `$` selection) is its end.
  assert.equal(selectionFromNeovim({ ...forward, anchor: [1, 1], cursor: [1, 1], lines: ['héllo'] }).text, 'é');
  assert.equal(selectionFromNeovim({ ...forward, anchor: [1, 1], cursor: [1, 2147483647], lines: ['héllo'] }).text, 'éllo');
  // Linewise: whole lines, the end on the last line's last byte.
  assert.deepEqual(selectionFromNeovim({ ...forward, kind: 'V', anchor: [2, 4], cursor: [1, 5] }), {
    path: '/w/a.txt',
    text: 'héllo wörld\n€uro 😀x',
    start: { line: 1, character: 1 },
    end: { line: 2, character: 7 },
  });
});
