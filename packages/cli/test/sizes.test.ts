/**
 * Issue 27, sizes: every reader caps one message at MAX_MESSAGE_BYTES,
 * answers a larger one with an error, logs it, and reads the next. Each
 * process gets an oversized line on its real stdin, streamed (never held):
 * - the bridge host (Vim's and Emacs's) exited on a 528 MiB line: readline's
 *   string passed Node's limit ("Invalid string length");
 * - `ide-companion mcp` exited 0 without a word on an 11 MiB request: the
 *   SDK's stdio transport closes itself past 10 MiB;
 * - the relay (`ide-companion connect`) joined any line whole, then failed to
 *   make a string of it;
 * - `ide-companion mcp` exited on a 600 MiB answer from a companion
 *   (ERR_STRING_TOO_LONG).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { MAX_MESSAGE_BYTES } from '@ide-companion/protocol';
import { startTestCompanion } from '@ide-companion/server/testing';
import { makeTempDir, waitFor, writeBigLine } from '@ide-companion/testkit';
import { RELAY_BUNDLE_PATH } from '../src/connect/build/bundle.js';
import { bin, isolatedEnv } from './support/mcpAgent.js';

const TIMEOUT = 60_000;
/** Past the cap, and past the 512 MiB a Node string can hold: what ended the processes before. */
const HUGE = 540 * 1024 * 1024;

/** A child whose stdout is JSON lines, kept as parsed objects (a line that is not JSON is kept as text). */
function lines(child: ChildProcessWithoutNullStreams) {
  const seen: any[] = [];
  let partial = '';
  child.stdout.on('data', (c: Buffer) => {
    const parts = (partial + c.toString()).split('\n');
    partial = parts.pop()!;
    for (const l of parts) {
      try {
        seen.push(JSON.parse(l));
      } catch {
        seen.push(l);
      }
    }
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return { seen, stderr: () => stderr, find: (what: string, match: (m: any) => boolean) => waitFor(() => seen.find(match), what, TIMEOUT) };
}

/** The MCP handshake an agent starts with, on the child's stdin: initialize (id 1, answered), then initialized. */
async function handshake(child: ChildProcessWithoutNullStreams, out: ReturnType<typeof lines>): Promise<void> {
  const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'script', version: '0' } };
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init })}\n`);
  await out.find('the initialize answer', (m) => m.id === 1);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
}

const alive = (child: ChildProcessWithoutNullStreams) => child.exitCode === null && child.signalCode === null;

async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (!alive(child)) return;
  child.stdin.end();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  if (alive(child)) child.kill('SIGKILL');
}

/** A companion that answers getDiagnostics with `answerBytes` of JSON, streamed; every other call small. */
async function hugeAnswerCompanion(token: string, answerBytes: number): Promise<{ port: number; close: () => Promise<void> }> {
  const chunk = Buffer.alloc(1024 * 1024, 'a');
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
      if (req.method !== 'POST') return void res.writeHead(req.method === 'DELETE' ? 200 : 405).end();
      const m = JSON.parse(body) as { id?: number; method: string; params?: { name?: string } };
      if (m.id === undefined) return void res.writeHead(202).end();
      const json = (result: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      if (m.method === 'initialize') {
        return json({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'huge', version: '1' } });
      }
      if (m.method === 'tools/list') {
        return json({ tools: ['getDiagnostics', 'getWorkspaceFolders'].map((name) => ({ name, inputSchema: { type: 'object' } })) });
      }
      if (m.method === 'tools/call' && m.params?.name === 'getDiagnostics') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(`{"jsonrpc":"2.0","id":${m.id},"result":{"content":[{"type":"text","text":"`);
        let left = answerBytes;
        const pump = () => {
          while (left > 0 && !res.destroyed) {
            left -= chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end('"}]}}');
        };
        res.on('close', () => (left = 0));
        return pump();
      }
      return json({ content: [{ type: 'text', text: JSON.stringify({ folders: ['/x'] }) }] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('an oversized message is refused and the process reads on (issue 27)', { timeout: 4 * TIMEOUT }, () => {
  test('the bridge host: a 540 MiB line is answered with an error, logged, and the next line is read', async () => {
    const tmp = makeTempDir('ide-companion-sizes-');
    const workspace = path.join(fs.realpathSync(tmp.path), 'ws');
    fs.mkdirSync(workspace);
    const child = spawn(process.execPath, [bin, 'bridge', '--name', 'scripted', '--display-name', 'Scripted', '--workspace', workspace], {
      env: isolatedEnv(fs.realpathSync(tmp.path)),
    });
    const out = lines(child);
    try {
      const hello = { type: 'hello', protocol: 1, pid: process.pid, capabilities: [] };
      child.stdin.write(`${JSON.stringify(hello)}\n`);
      await out.find('ready', (m) => m.type === 'ready');
      await writeBigLine(child.stdin, HUGE, '{"type":"mention","text":"');
      const refused = await out.find('the refusal', (m) => m.type === 'error' && /too large/.test(m.message));
      assert.match(refused.message, new RegExp(`over ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB`));
      assert.ok(alive(child), 'the host is running');
      // The next line is read as usual: a second hello is answered as one.
      child.stdin.write(`${JSON.stringify(hello)}\n`);
      await out.find('the answer to the next line', (m) => m.type === 'error' && /hello was already received/.test(m.message));
      assert.match(out.stderr(), /refused a line from the editor/);
    } finally {
      await stop(child);
      tmp.cleanup();
    }
  });

  test('ide-companion mcp: an 11 MiB request is served; one over the cap gets a JSON-RPC error, and the next is answered', async () => {
    const tmp = makeTempDir('ide-companion-sizes-');
    const tmpdir = fs.realpathSync(tmp.path);
    const child = spawn(process.execPath, [bin, 'mcp'], { cwd: tmpdir, env: isolatedEnv(tmpdir) });
    const out = lines(child);
    try {
      await handshake(child, out);
      // 11 MiB: under our cap, over the SDK's 10 MiB.
      const big = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'getWorkspaceFolders', arguments: { pad: 'p'.repeat(11 * 1024 * 1024) } } };
      child.stdin.write(`${JSON.stringify(big)}\n`);
      const served = await out.find('the answer to the 11 MiB request', (m) => m.id === 2);
      assert.ok(served.result || served.error, JSON.stringify(served).slice(0, 300));
      await writeBigLine(
        child.stdin,
        MAX_MESSAGE_BYTES + 1024 * 1024,
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"pad":"',
      );
      const refused = await out.find('the refusal', (m) => m.error?.code === -32600 && m.id === null);
      assert.match(refused.error.message, /too large/);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' })}\n`);
      const listed = await out.find('the next answer', (m) => m.id === 4);
      assert.ok(Array.isArray(listed.result?.tools));
      assert.ok(alive(child));
      assert.match(out.stderr(), /refused a message from the agent/);
    } finally {
      await stop(child);
      tmp.cleanup();
    }
  });

  test('the relay: a 540 MiB line from the CLI gets a JSON-RPC error, and the next request is answered', async () => {
    const h = await startTestCompanion();
    const log = path.join(h.workspace, '..', 'relay.log');
    const child = spawn(process.execPath, [RELAY_BUNDLE_PATH, '--socket', h.companion.socketPath!, '--log', log]);
    const out = lines(child);
    try {
      await handshake(child, out);
      await writeBigLine(child.stdin, HUGE, '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"openDiff","arguments":{"newContent":"');
      const refused = await out.find('the refusal', (m) => m.error?.code === -32600 && m.id === null);
      assert.match(refused.error.message, /too large/);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' })}\n`);
      const listed = await out.find('the next answer', (m) => m.id === 3);
      assert.ok(Array.isArray(listed.result?.tools));
      assert.ok(alive(child));
      assert.match(fs.readFileSync(log, 'utf8'), /refused a message from the CLI: message too large/);
    } finally {
      await stop(child);
      await h.cleanup();
    }
  });
  test('ide-companion mcp: a 600 MiB answer from a companion is an error for that call, and the next call is answered', async () => {
    const tmp = makeTempDir('ide-companion-sizes-');
    const tmpdir = fs.realpathSync(tmp.path);
    const cwd = path.join(tmpdir, 'ws');
    fs.mkdirSync(cwd);
    const token = 'huge-answer-token';
    const companion = await hugeAnswerCompanion(token, 600 * 1024 * 1024);
    fs.mkdirSync(path.join(tmpdir, 'gemini', 'ide'), { recursive: true });
    fs.writeFileSync(
      path.join(tmpdir, 'gemini', 'ide', `gemini-ide-server-${process.pid}-${companion.port}.json`),
      JSON.stringify({ port: companion.port, workspacePath: cwd, authToken: token, ideInfo: { name: 'huge', displayName: 'Huge' } }),
      { mode: 0o600 },
    );
    const child = spawn(process.execPath, [bin, 'mcp', '--call-timeout', '30000'], { cwd, env: isolatedEnv(tmpdir) });
    const out = lines(child);
    try {
      await handshake(child, out);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'getDiagnostics', arguments: {} } })}\n`);
      const answer = await out.find('the answer to getDiagnostics', (m) => m.id === 2);
      assert.equal(answer.result?.isError, true, JSON.stringify(answer).slice(0, 300));
      assert.match(answer.result.content[0].text, /too large/);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'getWorkspaceFolders', arguments: {} } })}\n`);
      const next = await out.find('the next answer', (m) => m.id === 3);
      assert.deepEqual(JSON.parse(next.result.content[0].text), { folders: ['/x'] });
      assert.ok(alive(child));
    } finally {
      await stop(child);
      await companion.close();
      tmp.cleanup();
    }
  });
});
