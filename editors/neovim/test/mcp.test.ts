/**
 * `ide-companion mcp` with a real headless Neovim: diagnostics planted with
 * vim.diagnostic.set reach the agent, and openFile moves Neovim's cursor.
 * First through the MCP SDK client over stdio; then end to end with the real
 * Gemini CLI 0.61.0, its extension installed by `ide-companion install gemini`
 * in a throwaway HOME, and a scripted model turn calling getDiagnostics then
 * openFile: the request the CLI sends to the model next holds the diagnostics.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  findGeminiCli,
  functionCallTurn,
  HEADLESS_TRIGGER_ENV,
  makeGeminiHome,
  repoRoot,
  runNode,
  shellCommand,
  skipUnless,
  STRAY_IDE_ENV,
  Tmux,
  waitFor,
  which,
  writeFakeResponses,
} from '@ide-companion/testkit';
import { hasNvim, startNeovim, type NeovimSession } from './harness.js';

const bin = path.join(repoRoot, 'packages', 'cli', 'bin', 'ide-companion.js');
const cli = findGeminiCli();
const skipNvim = skipUnless(hasNvim, 'nvim', 'apt-get install -y neovim');
const skipGemini =
  skipNvim ||
  skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh') ||
  skipUnless(which('tmux') !== undefined, 'tmux', 'apt-get install -y tmux');

const START_TIMEOUT_MS = 120_000;
const STEP_TIMEOUT_MS = 60_000;
const SOURCE = 'local x = 1\nlocal unused = 2\nreturn x\n';

/** a.lua open in Neovim with two diagnostics, as a language server would set them. */
async function plantDiagnostics(s: NeovimSession): Promise<string> {
  const file = path.join(s.workspace, 'a.lua');
  await s.nvim.command('edit a.lua');
  await s.lua(
    `local ns = vim.api.nvim_create_namespace('test-lsp')
     vim.diagnostic.set(ns, 0, {
       { lnum = 1, col = 6, end_lnum = 1, end_col = 12, severity = vim.diagnostic.severity.WARN, message = 'unused local unused', source = 'luals', code = 'unused-local' },
       { lnum = 2, col = 7, end_lnum = 2, end_col = 8, severity = vim.diagnostic.severity.ERROR, message = 'undefined global x2', source = 'luals' },
     })`,
  );
  // Another buffer in front, so openFile has somewhere to go.
  fs.writeFileSync(path.join(s.workspace, 'b.txt'), 'b\n');
  await s.nvim.command('edit b.txt');
  return file;
}

function mcpEnv(s: NeovimSession, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GEMINI_CLI_IDE_')) env[k] = v;
  return { ...env, TMPDIR: s.tmp, ...extra };
}

describe('ide-companion mcp with Neovim', { timeout: 8 * 60_000 }, () => {
  test('through the MCP SDK client: every capability listed, diagnostics from vim.diagnostic, openFile moves the cursor', { skip: skipNvim }, async () => {
    const s = await startNeovim({ files: { 'a.lua': SOURCE } });
    const client = new Client({ name: 'test-agent', version: '1' });
    try {
      await s.discovery();
      const file = await plantDiagnostics(s);
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], cwd: s.workspace, env: mcpEnv(s), stderr: 'ignore' }));
      const names = await waitFor(async () => {
        const list = (await client.listTools()).tools.map((t) => t.name).sort();
        return list.length === 7 && !(await client.callTool({ name: 'getWorkspaceFolders', arguments: {} })).isError ? list : undefined;
      }, 'a connection to Neovim');
      assert.deepEqual(names, ['checkDocumentDirty', 'getDiagnostics', 'getOpenEditors', 'getSelection', 'getWorkspaceFolders', 'openFile', 'saveDocument']);
      const r: any = await client.callTool({ name: 'getDiagnostics', arguments: { path: file } });
      assert.notEqual(r.isError, true, r.content[0].text);
      assert.deepEqual(
        JSON.parse(r.content[0].text).diagnostics.map((d: any) => [d.severity, d.range.start.line, d.message]),
        [
          ['error', 3, 'undefined global x2'],
          ['warning', 2, 'unused local unused'],
        ],
      );
      const opened: any = await client.callTool({ name: 'openFile', arguments: { path: file, line: 2, column: 7 } });
      assert.notEqual(opened.isError, true, opened.content[0].text);
      assert.deepEqual(await s.lua('return { vim.api.nvim_buf_get_name(0), vim.fn.line("."), vim.fn.col(".") }'), [file, 2, 7]);
    } finally {
      await client.close();
      await s.close();
    }
  });

  test('the real gemini with the extension: getDiagnostics then openFile in one scripted turn', { skip: skipGemini }, async () => {
    const s = await startNeovim({ files: { 'a.lua': SOURCE } });
    const tmux = new Tmux(200, 50);
    try {
      await s.discovery();
      const file = await plantDiagnostics(s);
      const home = makeGeminiHome(path.join(s.tmp, 'home'));
      // The user's one command; no gemini on PATH here, so the installer copies the extension as the CLI would.
      const installed = await runNode([bin, 'install', 'gemini'], { env: mcpEnv(s, { HOME: home, PATH: path.dirname(process.execPath) }), cwd: s.workspace });
      assert.equal(installed.code, 0, installed.stderr);
      const turns = path.join(s.tmp, 'turns.jsonl');
      // MCP tools reach the model as mcp_<server>_<tool>. No third turn: the CLI's next request fails
      // and its error report (in TMPDIR) holds that request, tool results included.
      writeFakeResponses(turns, [
        functionCallTurn('mcp_ide-companion_getDiagnostics', { path: file }),
        functionCallTurn('mcp_ide-companion_openFile', { path: file, line: 2, column: 7 }),
      ]);
      const argv = [
        process.execPath,
        cli!.geminiBin,
        '--fake-responses',
        turns,
        '--model',
        'gemini-2.5-flash',
        // Approving MCP tools is the CLI's own dialog, not under test here.
        '--approval-mode',
        'yolo',
      ];
      // The extension's server runs `node`: the one running these tests.
      const env = {
        HOME: home,
        TMPDIR: s.tmp,
        GEMINI_API_KEY: 'dummy',
        REMOTE_CONTAINERS: '1',
        PATH: `${path.dirname(process.execPath)}:${process.env['PATH'] ?? ''}`,
      };
      tmux.start(shellCommand(argv, env, [...STRAY_IDE_ENV, ...HEADLESS_TRIGGER_ENV]), { cwd: s.workspace });
      await tmux.waitForText('Type your message', START_TIMEOUT_MS);
      // The extension's MCP server is up once the CLI counts it.
      await tmux.waitForText(/1 MCP server/, START_TIMEOUT_MS).catch((err: Error) => {
        throw new Error(`${err.message}\n--- screen ---\n${tmux.screen()}`);
      });
      tmux.type('check a.lua for problems');
      await tmux.waitForText('check a.lua for problems', STEP_TIMEOUT_MS);
      tmux.keys('Enter');

      const request = await waitFor(
        () => {
          const report = fs.readdirSync(s.tmp).find((f) => f.startsWith('gemini-client-error-') && f.endsWith('.json'));
          if (!report) return undefined;
          const message = (JSON.parse(fs.readFileSync(path.join(s.tmp, report), 'utf8')) as { error: { message: string } }).error.message;
          const marker = 'got request:\n';
          return message.includes(marker) ? JSON.parse(message.slice(message.indexOf(marker) + marker.length)) : undefined;
        },
        'the request after both tool calls',
        STEP_TIMEOUT_MS,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n--- screen ---\n${tmux.screen()}`);
      });
      const responses = (request.contents as Array<{ parts?: Array<{ functionResponse?: { name: string; response: unknown } }> }>)
        .flatMap((c) => c.parts ?? [])
        .flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
      const diagnostics = responses.find((r) => r.name === 'mcp_ide-companion_getDiagnostics');
      assert.ok(diagnostics, `no getDiagnostics result in ${JSON.stringify(request).slice(0, 2000)}`);
      const sent = JSON.stringify(diagnostics.response);
      assert.match(sent, /undefined global x2/);
      assert.match(sent, /unused local unused/);
      assert.match(sent, new RegExp(file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
      assert.ok(
        responses.find((r) => r.name === 'mcp_ide-companion_openFile'),
        'the openFile result was sent too',
      );
      // And Neovim shows that file at that line.
      await waitFor(
        async () => {
          const where = await s.lua<[string, number, number]>('return { vim.api.nvim_buf_get_name(0), vim.fn.line("."), vim.fn.col(".") }');
          return where[0] === file && where[1] === 2 && where[2] === 7;
        },
        'Neovim at a.lua:2:7',
        STEP_TIMEOUT_MS,
      );
    } finally {
      await tmux.stop();
      await s.close();
    }
  });
});
