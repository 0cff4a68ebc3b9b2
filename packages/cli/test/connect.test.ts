/**
 * `ide-companion connect`, the relay a CLI elsewhere starts (issue 18): the
 * bundled file spawned over stdio by the real MCP SDK client and by the real
 * Gemini CLI IdeClient, forwarding to a real Companion over its Unix socket
 * (and loopback TCP), with paths translated by --map both ways.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { discoveryFileName } from '@ide-companion/protocol';
import { startTestCompanion, type TestCompanion } from '@ide-companion/server/testing';
import { findGeminiCli, ideTerminalEnv, makeTempDir, RealIdeClient, skipUnless, waitFor } from '@ide-companion/testkit';
import { rewriteInPlace } from '../src/connect/inPlace.js';
import { outline } from '../src/connect/jsonOutline.js';
import { PathMap, PathMapError } from '../src/connect/pathMap.js';
import { RELAY_BUNDLE_PATH } from '../src/connect/build/bundle.js';
import { relayClient, type RelayClient } from './support/relayClient.js';

const TIMEOUT = 30_000;

const text = (r: any): string => r.content[0].text;

describe('PathMap', () => {
  const map = PathMap.parse(['/home/me/proj=/workspaces/proj', '/home/me/proj/vendor/lib=/opt/lib']);

  test('translates both ways by the longest root, on whole segments', () => {
    assert.equal(map.toHost('/workspaces/proj/src/a.ts'), '/home/me/proj/src/a.ts');
    assert.equal(map.toHost('/workspaces/proj'), '/home/me/proj');
    assert.equal(map.toCli('/home/me/proj/src/a.ts'), '/workspaces/proj/src/a.ts');
    assert.equal(map.toCli('/home/me/proj/vendor/lib/x.c'), '/opt/lib/x.c', 'the longer root wins');
    assert.equal(map.toHost('/opt/lib/x.c'), '/home/me/proj/vendor/lib/x.c');
  });

  test('refuses what no root holds: a sibling prefix, dot-dot escapes, relative paths', () => {
    for (const p of ['/workspaces/projX/a', '/workspaces/proj/../../etc/passwd', '/etc/passwd', 'workspaces/proj/a', '', '/workspaces/proj/\0']) {
      assert.equal(map.toHost(p), undefined, p);
    }
    assert.equal(map.toCli('/home/me/project/a'), undefined);
    assert.equal(map.toHost('/workspaces/proj/./src/../a.ts'), '/home/me/proj/a.ts');
  });

  test('no map: paths pass unchanged; a malformed --map is a usage error', () => {
    assert.equal(PathMap.parse([]).toHost('anything'), 'anything');
    for (const bad of ['/a', '=/b', '/a=', 'a=/b', '/a=b']) assert.throws(() => PathMap.parse([bad]), PathMapError, bad);
  });
});

describe('a path rewritten in place in a large message', () => {
  const map = PathMap.parse(['/host/proj=/workspaces/proj']);
  const toHost = (p: string) => map.toHost(p);
  const bytes = (o: unknown) => Buffer.from(JSON.stringify(o));

  test('the one key is rewritten where it stands; the rest, bytes included, is untouched', () => {
    const content = 'a "filePath":"/workspaces/proj/x" inside the text é😀\r\n';
    const message = {
      method: 'tools/call',
      params: { name: 'openDiff', arguments: { filePath: '/workspaces/proj/a.ts', newContent: content } },
      jsonrpc: '2.0',
      id: 7,
    };
    const b = bytes(message);
    const r = rewriteInPlace(b, outline(b)?.get('params.arguments'), ['filePath'], toHost);
    assert.ok(r && 'bytes' in r);
    assert.deepEqual(JSON.parse(r.bytes.toString()), {
      ...message,
      params: { ...message.params, arguments: { filePath: '/host/proj/a.ts', newContent: content } },
    });
  });

  test('a path outside the map is named; a key missing, or not a string: parse it whole instead', () => {
    const root = (b: Buffer) => outline(b)?.get('');
    const inPlace = (b: Buffer) => rewriteInPlace(b, root(b), ['filePath'], toHost);
    assert.deepEqual(inPlace(bytes({ filePath: '/etc/passwd' })), { outside: '/etc/passwd' });
    assert.equal(inPlace(bytes({ a: { filePath: '/workspaces/proj/a' }, b: { filePath: '/workspaces/proj/b' } })), undefined);
    assert.equal(inPlace(bytes({ path: '/workspaces/proj/a' })), undefined);
    assert.equal(inPlace(bytes({ filePath: 3 })), undefined);
  });

  // Issue 27: a key written with an escape, or twice, is read by the companion's JSON.parse (escapes
  // decoded, the last one wins), so the outline gives nothing and the relay parses the message whole.
  test('the outline exists only when it is certain: no escaped key, no key twice, one object', () => {
    const text = String.raw` {"method":"tools/call","params":{"name":"x","arguments":{"filePath":"/a","t":"\\\"}\\"}},"id":[1,{"a":"}"}]} `;
    assert.deepEqual(JSON.parse(text).params.arguments.t, '\\"}\\');
    const shape = outline(Buffer.from(text));
    assert.deepEqual([...shape!.keys()], ['', 'params', 'params.arguments']);
    assert.deepEqual([...shape!.get('params.arguments')!.keys()], ['filePath', 't']);
    for (const bad of [
      '{"method":"a","metho\\u0064":"b"}',
      '{"params":{"arguments":{"filePath":"/a","file\\u0050ath":"/b"}}}',
      '{"params":{"arguments":{"filePath":"/a","filePath":"/b"}}}',
      '{"method":"a","method":"b"}',
      '{"method":"a"} {}',
      '{"method":"a"',
      '[{"method":"a"}]',
      '{"method" "a"}',
    ]) {
      assert.equal(outline(Buffer.from(bad)), undefined, bad);
    }
    // Deeper than the outlined objects, an escaped or repeated key changes nothing the relay reads.
    assert.ok(outline(Buffer.from('{"params":{"arguments":{"x":{"a\\u0041":1,"a":2,"a":3}}}}')));
  });
});

describe('the relay over the socket, with a path map', { timeout: 4 * TIMEOUT }, () => {
  let h: TestCompanion;
  let relay: RelayClient;
  let cliRoot: string;
  const cliPath = (name: string) => path.posix.join(cliRoot, name);

  before(async () => {
    h = await startTestCompanion();
    cliRoot = '/workspaces/proj';
    relay = await relayClient(['--socket', h.companion.socketPath!, '--map', `${h.workspace}=${cliRoot}`]);
  });
  after(async () => {
    await relay?.close();
    await h?.cleanup();
  });

  test('tools/list comes from the companion', async () => {
    const { tools } = await relay.client.listTools();
    assert.ok(tools.some((t) => t.name === 'openDiff') && tools.some((t) => t.name === 'closeDiff'));
  });

  test('the context reaches the CLI in its own paths; a file outside the map is left out', async () => {
    const inside = path.join(h.workspace, 'src', 'a.ts');
    const outside = path.join(h.tmp, 'elsewhere.txt');
    fs.mkdirSync(path.dirname(inside), { recursive: true });
    fs.writeFileSync(inside, 'a\n');
    fs.writeFileSync(outside, 'b\n');
    h.companion.context.focus(outside, {});
    h.companion.context.focus(inside, { cursor: { line: 1, character: 1 } });
    const update = await waitFor(
      () => relay.notifications.findLast((n) => n.method === 'ide/contextUpdate' && n.params.workspaceState.openFiles.length > 0),
      'a context update',
      TIMEOUT,
    );
    const files = update.params.workspaceState.openFiles;
    assert.deepEqual(
      files.map((f: any) => f.path),
      [cliPath('src/a.ts')],
    );
    assert.deepEqual(files[0].cursor, { line: 1, character: 1 });
  });

  test('openDiff: the editor gets the host path; accepted with edits, the CLI gets its path and the bytes as they were', async () => {
    const host = path.join(h.workspace, 'accept.txt');
    fs.writeFileSync(host, 'old\r\n');
    const edited = 'héllo\r\n😀 no final newline';
    const call = relay.client.callTool({ name: 'openDiff', arguments: { filePath: cliPath('accept.txt'), newContent: 'model text\n' } });
    const diff = await waitFor(() => h.view.shown.find((d) => d.filePath === host), 'the editor to be asked', TIMEOUT);
    assert.equal(diff.originalContent, 'old\r\n');
    assert.equal(diff.newContent, 'model text\n');
    assert.equal((await call).isError, undefined);
    h.companion.diffs.accept(diff.id, edited);
    const outcome = await waitFor(() => relay.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the outcome', TIMEOUT);
    assert.deepEqual(outcome.params, { filePath: cliPath('accept.txt'), content: edited });
  });

  test('closeDiff: the path is translated, the content is not (even when it reads like a host path)', async () => {
    const host = path.join(h.workspace, 'close.txt');
    fs.writeFileSync(host, 'x\n');
    await relay.client.callTool({ name: 'openDiff', arguments: { filePath: cliPath('close.txt'), newContent: 'y\n' } });
    const diff = await waitFor(() => h.view.shown.find((d) => d.filePath === host), 'the diff', TIMEOUT);
    h.view.edits.set(diff.id, host);
    const r: any = await relay.client.callTool({ name: 'closeDiff', arguments: { filePath: cliPath('close.txt'), suppressNotification: true } });
    assert.deepEqual(JSON.parse(text(r)), { content: host });
  });

  test('a 1 MiB openDiff and its outcome, their paths rewritten in place, byte for byte; a large one outside the map refused', async () => {
    const host = path.join(h.workspace, 'big-mapped.txt');
    const proposal = 'é😀 "filePath":"/workspaces/proj/decoy"\r\n'.repeat(32 * 1024);
    await relay.client.callTool({ name: 'openDiff', arguments: { filePath: cliPath('big-mapped.txt'), newContent: proposal } });
    const diff = await waitFor(() => h.view.shown.find((d) => d.filePath === host), 'the diff', TIMEOUT);
    assert.equal(diff.newContent, proposal);
    h.companion.diffs.accept(diff.id, `${proposal}edited`);
    const outcome = await waitFor(
      () => relay.notifications.find((n) => n.method === 'ide/diffAccepted' && n.params.filePath === cliPath('big-mapped.txt')),
      'the outcome',
      TIMEOUT,
    );
    assert.equal(outcome.params.content, `${proposal}edited`);
    const before = h.view.shown.length;
    const r: any = await relay.client.callTool({ name: 'openDiff', arguments: { filePath: '/etc/big.txt', newContent: proposal } });
    assert.equal(r.isError, true);
    assert.match(text(r), /openDiff refused \/etc\/big\.txt/);
    assert.equal(h.view.shown.length, before);
  });

  test('a CLI path outside every mapped root is refused with a clear error; the editor is never asked', async () => {
    const before = h.view.shown.length;
    for (const filePath of ['/etc/passwd', `${cliRoot}/../../etc/passwd`, '/workspaces/projX/a.txt']) {
      const r: any = await relay.client.callTool({ name: 'openDiff', arguments: { filePath, newContent: 'pwned' } });
      assert.equal(r.isError, true, filePath);
      assert.match(text(r), /outside the folders this CLI shares with the editor \(\/workspaces\/proj\)/);
    }
    assert.equal(h.view.shown.length, before);
  });

  test('the workspace folders come back as the CLI sees them', async () => {
    const r: any = await relay.client.callTool({ name: 'getWorkspaceFolders', arguments: {} });
    assert.deepEqual(JSON.parse(text(r)), { folders: [cliRoot] });
  });

  test('the token is never on the relay command line', () => {
    const pid = relay.transport.pid!;
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    assert.ok(cmdline.includes('--socket'));
    assert.ok(!cmdline.includes(h.companion.authToken));
  });
});

describe('the relay over loopback TCP, and its life', { timeout: 4 * TIMEOUT }, () => {
  test('--port with GEMINI_CLI_IDE_AUTH_TOKEN from its environment; no map, paths unchanged', async () => {
    const h = await startTestCompanion();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [RELAY_BUNDLE_PATH, '--port', String(h.companion.port)],
      env: { PATH: process.env['PATH']!, GEMINI_CLI_IDE_AUTH_TOKEN: h.companion.authToken },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-client', version: 'test' });
    try {
      await client.connect(transport);
      const r: any = await client.callTool({ name: 'getWorkspaceFolders', arguments: {} });
      assert.deepEqual(JSON.parse(text(r)), { folders: [h.workspace] });
    } finally {
      await client.close();
      await h.cleanup();
    }
  });

  // Regression: lines written in one go (a script, `echo ... | podman run`) reached the companion
  // before the initialize answer, without a session, and were refused. They now wait for it.
  test('messages written before the initialize answer wait for the session, and keep their order', async () => {
    const h = await startTestCompanion();
    try {
      const child = spawn(process.execPath, [RELAY_BUNDLE_PATH, '--socket', h.companion.socketPath!], { stdio: ['pipe', 'pipe', 'pipe'] });
      const lines: any[] = [];
      let buffered = '';
      child.stdout.on('data', (c: Buffer) => {
        buffered += c.toString();
        const parts = buffered.split('\n');
        buffered = parts.pop()!;
        for (const p of parts) if (p) lines.push(JSON.parse(p));
      });
      const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'script', version: '0' } };
      child.stdin.write(
        [
          { jsonrpc: '2.0', id: 1, method: 'initialize', params: init },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'getWorkspaceFolders', arguments: {} } },
          { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} },
        ]
          .map((m) => JSON.stringify(m) + '\n')
          .join(''),
      );
      await waitFor(() => lines.length >= 3 || undefined, 'three answers', TIMEOUT);
      assert.deepEqual(
        lines.filter((l) => l.id !== undefined).map((l) => [l.id, l.error === undefined]),
        [
          [1, true],
          [2, true],
          [3, true],
        ],
      );
      assert.deepEqual(JSON.parse(lines.find((l) => l.id === 2).result.content[0].text), { folders: [h.workspace] });
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    } finally {
      await h.cleanup();
    }
  });

  test('without a map, a 1 MiB openDiff and its 1 MiB outcome go through as their bytes, byte for byte', async () => {
    const h = await startTestCompanion();
    const relay = await relayClient(['--socket', h.companion.socketPath!]);
    try {
      const file = path.join(h.workspace, 'big.txt');
      const proposal = 'é😀\r\n'.repeat(128 * 1024) + 'no final newline';
      const edited = proposal.replace(/^é/, 'É');
      await relay.client.callTool({ name: 'openDiff', arguments: { filePath: file, newContent: proposal } });
      const diff = await waitFor(() => h.view.shown.find((d) => d.filePath === file), 'the diff', TIMEOUT);
      assert.equal(diff.newContent, proposal);
      h.companion.diffs.accept(diff.id, edited);
      const outcome = await waitFor(() => relay.notifications.find((n) => n.method === 'ide/diffAccepted'), 'the outcome', TIMEOUT);
      assert.equal(outcome.params.content, edited);
    } finally {
      await relay.close();
      await h.cleanup();
    }
  });

  test('a large message in another key order than the SDK writes is read whole, and answered', async () => {
    const h = await startTestCompanion();
    try {
      const child = spawn(process.execPath, [RELAY_BUNDLE_PATH, '--socket', h.companion.socketPath!], { stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'script', version: '0' } };
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: init }) + '\n');
      await waitFor(() => out.includes('"id":1') || undefined, 'the initialize answer', TIMEOUT);
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
      const file = path.join(h.workspace, 'order.txt');
      // id first, method last: not where peek looks, so the relay parses it.
      child.stdin.write(
        JSON.stringify({
          id: 'big-1',
          params: { arguments: { newContent: 'y'.repeat(200 * 1024), filePath: file }, name: 'openDiff' },
          jsonrpc: '2.0',
          method: 'tools/call',
        }) + '\n',
      );
      await waitFor(() => out.includes('"id":"big-1"') || undefined, 'the answer to the large call', TIMEOUT);
      assert.ok(h.view.shown.some((d) => d.filePath === file && d.newContent.length === 200 * 1024));
      child.stdin.end();
      await new Promise((resolve) => child.once('exit', resolve));
    } finally {
      await h.cleanup();
    }
  });

  test('stdin closed: the relay ends the session (DELETE) and exits 0', async () => {
    const h = await startTestCompanion();
    try {
      const relay = await relayClient(['--socket', h.companion.socketPath!]);
      await waitFor(() => h.companion.sessionList.length === 1 || undefined, 'the session', TIMEOUT);
      const child = relay.child;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await relay.close();
      assert.equal(await exited, 0);
      // Ended at once by DELETE, not after the companion's grace for a CLI that vanished.
      await waitFor(() => h.companion.sessionList.length === 0 || undefined, 'the session to end', 1_500);
    } finally {
      await h.cleanup();
    }
  });

  test('the companion gone: the relay exits 1, and the CLI sees its connection close', async () => {
    const h = await startTestCompanion();
    const relay = await relayClient(['--socket', h.companion.socketPath!]);
    const child = relay.child;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let closed = false;
    relay.client.onclose = () => (closed = true);
    await relay.client.listTools();
    await h.cleanup();
    assert.equal(await exited, 1);
    await waitFor(() => closed || undefined, 'the client to see the close', TIMEOUT);
  });

  // The relay's lines (its log file, or a person's terminal) went out raw: a socket path holding OSC 52, echoed in
  // its refusal, reached them as given.
  test('its log lines carry no control character: a socket path holding OSC 52', async () => {
    const tmp = makeTempDir('ide-companion-relay-');
    try {
      const log = path.join(tmp.path, 'log');
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [RELAY_BUNDLE_PATH, '--socket', path.join(tmp.path, 'x\x1b]52;c;aGk\x07.sock'), '--log', log], {
          env: { PATH: process.env['PATH'] },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        child.once('exit', resolve);
      });
      assert.equal(code, 3);
      const text = fs.readFileSync(log, 'utf8');
      assert.match(text, /x\]52;c;aGk\.sock: not found/);
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      assert.doesNotMatch(text, /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    } finally {
      tmp.cleanup();
    }
  });

  test('refused at start, exit 3: a socket of another user, a missing socket, no token', async () => {
    const tmp = makeTempDir('ide-companion-relay-');
    const server = net.createServer();
    try {
      const dir = path.join(tmp.path, 'sock');
      fs.mkdirSync(dir, { mode: 0o700 });
      const foreign = path.join(dir, 'mcp.sock');
      await new Promise<void>((resolve) => server.listen(foreign, resolve));
      fs.writeFileSync(path.join(dir, 'token'), 'secret', { mode: 0o600 });
      fs.chownSync(foreign, 65534, 65534);
      const run = (args: string[], env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] }) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, [RELAY_BUNDLE_PATH, ...args, '--log', path.join(tmp.path, 'log')], { env, stdio: ['pipe', 'pipe', 'pipe'] });
          let stderr = '';
          child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
          child.once('exit', (code) => resolve({ code, stderr }));
        });
      const foreignRun = await run(['--socket', foreign]);
      assert.equal(foreignRun.code, 3);
      // A refusal is the one thing said on stderr (the CLI's terminal) as well: once, without the token.
      assert.match(foreignRun.stderr, /^ide-companion connect: refusing to dial: \S+mcp\.sock belongs to another user \(uid 65534, we are 0\)\n$/);
      assert.match(fs.readFileSync(path.join(tmp.path, 'log'), 'utf8'), /belongs to another user \(uid 65534/);
      assert.equal((await run(['--socket', path.join(tmp.path, 'missing.sock')])).code, 3);
      assert.equal((await run(['--port', '1'])).code, 3, 'no token anywhere');
      assert.equal((await run(['--port', '1', '--socket', foreign])).code, 2);
      assert.equal((await run(['--port', '1', '--map', 'relative=/x'])).code, 2);
      const log = fs.readFileSync(path.join(tmp.path, 'log'), 'utf8');
      assert.match(log, /missing\.sock: not found/);
      assert.match(log, /no token/);
      assert.ok(!log.includes('secret'));
    } finally {
      server.close();
      tmp.cleanup();
    }
  });
});

const cli = findGeminiCli();
const skipCli = skipUnless(cli !== undefined, 'Gemini CLI 0.61.0', 'run scripts/install-gemini-cli.sh');

/** The bundled relay driven line by line from a script (what a CLI writes, byte for byte); answers read from its stdout. */
async function scriptedRelay(args: string[]) {
  const child = spawn(process.execPath, [RELAY_BUNDLE_PATH, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const answers = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as any);
  const answer = (id: unknown) => waitFor(() => answers().find((m) => m.id === id), `the answer to ${String(id)}`, TIMEOUT);
  const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'script', version: '0' } };
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: init }) + '\n');
  await answer('init');
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  return {
    child,
    answer,
    write: (line: string) => child.stdin.write(line + '\n'),
    close: async () => {
      child.stdin.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

// Issue 27: a large message was read from its bytes (`"method":` at its head, `"filePath":` once), but the
// companion reads it with JSON.parse, where an escaped key is the same key and the last duplicate wins: the
// editor was asked to show a host path outside the map. Now a message read from its bytes must be certain.
describe('the relay reads keys as the companion does, whatever their encoding (issue 27)', { timeout: 4 * TIMEOUT }, () => {
  let h: TestCompanion;
  let relay: Awaited<ReturnType<typeof scriptedRelay>>;
  let secret: string;
  const cliRoot = '/workspaces/proj';

  before(async () => {
    h = await startTestCompanion();
    // Only `shared` is mapped; `secret.txt` is in the editor's workspace but not the CLI's to name.
    fs.mkdirSync(path.join(h.workspace, 'shared'));
    secret = path.join(h.workspace, 'secret.txt');
    relay = await scriptedRelay(['--socket', h.companion.socketPath!, '--map', `${path.join(h.workspace, 'shared')}=${cliRoot}`]);
  });
  after(async () => {
    await relay?.close();
    await h?.cleanup();
  });

  const padding = (large: boolean) => 'y'.repeat(large ? 200 * 1024 : 100);
  /** Raw JSON text: an escaped key is written as the six characters `\u0050`. */
  const hostile = (large: boolean, id: string): Record<string, string> => ({
    'an escaped duplicate filePath': `{"method":"tools/call","params":{"name":"openDiff","arguments":{"filePath":"${cliRoot}/a.txt","newContent":"${padding(large)}","file\\u0050ath":${JSON.stringify(secret)}}},"jsonrpc":"2.0","id":"${id}"}`,
    'an escaped method after a harmless one': `{"method":"notifications/cancelled","params":{"name":"openDiff","arguments":{"filePath":${JSON.stringify(secret)},"newContent":"${padding(large)}"}},"metho\\u0064":"tools/call","jsonrpc":"2.0","id":"${id}"}`,
    'an escaped tool name after an unknown one': `{"method":"tools/call","params":{"name":"noSuchTool","na\\u006de":"openDiff","arguments":{"filePath":${JSON.stringify(secret)},"newContent":"${padding(large)}"}},"jsonrpc":"2.0","id":"${id}"}`,
    'a plain duplicate filePath': `{"method":"tools/call","params":{"name":"openDiff","arguments":{"filePath":"${cliRoot}/a.txt","newContent":"${padding(large)}","filePath":${JSON.stringify(secret)}}},"jsonrpc":"2.0","id":"${id}"}`,
  });

  for (const large of [false, true]) {
    for (const name of Object.keys(hostile(large, ''))) {
      test(`${name}, ${large ? 'over' : 'under'} 64 KiB: refused by the map, the editor never asked`, async () => {
        const id = `${name}-${large}`;
        const line = hostile(large, id)[name]!;
        assert.equal(line.length > 64 * 1024, large);
        // What the companion reads: openDiff of the unmapped path.
        assert.deepEqual(
          [JSON.parse(line).method, JSON.parse(line).params.name, JSON.parse(line).params.arguments.filePath],
          ['tools/call', 'openDiff', secret],
        );
        const before = h.view.shown.length;
        relay.write(line);
        const answer = await relay.answer(id);
        assert.equal(answer.result?.isError, true, JSON.stringify(answer).slice(0, 300));
        assert.match(answer.result.content[0].text, /openDiff refused/);
        assert.deepEqual(
          h.view.shown.slice(before).map((d) => d.filePath),
          [],
          'the editor was asked to show a path outside the map',
        );
      });
    }
  }

  test('a large openDiff in the mapped folder still goes through, its path rewritten', async () => {
    const content = 'z'.repeat(200 * 1024);
    relay.write(
      JSON.stringify({
        method: 'tools/call',
        params: { name: 'openDiff', arguments: { filePath: `${cliRoot}/ok.txt`, newContent: content } },
        jsonrpc: '2.0',
        id: 'ok',
      }),
    );
    const answer = await relay.answer('ok');
    assert.equal(answer.result?.isError, undefined, JSON.stringify(answer).slice(0, 300));
    assert.ok(h.view.shown.some((d) => d.filePath === path.join(h.workspace, 'shared', 'ok.txt') && d.newContent === content));
  });
});

test(
  'the real Gemini CLI client, told only a discovery file with `stdio` and no port, connects through the relay and round-trips a diff in its own paths',
  { skip: skipCli, timeout: 4 * TIMEOUT },
  async () => {
    const h = await startTestCompanion({ ideInfo: { name: 'neovim', displayName: 'Neovim' } });
    // The CLI elsewhere: its own temp dir (its own discovery file) and its own view of the project.
    const elsewhere = makeTempDir('ide-companion-cli-elsewhere-');
    const cliRoot = path.join(fs.realpathSync(elsewhere.path), 'workspaces', 'proj');
    fs.mkdirSync(cliRoot, { recursive: true });
    const ideDir = path.join(elsewhere.path, 'gemini', 'ide');
    fs.mkdirSync(ideDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(
      path.join(ideDir, discoveryFileName(1, 1)),
      JSON.stringify({
        workspacePath: cliRoot,
        ideInfo: { name: 'neovim', displayName: 'Neovim' },
        stdio: { command: process.execPath, args: [RELAY_BUNDLE_PATH, '--socket', h.companion.socketPath!, '--map', `${h.workspace}=${cliRoot}`] },
      }),
      { mode: 0o600 },
    );
    const env = ideTerminalEnv({ tmpdir: elsewhere.path, idePid: 1 });
    const client = await RealIdeClient.start(cli!, { cwd: cliRoot, env, timeoutMs: TIMEOUT });
    try {
      const status = await client.connect();
      assert.equal(status['status'], 'connected', String(status['details']));
      assert.equal(status['ide'], 'Neovim');
      assert.equal(status['diffing'], true);

      const hostFile = path.join(h.workspace, 'b.txt');
      fs.writeFileSync(hostFile, 'before\n');
      h.companion.context.focus(hostFile, { cursor: { line: 1, character: 2 } });
      const pushed = await client.waitFor((e) => e.event === 'context' && e['context']?.workspaceState?.openFiles?.length > 0, 'the context');
      assert.equal(pushed['context'].workspaceState.openFiles[0].path, path.join(cliRoot, 'b.txt'));

      client.send({ cmd: 'openDiff', filePath: path.join(cliRoot, 'b.txt'), newContent: 'model\n' });
      const diff = await waitFor(() => h.view.shown.find((d) => d.filePath === hostFile), 'the editor to show the diff', TIMEOUT);
      h.companion.diffs.accept(diff.id, 'user edit\n');
      const result = await client.diffResult(path.join(cliRoot, 'b.txt'));
      assert.deepEqual(result['result'], { status: 'accepted', content: 'user edit\n' });
    } finally {
      await client.stop();
      await h.cleanup();
      elsewhere.cleanup();
    }
  },
);
