/**
 * `ide-companion mcp` through the real MCP SDK client over stdio, against the
 * editor ends on main: the JSON-lines bridge driven by a script (as Vim and
 * Emacs drive it) and `serve`. Neovim's run is in editors/neovim/test/mcp.test.ts.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeTempDir, runNode, waitFor } from '@ide-companion/testkit';
import { bin, isolatedEnv, ScriptedEditor, startMcpAgent, textOf } from './support/mcpAgent.js';

const ALL = ['checkDocumentDirty', 'getDiagnostics', 'getOpenEditors', 'getSelection', 'getWorkspaceFolders', 'openFile', 'saveDocument'];

function setup() {
  const tmp = makeTempDir('ide-companion-mcp-');
  const tmpdir = fs.realpathSync(tmp.path);
  const workspace = path.join(tmpdir, 'ws');
  fs.mkdirSync(workspace);
  return { tmpdir, workspace, cleanup: tmp.cleanup };
}

const diagnostic = (file: string, i: number, severity = 'warning') => ({
  path: file,
  range: { start: { line: i + 1, character: 1 }, end: { line: i + 1, character: 4 } },
  severity,
  message: `problem ${i}`,
  source: 'lint',
});

describe('ide-companion mcp', { timeout: 120_000 }, () => {
  test('with no companion: every editor tool is listed and each call says why, without waiting', async () => {
    const s = setup();
    const agent = await startMcpAgent({ cwd: s.workspace, tmpdir: s.tmpdir });
    try {
      assert.deepEqual(await agent.names(), ALL);
      for (const name of ALL) {
        const r = await agent.call(
          name,
          name === 'openFile' || name === 'saveDocument' || name === 'checkDocumentDirty' ? { path: path.join(s.workspace, 'a.txt') } : {},
        );
        assert.equal(r.isError, true, name);
        assert.match(textOf(r), new RegExp(`^No editor is connected for ${s.workspace}: .*ide-companion doctor`), name);
        assert.doesNotMatch(textOf(r), /\n/, 'one paragraph');
      }
      // Bad arguments are refused by the schema from protocol, before any editor is asked.
      const bad = await agent.call('openFile', { path: 'relative.txt' });
      assert.equal(bad.isError, true);
    } finally {
      await agent.close();
      s.cleanup();
    }
  });

  test('exits 0 when the agent closes stdin, 2 on a bad option; stdout carries MCP only', async () => {
    const s = setup();
    try {
      const closed = await runNode([bin, 'mcp'], { cwd: s.workspace, env: isolatedEnv(s.tmpdir), stdin: '' });
      assert.equal(closed.code, 0, closed.stderr);
      assert.equal(closed.stdout, '');
      const bad = await runNode([bin, 'mcp', '--nope'], { cwd: s.workspace, env: isolatedEnv(s.tmpdir) });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /Usage: ide-companion mcp/);
      const badTimeout = await runNode([bin, 'mcp', '--call-timeout', '0'], { cwd: s.workspace, env: isolatedEnv(s.tmpdir) });
      assert.equal(badTimeout.code, 2);
      assert.match(badTimeout.stderr, /--call-timeout must be a positive number/);
    } finally {
      s.cleanup();
    }
  });

  test('a line that is not JSON gets -32700, one that is no JSON-RPC message -32600 with its id; stdout carries only those', async () => {
    const s = setup();
    try {
      const r = await runNode([bin, 'mcp'], { cwd: s.workspace, env: isolatedEnv(s.tmpdir), stdin: 'not json\n{"jsonrpc":"2.0","id":7,"method":5}\n' });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(
        r.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
        [
          { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: not JSON' } },
          { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' } },
        ],
      );
    } finally {
      s.cleanup();
    }
  });

  // runMcp wrote its option errors itself, raw, beside runCommand's: an unknown option holding OSC 52 reached the terminal.
  test('a bad option reaches the terminal without control characters, with the usage (exit 2)', async () => {
    const s = setup();
    try {
      const r = await runNode([bin, 'mcp', '--\x1b]52;c;aGk\x07x'], { cwd: s.workspace, env: isolatedEnv(s.tmpdir) });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^ide-companion mcp: Unknown option '--\]52;c;aGkx'/);
      assert.match(r.stderr, /Usage: ide-companion mcp/);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(r.stderr, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    } finally {
      s.cleanup();
    }
  });

  test('a scripted editor that appears and goes: the list follows it, calls are forwarded, bounds hold', async () => {
    const s = setup();
    const agent = await startMcpAgent({ cwd: s.workspace, tmpdir: s.tmpdir, args: ['--retry', '200'] });
    let editor: ScriptedEditor | undefined;
    try {
      assert.deepEqual(await agent.names(), ALL);
      const before = agent.listChanged;
      editor = new ScriptedEditor(s.workspace, s.tmpdir, ['getDiagnostics', 'openFile']);
      await editor.ready();
      await waitFor(() => agent.listChanged > before, 'tools/list_changed when the editor appears', 20_000);
      await waitFor(async () => (await agent.names()).join() === 'getDiagnostics,getWorkspaceFolders,openFile', "the editor's tools", 20_000);

      const file = path.join(s.workspace, 'a.c');
      fs.writeFileSync(file, 'int x;\n');
      // Forwarded as is, the companion filtering by severity.
      const calling = agent.call('getDiagnostics', { path: file, severity: 'warning' });
      const ask = await editor.request('getDiagnostics');
      assert.deepEqual(ask.params, { path: file });
      editor.respond(ask, { result: { diagnostics: [diagnostic(file, 0, 'hint'), diagnostic(file, 1, 'error'), diagnostic(file, 2)] } });
      const r = await calling;
      assert.notEqual(r.isError, true, textOf(r));
      assert.deepEqual(
        JSON.parse(textOf(r)).diagnostics.map((d: any) => d.message),
        ['problem 1', 'problem 2'],
      );

      // The companion's cap (500, most severe first) holds through the proxy.
      const many = agent.call('getDiagnostics', {});
      const askMany = await editor.request('getDiagnostics', ask.id);
      editor.respond(askMany, { result: { diagnostics: Array.from({ length: 1000 }, (_, i) => diagnostic(file, i, i === 999 ? 'error' : 'warning')) } });
      const capped = JSON.parse(textOf(await many));
      assert.equal(capped.diagnostics.length, 500);
      assert.equal(capped.diagnostics[0].message, 'problem 999');
      assert.match(capped.truncated, /500 of 1000 diagnostics left out/);

      // openFile inside the workspace reaches the editor; outside, the companion refuses and the editor hears nothing.
      const opening = agent.call('openFile', { path: file, line: 1, column: 5 });
      const open = await editor.request('openFile');
      assert.deepEqual(open.params, { path: file, line: 1, column: 5 });
      editor.respond(open, { result: null });
      assert.deepEqual(JSON.parse(textOf(await opening)), { opened: file, line: 1, column: 5 });
      fs.writeFileSync(path.join(s.tmpdir, 'outside.txt'), 'x\n');
      const outside = await agent.call('openFile', { path: path.join(s.tmpdir, 'outside.txt') });
      assert.equal(outside.isError, true);
      assert.match(textOf(outside), /outside the workspace/);
      assert.equal(editor.fromHost.filter((m) => m.action === 'openFile').length, 1);

      // The editor's own error comes back as the tool's error.
      const failing = agent.call('openFile', { path: file });
      const open2 = await editor.request('openFile', open.id);
      editor.respond(open2, { error: 'no window to show it in' });
      const failed = await failing;
      assert.equal(failed.isError, true);
      assert.match(textOf(failed), /no window to show it in/);

      // The editor goes: every tool listed again, calls explain.
      const beforeGone = agent.listChanged;
      await editor.stop();
      await waitFor(() => agent.listChanged > beforeGone, 'tools/list_changed when the editor goes', 20_000);
      assert.deepEqual(await agent.names(), ALL);
      const after = await agent.call('getDiagnostics', {});
      assert.equal(after.isError, true);
      assert.match(textOf(after), /^No editor is connected/);

      // It comes back with other capabilities (a restart, another plugin version): the list follows again.
      const beforeBack = agent.listChanged;
      editor = new ScriptedEditor(s.workspace, s.tmpdir, ['getOpenEditors']);
      await editor.ready();
      await waitFor(() => agent.listChanged > beforeBack, 'tools/list_changed when the editor is back', 20_000);
      await waitFor(async () => (await agent.names()).join() === 'getOpenEditors,getWorkspaceFolders', 'the new tools', 20_000);
    } finally {
      await editor?.stop();
      await agent.close();
      s.cleanup();
    }
  });

  test('an editor gone mid-call, and a frozen companion, end the call with an error, never a hang', async () => {
    const s = setup();
    const agent = await startMcpAgent({ cwd: s.workspace, tmpdir: s.tmpdir, args: ['--retry', '200', '--call-timeout', '1500'] });
    let editor = new ScriptedEditor(s.workspace, s.tmpdir, ['getDiagnostics']);
    try {
      const ready = await editor.ready();
      await waitFor(async () => (await agent.names()).includes('getDiagnostics') && (await agent.names()).length === 2, "the editor's tools", 20_000);
      // Killed while it holds the request: the companion dies with it.
      const calling = agent.call('getDiagnostics', {});
      await editor.request('getDiagnostics');
      editor.host.kill('SIGKILL');
      const gone = await calling;
      assert.equal(gone.isError, true);
      assert.match(textOf(gone), /failed|did not answer|No editor is connected/);
      // Its discovery file names this test's PID (hello's pid), which stays alive and would keep
      // that file ranked first; a real editor's death takes its PID along.
      fs.rmSync(ready.discoveryFile, { force: true });

      // A frozen companion (its process stopped): our own bound ends the call.
      editor = new ScriptedEditor(s.workspace, s.tmpdir, ['getDiagnostics']);
      await editor.ready();
      await waitFor(async () => (await agent.call('getWorkspaceFolders')).isError !== true, 'a connection to the new editor', 20_000);
      const frozen = agent.call('getDiagnostics', {});
      await editor.request('getDiagnostics');
      editor.host.kill('SIGSTOP');
      const timedOut = await frozen;
      editor.host.kill('SIGCONT');
      assert.equal(timedOut.isError, true);
      assert.match(textOf(timedOut), /did not answer getDiagnostics within 1.5 s/);
    } finally {
      editor.host.kill('SIGCONT');
      await editor.stop();
      await agent.close();
      s.cleanup();
    }
  });

  test("a slow editor: the companion's own bound (5 s) ends the call, and its words reach the agent", async () => {
    const s = setup();
    const agent = await startMcpAgent({ cwd: s.workspace, tmpdir: s.tmpdir, args: ['--retry', '200'] });
    const editor = new ScriptedEditor(s.workspace, s.tmpdir, ['getDiagnostics']);
    try {
      await editor.ready();
      await waitFor(async () => (await agent.call('getWorkspaceFolders')).isError !== true, 'a connection to the editor', 20_000);
      const calling = agent.call('getDiagnostics', {});
      await editor.request('getDiagnostics'); // never answered
      const r = await calling;
      assert.equal(r.isError, true);
      assert.match(textOf(r), /the editor did not answer getDiagnostics within 5 s/);
      // The connection is still good: the next call is answered.
      const next = agent.call('getDiagnostics', {});
      const ask = await editor.request('getDiagnostics', 1);
      editor.respond(ask, { result: { diagnostics: [] } });
      assert.deepEqual(JSON.parse(textOf(await next)), { diagnostics: [] });
    } finally {
      await editor.stop();
      await agent.close();
      s.cleanup();
    }
  });

  // Issue 27: a file name or diagnostic message from the editor's side carrying OSC 52 (a clipboard
  // write), OSC 8 or CSI reached the agent raw, escaped in the JSON text (`\u001b`) or not.
  test('escapes in a file name and a diagnostic message never reach the agent: control characters removed', async () => {
    const s = setup();
    const agent = await startMcpAgent({ cwd: s.workspace, tmpdir: s.tmpdir, args: ['--retry', '200'] });
    const editor = new ScriptedEditor(s.workspace, s.tmpdir, ['getDiagnostics', 'getOpenEditors', 'openFile']);
    const osc52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
    const csi = '\x1b[2J\x9b31m';
    const osc8 = '\x1b]8;;http://127.0.0.1/x\x1b\\';
    const hostile = path.join(s.workspace, `a${osc52}b.c`);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    const control = /[\x00-\x08\x0b-\x1f\x7f-\x9f]|\\u00[01][0-9a-f]|\\u007f|\\u00[89][0-9a-f]|\\[bfr]/i;
    try {
      await editor.ready();
      await waitFor(async () => (await agent.names()).includes('getDiagnostics'), "the editor's tools", 20_000);
      fs.writeFileSync(hostile, 'int x;\n');
      const calling = agent.call('getDiagnostics', {});
      const ask = await editor.request('getDiagnostics');
      editor.respond(ask, { result: { diagnostics: [{ ...diagnostic(hostile, 0), message: `bad${csi} ${osc8}link` }] } });
      const r = await calling;
      assert.notEqual(r.isError, true, textOf(r));
      assert.doesNotMatch(textOf(r), control);
      const [d] = JSON.parse(textOf(r)).diagnostics;
      assert.equal(d.message, 'bad[2J31m ]8;;http://127.0.0.1/x\\link');
      assert.equal(d.path, path.join(s.workspace, 'a]52;c;ZWNobyBwd25lZA==b.c'));

      const listing = agent.call('getOpenEditors', {});
      const askOpen = await editor.request('getOpenEditors');
      editor.respond(askOpen, { result: { editors: [{ path: hostile, isActive: true }] } });
      const open = await listing;
      assert.notEqual(open.isError, true, textOf(open));
      assert.doesNotMatch(textOf(open), control);

      // A path with control characters is refused before the editor hears of it, in words without them.
      const refused = await agent.call('openFile', { path: hostile });
      assert.equal(refused.isError, true);
      // Named with visible escapes (`\u001b`, plain text, not JSON to decode), never raw.
      assert.match(textOf(refused), /holds a control character/);
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      assert.doesNotMatch(textOf(refused), /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);

      // The editor's own error text, echoing escapes: cleaned too.
      const plain = path.join(s.workspace, 'plain.c');
      fs.writeFileSync(plain, 'int y;\n');
      const opening = agent.call('openFile', { path: plain });
      const askFile = await editor.request('openFile');
      editor.respond(askFile, { error: `cannot open ${plain}${csi}${osc52}` });
      const failed = await opening;
      assert.equal(failed.isError, true);
      assert.doesNotMatch(textOf(failed), control);
      assert.match(textOf(failed), /cannot open/);
    } finally {
      await editor.stop();
      await agent.close();
      s.cleanup();
    }
  });

  // runMcp's log lines (stderr, which an agent may show) went out raw: an editor named with OSC 52 reached it.
  test("its log lines carry no control character: an editor's name with OSC 52", async () => {
    const s = setup();
    const agent = await startMcpAgent({ cwd: s.workspace, tmpdir: s.tmpdir, args: ['--retry', '200'] });
    const editor = new ScriptedEditor(s.workspace, s.tmpdir, ['getDiagnostics'], 'Scripted\x1b]52;c;aGk\x07 Editor');
    try {
      await editor.ready();
      await waitFor(() => /connected to Scripted/.test(agent.stderr()), 'the connection logged', 20_000);
      assert.match(agent.stderr(), /ide-companion mcp: connected to Scripted\]52;c;aGk Editor; tools: /);
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      assert.doesNotMatch(agent.stderr(), /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    } finally {
      await editor.stop();
      await agent.close();
      s.cleanup();
    }
  });

  test('serve (no diagnostics): only getOpenEditors and getWorkspaceFolders are listed', async () => {
    const s = setup();
    const serve = spawn(process.execPath, [bin, 'serve', '--workspace', s.workspace, '--no-color'], {
      env: isolatedEnv(s.tmpdir),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    serve.stdout.on('data', (d: Buffer) => (out += d.toString()));
    serve.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const agent = await startMcpAgent({ cwd: s.workspace, tmpdir: s.tmpdir, args: ['--retry', '200'] });
    try {
      await waitFor(async () => (await agent.names()).join() === 'getOpenEditors,getWorkspaceFolders', `serve's tools (serve said: ${out})`, 30_000);
      const folders = JSON.parse(textOf(await agent.call('getWorkspaceFolders')));
      assert.deepEqual(folders, { folders: [s.workspace] });
      const editors = await agent.call('getOpenEditors');
      assert.notEqual(editors.isError, true, textOf(editors));
      assert.ok(Array.isArray(JSON.parse(textOf(editors)).editors));
    } finally {
      await agent.close();
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('exit', r));
      s.cleanup();
    }
  });
});
