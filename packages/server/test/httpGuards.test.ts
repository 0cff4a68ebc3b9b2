/** Every request passes Host, Origin and token checks, on every method, before anything else runs. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bearerChecker, generateAuthToken } from '../src/index.js';
import { INIT_BODY, connectClient, mcpHeaders, rawRequest, startCompanion, type Harness } from './helpers.js';

describe('auth, Host and Origin', () => {
  let h: Harness;
  let token: string;
  let port: number;
  let sessionId: string;

  before(async () => {
    h = await startCompanion();
    token = h.companion.authToken;
    port = h.companion.port;
    const init = await rawRequest(port, { headers: mcpHeaders(token, port), body: INIT_BODY });
    assert.equal(init.status, 200);
    sessionId = init.headers.get('mcp-session-id')!;
    assert.ok(sessionId);
  });
  after(() => h.cleanup());

  test('the token is 256 random bits, fresh per start', async () => {
    assert.match(token, /^[0-9a-f]{64}$/);
    const other = await startCompanion();
    try {
      assert.notEqual(other.companion.authToken, token);
    } finally {
      await other.cleanup();
    }
    assert.notEqual(generateAuthToken(), generateAuthToken());
  });

  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    const variants: Array<[string, Record<string, string>]> = [
      ['no token', {}],
      ['a wrong token', { Authorization: 'Bearer ' + 'f'.repeat(64) }],
      ['a token one character short', { Authorization: 'Bearer ' + 'x' }],
      ['a malformed header (Basic)', { Authorization: 'Basic dXNlcjpwYXNz' }],
      ['a malformed header (Bearer without token)', { Authorization: 'Bearer' }],
      ['the right token with trailing junk', { Authorization: 'Bearer TOKEN extra' }],
    ];
    for (const [what, auth] of variants) {
      test(`${method} with ${what} gets 401`, async () => {
        const headers: Record<string, string> = { ...mcpHeaders(token, port, { 'mcp-session-id': sessionId }), ...auth };
        if (!('Authorization' in auth)) delete headers['Authorization'];
        if (headers['Authorization']) headers['Authorization'] = headers['Authorization'].replace('TOKEN', token);
        const res = await rawRequest(port, { method, headers, body: method === 'POST' ? INIT_BODY : undefined });
        assert.equal(res.status, 401);
        assert.equal(res.json.error.code, -32001);
        assert.match(res.json.error.message, /Unauthorized/);
        assert.ok(!res.text.includes(token), 'the answer never echoes the token');
      });
    }
  }

  test('a wrong Host header is refused (DNS rebinding)', async () => {
    for (const host of [`evil.example:${port}`, `127.0.0.1:${port + 1}`, '127.0.0.1', `0.0.0.0:${port}`]) {
      const res = await rawRequest(port, { headers: { ...mcpHeaders(token, port), Host: host }, body: INIT_BODY });
      assert.equal(res.status, 403, host);
      assert.match(res.json.error.message, /Host/);
    }
  });

  test('Host localhost:PORT is accepted, as is 127.0.0.1:PORT', async () => {
    const res = await rawRequest(port, { headers: { ...mcpHeaders(token, port), Host: `localhost:${port}` }, body: INIT_BODY });
    assert.equal(res.status, 200);
  });

  test('any Origin header is refused, even with the right token', async () => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${port}`, 'null']) {
      const res = await rawRequest(port, { headers: { ...mcpHeaders(token, port), Origin: origin }, body: INIT_BODY });
      assert.equal(res.status, 403, origin);
      assert.match(res.json.error.message, /Origin/);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    }
  });

  test('the server listens on loopback only', () => {
    const address = (h.companion as any).addresses.httpServer.address();
    assert.equal(address.address, '127.0.0.1');
  });

  test('a lower-case `bearer` scheme opens a session over real HTTP; a wrong token in it is still refused', async () => {
    const port = h.companion.port;
    const lower = await rawRequest(port, {
      headers: { ...mcpHeaders(h.companion.authToken, port), Authorization: `bearer ${h.companion.authToken}` },
      body: INIT_BODY,
    });
    assert.equal(lower.status, 200, lower.text);
    assert.ok(lower.headers.get('mcp-session-id'));
    const wrong = await rawRequest(port, { headers: { ...mcpHeaders(h.companion.authToken, port), Authorization: 'BEARER nope' }, body: INIT_BODY });
    assert.equal(wrong.status, 401);
  });

  test('a real MCP client with a wrong token cannot connect', async () => {
    await assert.rejects(connectClient(h.companion, 'wrong'), /401|Unauthorized/);
  });

  // Regression (issue 27): `Authorization: bearer TOKEN` was refused, though RFC 7235 matches the scheme case-insensitively.
  test('the bearer check accepts only "Bearer <exact token>", the scheme in any case (RFC 7235)', () => {
    const matches = bearerChecker('abc123');
    for (const header of ['Bearer abc123', 'bearer abc123', 'BEARER abc123', 'bEaReR abc123', 'Bearer  abc123']) assert.equal(matches(header), true, header);
    for (const header of [
      undefined,
      '',
      'Bearer',
      'bearer',
      'Bearer abc12',
      'Bearer abc1234',
      'bearer ABC123',
      'Bearer abc123 ',
      'Token abc123',
      'Bearerabc123',
    ]) {
      assert.equal(matches(header), false, String(header));
    }
  });
});
