/** The shared health report: the items a running host gives every end's health check, and their lines (Emacs's doctor shows them: its tests read them there too). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { healthItems, healthLines } from '../src/healthLines.js';
import { codexHealthItem, type CodexFaceState } from '../src/faces/codexEntry.js';

test('each item says ok, warn, error or info and why; the host checks the files itself', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-health-'));
  const server = net.createServer();
  try {
    const discoveryFile = path.join(dir, 'gemini-ide-server-42-4321.json');
    const socketPath = path.join(dir, 'sock');
    fs.writeFileSync(discoveryFile, '{}');
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    const facts = { ide: 'emacs', displayName: 'Emacs', pid: 7, port: 4321, idePid: 42, agents: ['Gemini CLI', 'Qwen Code'], discoveryFile, socketPath };
    assert.deepEqual(healthItems({ ...facts, sessions: ['Gemini CLI', 'Gemini CLI', 'Claude Code'] }), [
      { level: 'ok', text: 'host running (pid 7), port 4321, 3 CLI sessions (Gemini CLI, Claude Code)' },
      { level: 'ok', text: "agents served: Gemini CLI, Qwen Code (`ide-companion-agents' chooses)" },
      { level: 'ok', text: `discovery file ${discoveryFile}` },
      { level: 'ok', text: `socket ${socketPath}: for gemini in a container, --sandbox or over SSH (ide-companion container, sandbox or ssh HOST)` },
      { level: 'ok', text: 'container: none, or REMOTE_CONTAINERS/SSH_CONNECTION set: gemini dials 127.0.0.1' },
    ]);
    assert.equal(healthItems({ ...facts, sessions: ['Gemini CLI'] })[0]!.text, 'host running (pid 7), port 4321, 1 CLI session (Gemini CLI)');
    assert.equal(healthItems({ ...facts, sessions: [] })[0]!.text, 'host running (pid 7), port 4321, 0 CLI sessions');
    // Each end names its own option; an end not known here gets no parenthesis.
    assert.equal(healthItems({ ...facts, ide: 'neovim', sessions: [] })[1]!.text, "agents served: Gemini CLI, Qwen Code (setup's `agents` chooses)");
    assert.equal(healthItems({ ...facts, ide: 'vim', sessions: [] })[1]!.text, 'agents served: Gemini CLI, Qwen Code (g:ide_companion_agents chooses)');
    assert.equal(healthItems({ ...facts, ide: 'other', sessions: [] })[1]!.text, 'agents served: Gemini CLI, Qwen Code');
    assert.deepEqual(healthItems({ ...facts, sessions: [], workspacePath: '/w' })[3], { level: 'info', text: 'workspace: /w' });
    assert.deepEqual(healthItems({ ...facts, idePid: 43, sessions: [] })[2], {
      level: 'warn',
      text: `discovery file ${discoveryFile} names pid 42, not this Emacs (43)`,
    });

    // Gone since the host started: the report made now says so.
    fs.rmSync(discoveryFile);
    await new Promise((resolve) => server.close(resolve));
    const gone = healthItems({ ...facts, sessions: [], containerHint: 'export GEMINI_CLI_IDE_SERVER_HOST=127.0.0.1' });
    const restart = 'restart the companion: M-x ide-companion-stop, then M-x ide-companion-start';
    assert.deepEqual(gone.slice(2), [
      { level: 'error', text: `discovery file ${discoveryFile} is missing`, advice: ['the CLI cannot find this Emacs', restart] },
      { level: 'error', text: `socket ${socketPath} is missing`, advice: ['gemini elsewhere cannot reach this Emacs', restart] },
      {
        level: 'ok',
        text: "container: this Emacs's terminals get REMOTE_CONTAINERS=1, so gemini there dials 127.0.0.1; in a shell it did not start, `export REMOTE_CONTAINERS=1` before gemini",
      },
    ]);
    // A plain file where the socket was is no socket.
    fs.writeFileSync(socketPath, '');
    assert.equal(healthItems({ ...facts, sessions: [] })[3]!.level, 'error');
    const none = healthItems({ ...facts, discoveryFile: undefined, socketPath: undefined, sessions: [] });
    assert.deepEqual(none.slice(2, 4), [
      { level: 'error', text: 'discovery file: none', advice: [restart] },
      { level: 'warn', text: 'no socket: gemini in a container or over SSH cannot reach this Emacs' },
    ]);

    // The lines of the ends that print them: the verdict padded to five characters, advice indented below.
    assert.deepEqual(healthLines([...gone.slice(0, 1), ...gone.slice(2, 3), { level: 'info', text: 'workspace: /w' }]), [
      'ok   host running (pid 7), port 4321, 0 CLI sessions',
      `FAIL discovery file ${discoveryFile} is missing`,
      '     the CLI cannot find this Emacs',
      `     ${restart}`,
      'info workspace: /w',
    ]);
    assert.deepEqual(healthLines([gone.at(-1)!]), [
      "ok   container: this Emacs's terminals get REMOTE_CONTAINERS=1, so gemini there dials 127.0.0.1; in a shell it did not start, `export REMOTE_CONTAINERS=1` before gemini",
    ]);
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("Codex CLI's item: this companion routes, joined another's router, or refused and why", () => {
  const facts = { ide: 'vim', displayName: 'Vim', pid: 7, port: 1, agents: ['Gemini CLI', 'Codex CLI'], sessions: [] };
  const codexItem = (codex: CodexFaceState) =>
    healthItems({ ...facts, faces: [codexHealthItem(codex)] }).find((i) => i.text.includes('Codex CLI') && !i.text.startsWith('agents'));
  assert.deepEqual(codexItem({ socketPath: '/h/.codex/ipc/ipc.sock', connected: true, router: true }), {
    level: 'ok',
    text: 'Codex CLI: this companion routes /h/.codex/ipc/ipc.sock; codex there takes the context with /ide',
  });
  assert.equal(
    codexItem({ socketPath: '/s', connected: true, router: false })?.text,
    'Codex CLI: joined the router on /s; codex there takes the context with /ide',
  );
  assert.equal(codexItem({ socketPath: '/s', connected: false, router: false })?.level, 'warn');
  assert.deepEqual(codexItem({ socketPath: '/s', connected: false, router: false, refused: '/s is not a socket' }), {
    level: 'warn',
    text: 'Codex CLI not served: /s is not a socket',
    advice: ['codex /ide gets no context from this editor'],
  });
  assert.equal(
    healthItems({ ...facts, agents: ['Gemini CLI'] }).some((i) => i.text.startsWith('Codex CLI')),
    false,
  );
});
