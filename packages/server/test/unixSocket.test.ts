/**
 * The companion's Unix socket (issue 18): private folder, socket and token
 * file; the same handler and token as the port; Host, Origin and token checked
 * there too; gone with the companion, swept when its PID is dead.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseDiscoveryFile } from '@ide-companion/protocol';
import { INIT_BODY, rawRequest, startCompanion, type Harness } from './helpers.js';
import { sweepStaleSocketDirs } from '../src/companionSocket.js';

const uid = process.getuid!();

function socketHeaders(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    Authorization: `Bearer ${token}`,
    Host: 'localhost',
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...extra,
  };
}

/** Opens the GET stream over the socket and resolves with the first ide/contextUpdate it carries. */
function firstContextUpdate(socketPath: string, headers: Record<string, string>): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: '/mcp', method: 'GET', headers: { ...headers, Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET stream: ${res.statusCode}`));
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        const data = /^data: (.*)$/m.exec(buffered);
        if (!data) return;
        const message = JSON.parse(data[1]!);
        if (message.method !== 'ide/contextUpdate') return;
        req.destroy();
        resolve(message.params);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the Unix socket', () => {
  let h: Harness;
  let socketPath: string;
  let token: string;

  before(async () => {
    h = await startCompanion();
    socketPath = h.companion.socketPath!;
    token = h.companion.authToken;
  });
  after(() => h.cleanup());

  test('lives in a private folder named after the discovery file, with the token beside it', () => {
    const dir = h.companion.socketDir!;
    assert.equal(dir, path.join(h.tmp, `ide-companion-${uid}`, `${h.companion.idePid}-${h.companion.port}`));
    assert.equal(socketPath, path.join(dir, 'mcp.sock'));
    for (const folder of [path.dirname(dir), dir]) {
      const st = fs.lstatSync(folder);
      assert.ok(st.isDirectory() && !st.isSymbolicLink(), folder);
      assert.equal(st.mode & 0o777, 0o700, folder);
      assert.equal(st.uid, uid);
    }
    const sock = fs.lstatSync(socketPath);
    assert.ok(sock.isSocket());
    assert.equal(sock.mode & 0o777, 0o600);
    const tokenFile = path.join(dir, 'token');
    assert.equal(fs.lstatSync(tokenFile).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(tokenFile, 'utf8'), token);
  });

  test('the discovery file names it', () => {
    const file = parseDiscoveryFile(fs.readFileSync(h.companion.discoveryFilePath!, 'utf8'));
    assert.equal(file.socketPath, socketPath);
    assert.equal(file.port, h.companion.port);
  });

  test('serves the same sessions as the port: initialize, then context on the GET stream', async () => {
    const file = path.join(h.workspace, 'a.ts');
    fs.writeFileSync(file, 'x\n');
    h.companion.context.focus(file, { cursor: { line: 1, character: 1 } });
    const init = await rawRequest({ socketPath }, { headers: socketHeaders(token), body: INIT_BODY });
    assert.equal(init.status, 200, init.text);
    assert.equal(init.json.result.serverInfo.name, 'ide-companion (test-ide)');
    const sessionId = init.headers.get('mcp-session-id')!;
    const context = await firstContextUpdate(socketPath, socketHeaders(token, { 'mcp-session-id': sessionId }));
    assert.equal(context.workspaceState.openFiles[0].path, file);
    assert.ok(h.companion.sessionList.some((s) => s.id === sessionId));
  });

  test('refuses a missing or wrong token with 401, never echoing it', async () => {
    for (const auth of [undefined, 'Bearer ' + 'f'.repeat(64), `Bearer ${token}x`]) {
      const headers = socketHeaders(token);
      if (auth === undefined) delete headers['Authorization'];
      else headers['Authorization'] = auth;
      const res = await rawRequest({ socketPath }, { headers, body: INIT_BODY });
      assert.equal(res.status, 401, String(auth));
      assert.ok(!res.text.includes(token));
    }
  });

  test('refuses any Host but localhost, and any Origin', async () => {
    for (const host of ['evil.example', `127.0.0.1:${h.companion.port}`, 'localhost:80', 'localhost.evil.example']) {
      const res = await rawRequest({ socketPath }, { headers: socketHeaders(token, { Host: host }), body: INIT_BODY });
      assert.equal(res.status, 403, host);
      assert.match(res.json.error.message, /Host must be localhost/);
    }
    const res = await rawRequest({ socketPath }, { headers: socketHeaders(token, { Origin: 'http://evil.example' }), body: INIT_BODY });
    assert.equal(res.status, 403);
  });

  test('the port still refuses Host: localhost (no port)', async () => {
    const res = await rawRequest(h.companion.port, { headers: socketHeaders(token), body: INIT_BODY });
    assert.equal(res.status, 403);
  });
});

describe('the socket folder over the companion lifetime', () => {
  test('stop removes it; the port-only companion keeps no socketPath', async () => {
    const h = await startCompanion();
    const dir = h.companion.socketDir!;
    assert.ok(fs.existsSync(dir));
    await h.cleanup();
    assert.equal(fs.existsSync(dir), false);

    const plain = await startCompanion({ unixSocket: false });
    try {
      assert.equal(plain.companion.socketPath, undefined);
      assert.equal(parseDiscoveryFile(fs.readFileSync(plain.companion.discoveryFilePath!, 'utf8')).socketPath, undefined);
    } finally {
      await plain.cleanup();
    }
  });

  test("a dead PID's folder is swept; a live one's and other names are kept", () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-sweep-'));
    try {
      for (const name of ['111-5000', '222-5001', 'notes']) fs.mkdirSync(path.join(base, name));
      fs.writeFileSync(path.join(base, '111-5000', 'token'), 'x');
      const removed = sweepStaleSocketDirs(base, (pid) => pid === 222);
      assert.deepEqual(removed, ['111-5000']);
      assert.deepEqual(fs.readdirSync(base).sort(), ['222-5001', 'notes']);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  test('a base folder that is a symlink is refused: the companion serves its port, with no socket', async () => {
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-link-')));
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'ide-companion-elsewhere-'));
    fs.symlinkSync(elsewhere, path.join(tmp, `ide-companion-${uid}`));
    const h = await startCompanion({ tmp });
    try {
      assert.equal(h.companion.socketPath, undefined);
      assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing was written through the link');
      const res = await rawRequest(h.companion.port, {
        headers: { ...socketHeaders(h.companion.authToken), Host: `127.0.0.1:${h.companion.port}` },
        body: INIT_BODY,
      });
      assert.equal(res.status, 200);
    } finally {
      await h.cleanup();
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
